#!/usr/bin/env bash
# The deploy example (examples/deployer), end to end: its two `mcp-tester call`
# transcripts, accept and decline (checked byte for byte), the same against the previous protocol
# version, and the seven-step deploy.mcp script.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
export DEPLOY_STATE_KEY="${DEPLOY_STATE_KEY:-demo-key-0123456789abcdef-0123456789}"
cd examples/deployer
deployer="$PWD/../../bin/deployer"

show() { printf '\n$ %s\n' "$*"; }
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "demo: $1 differs from the deploy transcript" >&2
    diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") >&2 || true
    exit 1
  fi
}

accept_want='[ELICIT] Roll out auth-service version 2.4.1 – where to? → accept {"confirm":true,"environment":"production"}
Content 0 (Text):
Rolling out auth-service 2.4.1 to production.'
decline_want='[ELICIT] Roll out auth-service version 2.4.1 – where to? → decline
Content 0 (Text):
Deployment not started (decline).'

for proto in "" 2025-11-25; do
  extra=()
  [ -n "$proto" ] && extra=(--protocol "$proto")
  show mcp-tester call deploy -c ./deployer --args "'{\"service\":\"auth-service\"}'" --elicit "'accept:{\"environment\":\"production\",\"confirm\":true}'" "${extra[@]}"
  out=$(mcp-tester call deploy -c "$deployer" --args '{"service":"auth-service"}' --elicit 'accept:{"environment":"production","confirm":true}' "${extra[@]}")
  echo "$out"
  check "accept transcript${proto:+ ($proto)}" "$accept_want" "$out"

  show mcp-tester call deploy -c ./deployer --args "'{\"service\":\"auth-service\"}'" --elicit decline "${extra[@]}"
  out=$(mcp-tester call deploy -c "$deployer" --args '{"service":"auth-service"}' --elicit decline "${extra[@]}")
  echo "$out"
  check "decline transcript${proto:+ ($proto)}" "$decline_want" "$out"
done

show mcp-tester test -s deploy.mcp -c ./deployer
mcp-tester test -s deploy.mcp -c "$deployer"
echo
echo "demo: the deploy transcripts came out byte for byte, and deploy.mcp passed."

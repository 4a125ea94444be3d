#!/usr/bin/env bash
# The client under test of the official conformance suite's client scenarios: the suite
# starts a mock server and runs `conformance-client.sh URL` with MCP_CONFORMANCE_SCENARIO
# (the scenario), MCP_CONFORMANCE_PROTOCOL_VERSION and, for some scenarios,
# MCP_CONFORMANCE_CONTEXT (JSON) set. Each scenario is played by the real mcp-tester
# commands a person would type; JSON is read with jq
# (scripts/ensure-jq.sh).
#
# MCP_TESTER names the binary (default: mcp-tester on PATH); FAKEBROWSER, the scripted
# browser of internal/testsupport/fixtures/fakebrowser that the auth/* scenarios log in with.
set -uo pipefail

url=${1:?usage: conformance-client.sh URL}
scenario=${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set}
protocol=${MCP_CONFORMANCE_PROTOCOL_VERSION:-}
tester=${MCP_TESTER:-mcp-tester}
conn=(-u "$url" --timeout 10s)
[ -n "$protocol" ] && conn+=(--protocol "$protocol")

# json FILTER reads JSON on stdin and prints what the jq FILTER gives, raw (a string as it
# is, anything else as compact JSON; nothing for null). jq starts in a few milliseconds,
# where a node start is a tenth of a second and the auth/* scenarios read seven fields.
json() {
  jq -rc "$@"
}

# first KIND FIELD prints FIELD of the first item of `mcp-tester KIND list`.
first() {
  "$tester" "$1" list "${conn[@]}" --format json | json --arg k "$1" --arg f "$2" '(.[$k] // [])[0][$f] // empty'
}

case "$scenario" in
initialize | json-schema-ref-no-deref)
  "$tester" tools list "${conn[@]}"
  ;;
tools_call)
  "$tester" call add_numbers "${conn[@]}" --args '{"a": 5, "b": 3}'
  ;;
request-metadata)
  "$tester" ping "${conn[@]}"
  ;;
elicitation-sep1034-client-defaults)
  # accept with nothing filled in: the tester applies the schema's defaults.
  "$tester" call test_client_elicitation_defaults "${conn[@]}" --elicit accept
  ;;
sse-retry)
  "$tester" call test_reconnection "${conn[@]}"
  ;;
json-schema-2020-12-preservation)
  # Echo the focal tool's input schema exactly as listed.
  schema=$("$tester" tools list "${conn[@]}" --format json |
    json 'first(.tools[] | select(.name == "json_schema_2020_12_tool") | .inputSchema) // empty')
  "$tester" call json_schema_echo "${conn[@]}" --args "{\"schema\": ${schema:-null}}"
  ;;
sep-2322-client-request-state)
  for tool in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
    "$tester" call "$tool" "${conn[@]}" --elicit 'accept:{"confirmed": true}' || true
  done
  ;;
http-standard-headers)
  tool=$(first tools name)
  [ -n "$tool" ] && { "$tester" call "$tool" "${conn[@]}" || true; }
  uri=$(first resources uri)
  [ -n "$uri" ] && { "$tester" resources read "$uri" "${conn[@]}" || true; }
  prompt=$(first prompts name)
  [ -n "$prompt" ] && { "$tester" prompts get "$prompt" "${conn[@]}" || true; }
  ;;
http-custom-headers)
  # Every call the scenario asks for, each through `call`, as a user would.
  calls=$(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-{\}}" | json '(.toolCalls // [])[] | "\(.name)\t\(.arguments // {} | tojson)"')
  while IFS=$'\t' read -r name args; do
    [ -n "$name" ] && { "$tester" call "$name" "${conn[@]}" --args "$args" || true; }
  done <<<"$calls"
  ;;
http-invalid-tool-headers)
  # Call every tool the tester lists; tools whose x-mcp-header declarations are invalid
  # must not be among them.
  names=$("$tester" tools list "${conn[@]}" --all --format json | json '.tools[].name')
  while read -r name; do
    [ -n "$name" ] && { "$tester" call "$name" "${conn[@]}" --args '{"region": "us-west1"}' || true; }
  done <<<"$names"
  ;;
auth/*)
  # A call that logs in when the server asks: the scenario's context (a pre-registered
  # client, a key, a workload's or an enterprise's token) becomes the login flags, the
  # browser is the scripted one, and the token cache is the scenario's own.
  context=${MCP_CONFORMANCE_CONTEXT:-"{}"}
  field() { printf '%s' "$context" | json --arg k "$1" '.[$k] | strings'; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  args=(call test-tool "${conn[@]}" --login-timeout 20s
    --client-metadata-url https://conformance-test.local/client-metadata.json)
  case "$scenario" in
  auth/client-credentials-*) args+=(--client-credentials) ;;
  esac
  client_id=$(field client_id)
  secret=$(field client_secret)
  key=$(field private_key_pem)
  assertion=$(field valid_jwt)
  id_token=$(field idp_id_token)
  [ -n "$client_id" ] && args+=(--client-id "$client_id")
  [ -n "$secret" ] && export MCP_TESTER_CLIENT_SECRET="$secret"
  if [ -n "$key" ]; then
    printf '%s\n' "$key" >"$work/client-key.pem"
    args+=(--client-key "$work/client-key.pem")
  fi
  if [ -n "$assertion" ]; then
    printf '%s\n' "$assertion" >"$work/assertion.jwt"
    args+=(--assertion-file "$work/assertion.jwt")
  fi
  if [ -n "$id_token" ]; then
    printf '%s\n' "$id_token" >"$work/id-token.jwt"
    args+=(--id-token-file "$work/id-token.jwt" --idp-issuer "$(field idp_issuer)" --idp-client-id "$(field idp_client_id)")
  fi
  MCP_TESTER_BROWSER="${FAKEBROWSER:?FAKEBROWSER is not set}" XDG_CONFIG_HOME="$work/config" "$tester" "${args[@]}"
  ;;
*)
  echo "conformance-client: scenario $scenario is not played by this client" >&2
  exit 2
  ;;
esac

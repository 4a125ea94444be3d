#!/usr/bin/env bash
# Installs the npm packages of the interop peers (cmd/mcp-tester/testdata/peers: servers and
# clients on the TypeScript SDK v2 and v1 and on FastMCP) at the versions pinned in their
# package-lock.json, with Node 22 from .tools. Idempotent: quiet and quick when node_modules
# already matches the lock file. One install at a time (a lock), each attempt bounded (10
# minutes), retried twice on a busy machine or a flaky network; install scripts never run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh

npm_ci_pinned cmd/mcp-tester/testdata/peers "the interop peers' packages"

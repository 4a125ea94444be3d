#!/usr/bin/env bash
# Installs the real MCP servers published as npm packages whose catalogs the scan's tests read
# (internal/checks/scan/testdata/servers: the reference servers and others), at the versions pinned in
# their package-lock.json, with Node 22 from .tools. Idempotent: quiet and quick when
# node_modules already matches the lock file. One install at a time (a lock), each attempt
# bounded (10 minutes), retried twice on a busy machine or a flaky network; install scripts
# never run (no browser is downloaded: the scan only lists what the servers offer).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh

npm_ci_pinned internal/checks/scan/testdata/servers "the scanned servers' packages"

#!/usr/bin/env bash
# Installs the SARIF SDK's validator (npm @microsoft/sarif-multitool-linux, pinned by the
# package-lock.json in internal/report/sarif/testdata/validator): it ships the SARIF 2.1.0 JSON
# schema (sarif-2.1.0.json), against which the tests validate every SARIF log mcp-tester
# writes, and the SDK's own `Sarif.Multitool validate`. Idempotent: quiet and quick when
# node_modules already matches the lock file. One install at a time (a lock), each attempt
# bounded (10 minutes), retried twice; install scripts never run (the one it has only
# marks the validator executable, done here).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh

dir=internal/report/sarif/testdata/validator
mark_executable() { chmod u+x "$dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"; }
npm_ci_pinned "$dir" "the SARIF validator" mark_executable

#!/usr/bin/env bash
# Installs staticcheck into .tools/bin once, pinned, with `go install`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh

go_install_tool staticcheck honnef.co/go/tools/cmd/staticcheck v0.8.2

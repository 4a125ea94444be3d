#!/usr/bin/env bash
# Installs goimports into .tools/bin once, pinned, with `go install`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh

go_install_tool goimports golang.org/x/tools/cmd/goimports v0.51.0

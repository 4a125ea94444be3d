#!/usr/bin/env bash
# Installs nfpm, which makes the release's .deb and .rpm packages, into .tools/bin once,
# pinned, with `go install` (a tool of the build, not a dependency of the module: it is
# not in go.mod). v2.48.0 builds with the project's Go 1.26.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/tools.sh

go_install_tool nfpm github.com/goreleaser/nfpm/v2/cmd/nfpm v2.48.0

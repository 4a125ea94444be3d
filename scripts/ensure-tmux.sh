#!/usr/bin/env bash
# Installs Debian's tmux so that the terminal tests of internal/client/interactive can drive
# mcp-tester as a person would (send-keys, capture-pane). Idempotent: quiet and quick
# when tmux is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

apt_ensure tmux

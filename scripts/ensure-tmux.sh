#!/usr/bin/env bash
# Installs Debian's tmux so that the terminal tests of internal/interactive can drive
# mcp-tester as a person would (send-keys, capture-pane). Idempotent: quiet and quick
# when tmux is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

if command -v tmux >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-tmux: tmux is missing; run this script as root to install it (apt-get install tmux)" >&2
  exit 1
fi
apt_install tmux
command -v tmux >/dev/null 2>&1 || { echo "ensure-tmux: tmux was installed but is not on PATH" >&2; exit 1; }

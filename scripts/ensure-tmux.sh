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
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show tmux >/dev/null 2>&1; then
  echo "ensure-tmux: refreshing the package lists"
  apt_get update -qq
fi
echo "ensure-tmux: installing tmux"
if ! apt_get install -y -qq --no-install-recommends tmux >/dev/null; then
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends tmux >/dev/null
fi
command -v tmux >/dev/null 2>&1 || { echo "ensure-tmux: tmux was installed but is not on PATH" >&2; exit 1; }

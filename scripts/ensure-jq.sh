#!/usr/bin/env bash
# Installs Debian's jq: the --help examples of the tasks commands read a task id out of
# JSON with it, and the examples test runs them as written. Idempotent: quiet and quick
# when jq is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

if command -v jq >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-jq: jq is missing; run this script as root to install it (apt-get install jq)" >&2
  exit 1
fi
apt_install jq
command -v jq >/dev/null 2>&1 || { echo "ensure-jq: jq was installed but is not on PATH" >&2; exit 1; }

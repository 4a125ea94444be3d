#!/usr/bin/env bash
# Installs Debian's rpm so that the release test can read the .rpm packages and install
# them into a folder (rpm --root) as an RPM system would. Idempotent: quiet and quick
# when rpm is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

if command -v rpm >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-rpm: rpm is missing; run this script as root to install it (apt-get install rpm)" >&2
  exit 1
fi
apt_install rpm
command -v rpm >/dev/null 2>&1 || { echo "ensure-rpm: rpm was installed but is not on PATH" >&2; exit 1; }

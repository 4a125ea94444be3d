#!/usr/bin/env bash
# Installs Debian's groff-base, which formats man pages: the man page tests read every
# page as man shows it (and fail on groff's warnings). Idempotent: quiet and quick when
# groff is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

if command -v groff >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-groff: groff is missing; run this script as root to install it (apt-get install groff-base)" >&2
  exit 1
fi
apt_install groff-base
command -v groff >/dev/null 2>&1 || { echo "ensure-groff: groff-base was installed but groff is not on PATH" >&2; exit 1; }

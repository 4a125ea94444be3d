#!/usr/bin/env bash
# Installs Debian's groff-base, which formats man pages: the man page tests read every
# page as man shows it (and fail on groff's warnings). Idempotent: quiet and quick when
# groff is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

apt_ensure groff groff-base

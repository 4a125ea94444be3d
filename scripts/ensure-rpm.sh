#!/usr/bin/env bash
# Installs Debian's rpm so that the release test can read the .rpm packages and install
# them into a folder (rpm --root) as an RPM system would. Idempotent: quiet and quick
# when rpm is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

apt_ensure rpm

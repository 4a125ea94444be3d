#!/usr/bin/env bash
# Installs Debian's jq: the --help examples of the tasks commands read a task id out of
# JSON with it, and the examples test runs them as written. Idempotent: quiet and quick
# when jq is already there. `apt-get update` runs only when the package is unknown.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

apt_ensure jq

#!/usr/bin/env bash
# Installs Debian's redis-server so that the scale-out tests can start their own Redis on a
# free loopback port (redis-server --port P --save "" --appendonly no) and stop it by PID.
# Idempotent: quiet and quick when redis-server is already there. `apt-get update` runs
# only when the package is unknown. No system service is started: the install runs with a
# policy that forbids starting services, and the tests start and stop their own servers.
set -euo pipefail
. "$(dirname "$0")/apt.sh"

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ "$(id -u)" = 0 ] && [ ! -e "$policy" ]; then
  # Exit code 101 tells invoke-rc.d not to start the service the package installs.
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  made_policy=1
fi
cleanup() { if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT
apt_ensure redis-server

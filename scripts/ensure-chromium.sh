#!/usr/bin/env bash
# Installs Debian's chromium so that /usr/bin/chromium exists; the connect tests drive it
# headless through chromedp. Idempotent: quiet and quick when it is already there.
# `apt-get update` runs only when the package is not known yet (a fresh machine).
set -euo pipefail
. "$(dirname "$0")/apt.sh"

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing; run this script as root to install it (apt-get install chromium)." >&2
  if [ -n "${CI:-}" ]; then
    exit 1
  fi
  echo "ensure-chromium: the browser tests will be skipped." >&2
  exit 0
fi
apt_install chromium
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: chromium was installed but /usr/bin/chromium is missing" >&2
  exit 1
fi

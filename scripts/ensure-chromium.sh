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
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show chromium >/dev/null 2>&1; then
  echo "ensure-chromium: refreshing the package lists"
  apt_get update -qq
fi
echo "ensure-chromium: installing chromium"
if ! apt_get install -y -qq --no-install-recommends chromium >/dev/null; then
  # The lists may be stale (a package version that is gone): refresh once and retry.
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends chromium >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-chromium: chromium was installed but /usr/bin/chromium is missing" >&2
  exit 1
fi

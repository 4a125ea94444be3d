#!/usr/bin/env bash
# Installs staticcheck into .tools/bin once.
set -euo pipefail
cd "$(dirname "$0")/.."
# One install into .tools at a time: a second run (another make in this checkout)
# waits for the first, at most ten minutes, then finds everything in place.
mkdir -p .tools
exec 9>.tools/.install.lock
flock -w 600 9 || { echo "ensure-staticcheck: another install into .tools held the lock for 10 minutes; giving up" >&2; exit 1; }
want=v0.8.2
if [ -x .tools/bin/staticcheck ] && [ "$(cat .tools/staticcheck.version 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p .tools/bin
GOBIN="$PWD/.tools/bin" go install "honnef.co/go/tools/cmd/staticcheck@$want"
echo "$want" > .tools/staticcheck.version

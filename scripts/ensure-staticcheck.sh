#!/usr/bin/env bash
# Installs staticcheck into .tools/bin once.
set -euo pipefail
cd "$(dirname "$0")/.."
want=v0.8.2
if [ -x .tools/bin/staticcheck ] && [ "$(cat .tools/staticcheck.version 2>/dev/null)" = "$want" ]; then
  exit 0
fi
mkdir -p .tools/bin
GOBIN="$PWD/.tools/bin" go install "honnef.co/go/tools/cmd/staticcheck@$want"
echo "$want" > .tools/staticcheck.version

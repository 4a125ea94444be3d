#!/usr/bin/env bash
# gofmt, go vet and staticcheck must stay clean.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null))
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
bash scripts/ensure-staticcheck.sh
.tools/bin/staticcheck ./...
echo "lint: clean"

#!/usr/bin/env bash
# gofmt, go vet (for linux, windows and darwin) and staticcheck must stay clean.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null))
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
# Every package, its tests included, must build on the other systems a
# release is made for: vet type-checks them all without running anything.
for platform in windows/amd64 darwin/arm64; do
  GOOS=${platform%/*} GOARCH=${platform#*/} go vet ./... || { echo "lint: go vet fails for $platform" >&2; exit 1; }
done
bash scripts/ensure-staticcheck.sh
.tools/bin/staticcheck ./...
echo "lint: clean"

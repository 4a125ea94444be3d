#!/usr/bin/env bash
# gofmt, goimports, go vet (for linux, windows and darwin) and staticcheck must stay clean.
#
# Each platform is vetted once (`go test` in `make unit` runs with -vet=off: this is
# the vet). The other platforms are vetted as a release builds them (-trimpath, no
# cgo), so that what vet compiles of their dependencies is in the build cache when
# the release tests (scripts/release_test.go) build those platforms. staticcheck runs
# alongside the vets.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-staticcheck.sh
bash scripts/ensure-goimports.sh

files=$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)
unformatted=$(gofmt -l $files)
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting (gofmt -w FILE):" >&2
  echo "$unformatted" >&2
  exit 1
fi
# Standard library imports in a group of their own.
unimported=$(.tools/bin/goimports -l $files)
if [ -n "$unimported" ]; then
  echo "goimports: these files need their imports grouped (.tools/bin/goimports -w FILE):" >&2
  echo "$unimported" >&2
  exit 1
fi

staticlog=$(mktemp)
trap 'rm -f "$staticlog"' EXIT
.tools/bin/staticcheck ./... >"$staticlog" 2>&1 &
static=$!

failed=""
go vet ./... || failed="$failed linux"
# Every package, its tests included, must build on the other systems a
# release is made for: vet type-checks them all without running anything.
for platform in windows/amd64 darwin/arm64; do
  GOOS=${platform%/*} GOARCH=${platform#*/} CGO_ENABLED=0 go vet -trimpath ./... || failed="$failed $platform"
done

staticok=true
wait "$static" || staticok=false
cat "$staticlog"
if [ -n "$failed" ]; then
  echo "lint: go vet fails for$failed" >&2
  exit 1
fi
if [ "$staticok" != true ]; then
  echo "lint: staticcheck fails" >&2
  exit 1
fi
echo "lint: clean"

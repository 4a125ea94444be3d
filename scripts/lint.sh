#!/usr/bin/env bash
# gofmt, goimports, go vet (for linux, windows and darwin) and staticcheck must stay clean.
#
# Each platform is vetted once (`go test` in `make unit` runs with -vet=off: this is
# the vet). The other platforms are vetted as a release builds them (-trimpath, no
# cgo), so that what vet compiles of their dependencies is in the build cache when
# the release tests (scripts/release_test.go) build those platforms, and is shared
# by every clone on the machine (-trimpath takes the folder out of the cache keys).
#
# The four (staticcheck and the three vets) share no work but the build cache, which
# is safe to share: they run side by side, each into a log of its own, and the logs
# are printed in a fixed order once all have ended. gofmt and goimports run
# meanwhile. On a machine others load too, four at once also keep lint's share of
# the processors; on a quiet one they cost what they cost one after another.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-staticcheck.sh
bash scripts/ensure-goimports.sh

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# start NAME COMMAND...: runs COMMAND in the background into $logs/N (N its
# number among those started), and records its exit status in $logs/N.status.
started=()
start() {
  local log="$logs/${#started[@]}"
  started+=("$1")
  shift
  ( set +e; "$@" >"$log" 2>&1; echo $? >"$log.status" ) &
}
start staticcheck .tools/bin/staticcheck ./...
start "go vet linux" go vet ./...
# Every package, its tests included, must build on the other systems a
# release is made for: vet type-checks them all without running anything.
for platform in windows/amd64 darwin/arm64; do
  start "go vet $platform" env GOOS=${platform%/*} GOARCH=${platform#*/} CGO_ENABLED=0 go vet -trimpath ./...
done

failed=""
files=$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)
unformatted=$(gofmt -l $files) || failed="$failed, gofmt (a file does not parse)"
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting (gofmt -w FILE):" >&2
  echo "$unformatted" >&2
  failed="$failed, gofmt"
fi
# Standard library imports in a group of their own.
unimported=$(.tools/bin/goimports -l $files) || failed="$failed, goimports (a file does not parse)"
if [ -n "$unimported" ]; then
  echo "goimports: these files need their imports grouped (.tools/bin/goimports -w FILE):" >&2
  echo "$unimported" >&2
  failed="$failed, goimports"
fi

wait
for i in "${!started[@]}"; do
  cat "$logs/$i"
  if [ "$(cat "$logs/$i.status" 2>/dev/null)" != 0 ]; then
    failed="$failed, ${started[$i]}"
  fi
done
if [ -n "$failed" ]; then
  echo "lint fails: ${failed#, }" >&2
  exit 1
fi
echo "lint: clean"

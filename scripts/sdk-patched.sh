#!/usr/bin/env bash
# Builds the sdkcost fixture (internal/testsupport/fixtures/sdkcost) and the deploy example
# against a patched copy of the go-sdk this module uses, outside the repository:
# the module keeps the released go-sdk, and the patches in scripts/sdk-patches are
# what BENCHMARKS.md ("The go-sdk's share") measures, to be proposed upstream.
#
#   bash scripts/sdk-patched.sh [PATCH...]    default: every scripts/sdk-patches/*.diff
#
# It copies the go-sdk from the module cache to a scratch folder ($SDK_PATCHED_DIR,
# default a new temporary one) and applies the patches; copies this repository's
# committed tree (git archive HEAD) next to it with a replace directive to the
# patched copy (the fixture imports packages of this module, so it is built in a
# copy of the module, not on its own); builds DIR/sdkcost/sdkcost and
# DIR/deployer there; and prints DIR. Give them to the benchmarks:
#
#   dir=$(bash scripts/sdk-patched.sh)
#   SDKCOST_PATCHED=$dir/sdkcost/sdkcost DEPLOYER_PATCHED=$dir/deployer \
#     go test ./internal/testsupport/scaleout -run '^$' -bench 'SDKShare|DeployerSDK|DeployerFloor' -benchtime 1x
#
# Nothing is fetched: the go-sdk comes from the module cache (GOFLAGS=-mod=mod is
# not used, and GOPROXY=off keeps the build from reaching out for a module the
# copy would otherwise look up).
set -euo pipefail
cd "$(dirname "$0")/.."
sdk=github.com/modelcontextprotocol/go-sdk
src=$(go list -m -f '{{.Dir}}' "$sdk")
if [ -z "$src" ] || [ ! -d "$src" ]; then
  echo "sdk-patched: the source of $sdk is not in the module cache (run go mod download $sdk)" >&2
  exit 1
fi
work="${SDK_PATCHED_DIR:-$(mktemp -d -t askback-sdk-patched-XXXXXX)}"
patches=("$@")
if [ ${#patches[@]} -eq 0 ]; then
  patches=(scripts/sdk-patches/*.diff)
fi

rm -rf "$work/go-sdk" "$work/sdkcost" "$work/askback" "$work/deployer"
mkdir -p "$work/sdkcost" "$work/askback"
cp -r "$src" "$work/go-sdk"
chmod -R u+w "$work/go-sdk"
for p in "${patches[@]}"; do
  patch -d "$work/go-sdk" -p1 --quiet --forward <"$p" >&2
done
git archive HEAD | tar -x -C "$work/askback"
(
  cd "$work/askback"
  go mod edit -replace "$sdk=../go-sdk"
  GOPROXY=off GOFLAGS=-mod=readonly go build -o ../sdkcost/sdkcost ./internal/testsupport/fixtures/sdkcost
  GOPROXY=off GOFLAGS=-mod=readonly go build -o ../deployer ./examples/deployer
) >&2
echo "$work"

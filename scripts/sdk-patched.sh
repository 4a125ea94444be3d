#!/usr/bin/env bash
# Builds the sdkcost fixture (internal/fixtures/sdkcost) and the deploy example
# against a patched copy of the go-sdk this module uses, outside the repository:
# the module keeps the released go-sdk, and the patches in scripts/sdk-patches are
# what BENCHMARKS.md ("The go-sdk's share") measures, to be proposed upstream.
#
#   bash scripts/sdk-patched.sh [PATCH...]    default: every scripts/sdk-patches/*.diff
#
# It copies the go-sdk from the module cache to a scratch folder ($SDK_PATCHED_DIR,
# default a new temporary one) and applies the patches; writes a scratch module
# holding the fixture's main.go, and a copy of this repository's committed tree
# (git archive HEAD), each with a replace directive to the patched copy; builds
# DIR/sdkcost/sdkcost and DIR/deployer; and prints DIR. Give them to the benchmarks:
#
#   dir=$(bash scripts/sdk-patched.sh)
#   SDKCOST_PATCHED=$dir/sdkcost/sdkcost DEPLOYER_PATCHED=$dir/deployer \
#     go test ./internal/fixtures/sdkcost -run '^$' -bench . -benchtime 1x
set -euo pipefail
cd "$(dirname "$0")/.."
sdk=github.com/modelcontextprotocol/go-sdk
version=$(go list -m -f '{{.Version}}' "$sdk")
src=$(go list -m -f '{{.Dir}}' "$sdk")
gover=$(go list -m -f '{{.GoVersion}}')
work="${SDK_PATCHED_DIR:-$(mktemp -d -t askback-sdk-patched-XXXXXX)}"
patches=("$@")
if [ ${#patches[@]} -eq 0 ]; then
  patches=(scripts/sdk-patches/*.diff)
fi

rm -rf "$work/go-sdk" "$work/sdkcost" "$work/askback" "$work/deployer"
mkdir -p "$work/sdkcost"
cp -r "$src" "$work/go-sdk"
chmod -R u+w "$work/go-sdk"
for p in "${patches[@]}"; do
  patch -d "$work/go-sdk" -p1 --quiet --forward <"$p" >&2
done
cp internal/fixtures/sdkcost/main.go "$work/sdkcost/"
cat >"$work/sdkcost/go.mod" <<MOD
module sdkcost

go $gover

require $sdk $version

replace $sdk => ../go-sdk
MOD
cp go.sum "$work/sdkcost/go.sum"
(cd "$work/sdkcost" && GOFLAGS=-mod=mod go mod tidy >&2 && go build -o sdkcost .)
mkdir -p "$work/askback"
git archive HEAD | tar -x -C "$work/askback"
(cd "$work/askback" && go mod edit -replace "$sdk=../go-sdk" && go build -o ../deployer ./examples/deployer)
echo "$work"

#!/usr/bin/env bash
# Builds a release of the commit checked out (make release VERSION=v0.9.0):
#
#   scripts/release.sh v0.9.0
#
# into dist/v0.9.0 (OUT=DIR to choose another folder, replaced whole):
#   mcp-tester_0.9.0_OS_ARCH.tar.gz (.zip for windows)  mcp-tester, its man pages, shell completions, README.md
#   askback-examples_0.9.0_OS_ARCH.tar.gz (.zip)        the example servers in bin/, their scripts in examples/
#   mcp-tester_0.9.0_ARCH.deb, mcp-tester-0.9.0-1.ARCH.rpm, askback-examples_…  linux packages (nfpm)
#   askback_0.9.0_checksums.txt                         SHA-256 of all of the above (sha256sum -c)
#   mcp-tester.rb                                       the Homebrew formula, made from the checksums
# for linux, darwin and windows on amd64 and arm64 (PLATFORMS="linux/amd64 …" to build
# fewer; the formula needs linux and darwin on both). Windows gets .zip archives holding
# mcp-tester.exe and the example servers' .exe files.
#
# The release is built from the commit (git archive), not from the working tree, so that
# uncommitted and untracked files never reach it; and it is reproducible: -trimpath, no VCS
# stamping (the version and commit are stamped with -ldflags), static binaries, every file's
# time the commit's time (SOURCE_DATE_EPOCH), archives with sorted entries owned by root.
# Two builds of one commit with one Go give the same checksums.
#
# RELEASE_URL is where the formula downloads the archives from (default: the GitHub
# release of VERSION).
#
# STORED="linux/arm64 …" is for the release tests alone: those platforms' archives and
# packages hold their files stored, not compressed (a valid .tar.gz, .zip, .deb and .rpm
# of the same files; see internal/release's Store). The tests open and read every
# platform's archives and packages; compressing them is most of what they cost, and the
# platform they install (linux/amd64) is built as a release is. A release never sets it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

version=${1:-}
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$'
if [[ ! $version =~ $semver ]]; then
  echo "usage: scripts/release.sh vMAJOR.MINOR.PATCH[-PRERELEASE] (make release VERSION=v0.9.0); got \"$version\"" >&2
  exit 2
fi
v=${version#v}
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
stored=${STORED:-}
for p in $platforms $stored; do
  case $p in
    linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64 | windows/amd64 | windows/arm64) ;;
    *) echo "release: platform \"$p\" is not one of linux, darwin, windows on amd64, arm64" >&2; exit 2 ;;
  esac
done
out=${OUT:-dist/$version}
# OUT is replaced whole: only an empty folder or an earlier release is.
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && ! ls "$out"/askback_*_checksums.txt >/dev/null 2>&1; then
  echo "release: $out exists and is not an earlier release; choose another OUT" >&2
  exit 2
fi
base_url=${RELEASE_URL:-https://github.com/askback/askback/releases/download/$version}

commit=$(git rev-parse --verify 'HEAD^{commit}')
epoch=$(git log -1 --format=%ct "$commit")
if [ -n "$(git status --porcelain)" ]; then
  echo "release: the working tree has changes that are not committed; the release is built from commit $commit without them" >&2
fi

bash scripts/ensure-nfpm.sh
nfpm=$root/.tools/bin/nfpm

work=$(mktemp -d "${TMPDIR:-/tmp}/askback-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src" "$work/dist"
git archive --format=tar "$commit" | tar -x -C "$src"

export SOURCE_DATE_EPOCH=$epoch CGO_ENABLED=0 GOFLAGS=-buildvcs=false
ldflags="-s -w -X github.com/askback/askback/internal/cli.linkVersion=$version -X github.com/askback/askback/internal/cli.linkCommit=$commit"
examples=(./examples/deployer ./examples/conformance ./examples/github-connect ./examples/oldway ./examples/protected)
echo "release $version of $commit ($(go env GOVERSION)) into $out" >&2
(cd "$src" && go build -trimpath -o "$work/pack" ./internal/release/pack)
pack() { "$work/pack" "$@"; }
pack docs -version "$version" -epoch "$epoch" "$work/docs"

for p in $platforms; do
  os=${p%/*} arch=${p#*/} exe=""
  [ "$os" = windows ] && exe=.exe
  ext=tar.gz
  [ "$os" = windows ] && ext=zip
  store=""
  if [[ " $stored " == *" $p "* ]]; then
    store=-store
    echo "  $os/$arch (STORED: archives and packages not compressed; no release)" >&2
  else
    echo "  $os/$arch" >&2
  fi

  name=mcp-tester_${v}_${os}_${arch}
  stage=$work/$name
  exname=askback-examples_${v}_${os}_${arch}
  exstage=$work/$exname
  mkdir -p "$stage" "$exstage/bin" "$exstage/examples/deployer"
  # mcp-tester and the example servers in one go build (one load of the module, not
  # two): the version and commit are stamped into mcp-tester alone, by the -ldflags
  # whose pattern names it (the last match wins); each binary is linked with the same
  # flags, so comes out the same, as when each was built by a go build of its own.
  (cd "$src" && GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w" -ldflags "./cmd/mcp-tester=$ldflags" \
    -o "$exstage/bin/" ./cmd/mcp-tester "${examples[@]}")
  mv "$exstage/bin/mcp-tester$exe" "$stage/"
  cp -R "$work/docs/man" "$work/docs/completions" "$stage/"
  cp "$src/README.md" "$stage/"
  pack archive $store -epoch "$epoch" -prefix "$name" -out "$work/dist/$name.$ext" "$stage"

  cp "$src/examples/deployer/deploy.mcp" "$exstage/examples/deployer/"
  pack archive $store -epoch "$epoch" -prefix "$exname" -out "$work/dist/$exname.$ext" "$exstage"

  if [ "$os" = linux ]; then
    pkg=$work/pkg_$arch
    mkdir -p "$pkg/man" "$pkg/completions"
    cp "$stage/mcp-tester" "$pkg/"
    cp "$work/docs/completions/"* "$pkg/completions/"
    pack gzip -out "$pkg/man" "$work/docs/man/man1/"*.1
    configs=$src/packaging
    if [ -n "$store" ]; then
      # The packages' configurations with gzip's level 0 (stored) for the .deb and the .rpm.
      configs=$work/packaging-stored
      mkdir -p "$configs"
      for c in mcp-tester askback-examples; do
        sed -e 's/^  compression: .*/  compression: gzip:0/' -e 's/^rpm:$/rpm:\n  compression: gzip:0/' \
          "$src/packaging/$c.yaml" >"$configs/$c.yaml"
        if [ "$(grep -c '^  compression: gzip:0$' "$configs/$c.yaml")" != 2 ]; then
          echo "release: STORED: packaging/$c.yaml does not say its .deb compression where expected" >&2
          exit 1
        fi
      done
    fi
    for packager in deb rpm; do
      ARCH=$arch VERSION=$version STAGE=$pkg "$nfpm" package --config "$configs/mcp-tester.yaml" \
        --packager "$packager" --target "$work/dist/" >/dev/null
      ARCH=$arch VERSION=$version STAGE=$exstage "$nfpm" package --config "$configs/askback-examples.yaml" \
        --packager "$packager" --target "$work/dist/" >/dev/null
    done
  fi
done

sums=askback_${v}_checksums.txt
pack checksums -out "$work/$sums" "$work/dist/"*
mv "$work/$sums" "$work/dist/"
if [[ " $platforms " == *" darwin/amd64 "* && " $platforms " == *" darwin/arm64 "* &&
      " $platforms " == *" linux/amd64 "* && " $platforms " == *" linux/arm64 "* ]]; then
  pack formula -version "$version" -url "$base_url" -checksums "$work/dist/$sums" -out "$work/dist/mcp-tester.rb"
else
  echo "release: no Homebrew formula: it needs darwin and linux on amd64 and arm64" >&2
fi

rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$work/dist" "$out"
(cd "$out" && ls -1)

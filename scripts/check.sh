#!/usr/bin/env bash
# make check: the fast inner loop, under two minutes on a quiet machine: every
# package compiled, go vet for this platform, and the unit tests of every package
# whose tests start no process: neither the package nor its tests' imports are
# os/exec or one of the helpers that start processes (the module's binaries,
# transcripts, redis-server, Chromium, node, the documents' shell commands), and
# -short skips the few tests that start one in a package otherwise free of them.
# Compiling, vetting and test results are cached as go caches them.
#
# "Compiled" is `go list -export`: every package, the commands and examples
# included, is compiled (and cached) but nothing is linked. `go build ./...` links
# all 21 commands every time, uncached: two minutes of a loaded machine for what
# `make build` and `make test` check anyway.
#
# `make test` remains the whole truth: lint for every platform, every test, the
# transcripts, conformance.
set -euo pipefail
cd "$(dirname "$0")/.."
go list -export ./... >/dev/null
go vet ./...
pkgs=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... |
  awk '{ for (i = 1; i <= NF; i++) if ($i == "os/exec" || $i ~ /\/testscript$/ || $i ~ /\/internal\/(testsupport\/(testbin|scaleout|browsertest|docexamples)|report\/sarif\/sariftest)$/) next; print $1 }')
go test -short -vet=off $pkgs

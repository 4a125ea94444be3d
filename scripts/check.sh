#!/usr/bin/env bash
# make check: the fast inner loop, under two minutes on a quiet machine: the build,
# go vet for this platform, and the unit tests of every package whose tests start no
# process: neither the package nor its tests' imports are os/exec or one of the
# helpers that start processes (the module's binaries, transcripts, redis-server,
# Chromium, node, the documents' shell commands). Test results are cached as go test
# caches them. `make test` remains the whole truth: lint for every platform, every
# test, the transcripts, conformance.
set -euo pipefail
cd "$(dirname "$0")/.."
go build ./...
go vet ./...
pkgs=$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... |
  awk '{ for (i = 1; i <= NF; i++) if ($i == "os/exec" || $i ~ /\/testscript$/ || $i ~ /\/internal\/(testsupport\/(testbin|scaleout|browsertest|docexamples)|report\/sarif\/sariftest)$/) next; print $1 }')
go test -short -vet=off $pkgs

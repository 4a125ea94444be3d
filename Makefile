# The project's vocabulary: `make demo` runs the deploy example end to end,
# `make test` runs every test (and installs what the tests need, idempotently),
# `make release VERSION=v0.9.0` builds the release of the commit checked out.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
TOOLS := $(CURDIR)/.tools
export PATH := $(BIN):$(TOOLS)/bin:$(PATH)

# One build configuration for everything make builds, vets and tests, the one a
# release builds with (-trimpath, no cgo): a package compiled once, for this
# machine, serves make build, lint's vet, every test binary, the binaries the tests
# build and the release tests' build of this platform, where cgo and the folder in
# the cache keys made each compile it again (a whole compile of the standard
# library, the dependencies and the module on a new machine; BENCHMARKS.md, "What
# make test costs"). No package of the module uses cgo. Links leave out the DWARF
# debugging sections (-w; a release strips the symbol table too): a third of each
# link's CPU, and make test links every test binary whose code changed. Stack traces
# keep their files and lines (they come from the line tables, not DWARF); to debug a
# binary with a debugger, build it with `go build` or `dlv debug` outside make.
export CGO_ENABLED := 0
export GOFLAGS := $(strip $(GOFLAGS) -trimpath -ldflags=-w)

.PHONY: all build demo check test unit lint setup bench release clean

all: build

# A build from a clone is no release: it is stamped with its commit (and
# whether the clone has uncommitted changes), and `mcp-tester --version`
# says "development build from a clone". `make release` stamps a version.
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED := $(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo true)
LDFLAGS := -w -X github.com/askback/askback/internal/cli.linkCommit=$(COMMIT) -X github.com/askback/askback/internal/cli.linkModified=$(MODIFIED)

## build: the CLI, the example servers and the test fixtures into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ -ldflags "$(LDFLAGS)" ./cmd/mcp-tester ./examples/... ./internal/testsupport/fixtures/...

## setup: install everything the tests need (idempotent)
setup:
	@bash scripts/setup.sh

## demo: the deploy example (examples/deployer), end to end
demo: build
	@bash scripts/demo.sh

## check: the fast inner loop: build, vet, and the unit tests that start no process
check:
	@bash scripts/check.sh

## lint: gofmt, goimports, go vet (each platform once), staticcheck
lint:
	@bash scripts/lint.sh

## unit: go test ./... (the testscript transcripts included). Vet is lint's
## (-vet=off); ./scripts first, as its release builds take longest. The tests run
## the binaries make build has just built (ASKBACK_TEST_BIN), not a second link of them.
unit: build
	ASKBACK_TEST_BIN=$(BIN) $(GO) test -count=1 -vet=off -timeout 80m ./scripts ./...

## test: everything CI runs (the conformance suite runs the binaries make build built)
test: setup lint unit
	@CONFORMANCE_BIN=$(BIN) bash scripts/conformance.sh

## bench: the benchmarks that BENCHMARKS.md reports
bench: build
	@bash scripts/bench.sh

## release: make release VERSION=v0.9.0 builds the release of the commit checked out
## into dist/VERSION: archives for linux, darwin and windows on amd64 and arm64, .deb
## and .rpm packages, checksums and the Homebrew formula (scripts/release.sh)
release:
	@test -n "$(VERSION)" || { echo "make release: say which version: make release VERSION=v0.9.0" >&2; exit 2; }
	@bash scripts/release.sh "$(VERSION)"

clean:
	rm -rf $(BIN) dist

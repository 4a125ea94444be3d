# The project's vocabulary: `make demo` runs the deploy example end to end,
# `make test` runs every test (and installs what the tests need, idempotently).
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
TOOLS := $(CURDIR)/.tools
export PATH := $(BIN):$(TOOLS)/bin:$(PATH)

.PHONY: all build demo test unit lint setup bench clean

all: build

# VERSION is what `mcp-tester --version` says: the tag or commit of this checkout.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS := -X github.com/askback/askback/internal/cli.linkVersion=$(VERSION)

## build: the CLI, the example servers and the test fixtures into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ -ldflags "$(LDFLAGS)" ./cmd/mcp-tester ./examples/... ./internal/fixtures/...

## setup: install everything the tests need (idempotent)
setup:
	@bash scripts/setup.sh

## demo: the deploy example (examples/deployer), end to end
demo: build
	@bash scripts/demo.sh

## lint: gofmt, go vet, staticcheck
lint:
	@bash scripts/lint.sh

## unit: go test ./... (the testscript transcripts included)
unit: build
	$(GO) test -count=1 -timeout 30m ./...

## test: everything CI runs
test: setup lint unit
	@bash scripts/conformance.sh

## bench: the benchmarks that BENCHMARKS.md reports
bench: build
	@bash scripts/bench.sh

clean:
	rm -rf $(BIN)

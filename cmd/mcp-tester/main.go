// Command mcp-tester plays the client of an MCP server and answers the
// questions it asks. Run `mcp-tester --help` for the commands.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/platform/stopsignal"
)

func main() {
	os.Exit(run())
}

// run is the whole of mcp-tester (the transcripts run it as the binary
// does): an interrupt (Ctrl-C) or SIGTERM ends the context the command
// runs in, which the command then reports, closing what it started.
func run() int {
	if p, ok := gcPercent(os.Getenv); ok {
		debug.SetGCPercent(p)
	}
	ctx, stop := stopsignal.Notify(context.Background())
	defer stop()
	return cli.Main(ctx, iostreams.System(), os.Args[1:])
}

// defaultGCPercent is the garbage collector's target (GOGC) of an
// mcp-tester process whose environment does not set one. Most of what
// the tester allocates is the go-sdk's garbage per message (a 32 KiB
// decoding buffer for each of the several times a message is decoded),
// while it holds its scripts and report for the whole run: at the default
// of 100 the collector would run twice as often as in a program that holds
// nothing, scanning what it holds each time (BENCHMARKS.md, ".mcp
// scripts"). 200 costs a few MB of memory.
const defaultGCPercent = 200

// gcPercent returns the GOGC to set, and false when the environment sets
// GOGC itself (which the runtime has then applied).
func gcPercent(getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return defaultGCPercent, true
}

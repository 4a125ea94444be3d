// Command mcp-tester plays the client of an MCP server and answers the
// questions it asks. Run `mcp-tester --help` for the commands.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/iostreams"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, iostreams.System(), os.Args[1:])
	stop()
	os.Exit(code)
}

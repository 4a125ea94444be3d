//lint:file-ignore SA1019 the suite exercises sampling, roots and logging, deprecated but still part of the protocol.

package main

import (
	"github.com/askback/askback/ask"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServer returns the server with every fixture except the tasks ones.
func newServer(codec *reqstate.Codec) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "askback-conformance", Version: "0.1.0"}, nil)
	ask.EveryRound(server) // older clients are asked every round too
	f := &fixtures{codec: codec}
	f.addMRTR(server)
	addStatelessFixtures(server)
	return server
}

// fixtures holds what the input-required-result fixtures share.
type fixtures struct {
	codec *reqstate.Codec
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

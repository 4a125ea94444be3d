// Command urlserver is a test fixture for the terminal tests: a stdio MCP
// server whose one tool, connect, asks by URL (2026-07-28 input_required)
// and reports what the answer was. Its argument url replaces the link it
// asks to open.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type connectIn struct {
	URL string `json:"url,omitempty" jsonschema:"the link to ask about"`
}

func connect(_ context.Context, req *mcp.CallToolRequest, in connectIn) (*mcp.CallToolResult, any, error) {
	link := in.URL
	if link == "" {
		link = "https://mcp.example.com/connect/github?session=abc"
	}
	ans, ok := req.Params.InputResponses["github"].(*mcp.ElicitResult)
	if !ok || ans == nil {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"github": &mcp.ElicitParams{
			Mode: "url", Message: "Connect your GitHub account so I can create issues.", URL: link,
		}}}, nil, nil
	}
	text := "Not connected (" + ans.Action + ")."
	if ans.Action == "accept" {
		text = "Connected: the link was opened."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "urlserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "connect", Description: "Asks the user to open a link."}, connect)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

//lint:file-ignore SA1019 the suite exercises sampling and logging, deprecated but still part of the protocol.

package main

import (
	"context"

	"github.com/askback/askback/ask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addStatelessFixtures registers the diagnostic tools of the server-stateless
// scenario. The protocol checks themselves (per-request _meta, versions,
// headers, status codes, subscriptions) are the go-sdk's.
func addStatelessFixtures(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "test_missing_capability",
		Description: "Needs the sampling client capability; without it, answers -32021."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
				return nil, nil, ask.MissingCapability(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}})
			}
			return text("The client declared sampling."), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "test_streaming_elicitation",
		Description: "Answers on the response stream with a result only, never a request to the client."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			return text("Only a result on this stream."), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "test_logging_tool",
		Description: "Tries to log; the go-sdk drops the message unless the request set a log level."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "test_logging_tool ran"})
			return text("Logged, if the request asked for it."), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "test_trigger_tool_change",
		Description: "Changes the tool list, so subscribers get notifications/tools/list_changed."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(server, &mcp.Tool{Name: "test_changed_tool", Description: "Added by test_trigger_tool_change."},
				func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
					return text("changed"), nil, nil
				})
			return text("Tool list changed."), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "test_trigger_prompt_change",
		Description: "Changes the prompt list, so subscribers get notifications/prompts/list_changed."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			server.AddPrompt(&mcp.Prompt{Name: "test_changed_prompt", Description: "Added by test_trigger_prompt_change."},
				func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "changed"}}}}, nil
				})
			return text("Prompt list changed."), nil, nil
		})
}

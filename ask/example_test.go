package ask_test

import (
	"context"
	"fmt"

	"github.com/askback/askback/ask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// confirmTool asks for a confirmation when the client can show a form, and
// says so in a normal result when it cannot.
func confirmTool(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
	if !ask.Modes(req).Has(ask.Form) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: "Nothing deleted: this client cannot ask for a confirmation."}}}, nil, nil
	}
	answer, ok := ask.Lookup(req.Params.InputResponses, "confirm")
	if !ok { // first round, or the answer is missing: ask (again)
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
			"confirm": &mcp.ElicitParams{Message: "Delete the build cache?", RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"sure": map[string]any{"type": "boolean"}},
			}},
		}}, nil, nil
	}
	if !answer.Accepted() {
		return ask.Stopped("Nothing deleted", answer), nil, nil
	}
	if sure, _ := answer.Bool("sure"); !sure {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Nothing deleted."}}}, nil, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Build cache deleted."}}}, nil, nil
}

func Example() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "cache", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "clear_cache"}, confirmTool)

	call := func(handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) {
		st, ct := mcp.NewInMemoryTransports()
		ss, _ := server.Connect(ctx, st, nil)
		defer ss.Close()
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"},
			&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}, ElicitationHandler: handler})
		cs, _ := client.Connect(ctx, ct, nil)
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clear_cache"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	call(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}, nil
	})
	call(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	})
	call(nil) // a client without the elicitation capability
	// Output:
	// Build cache deleted.
	// Nothing deleted (decline).
	// Nothing deleted: this client cannot ask for a confirmation.
}

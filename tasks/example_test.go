package tasks_test

import (
	"context"
	"fmt"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A task tool asks in the middle of its work and simply carries on with the
// answer.
func ExampleExtension_AddTool() {
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	ext, err := tasks.Install(server, &tasks.Options{PollInterval: 10 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer ext.Close(context.Background())

	ext.AddTool(&mcp.Tool{Name: "migrate", InputSchema: map[string]any{"type": "object"}}, tasks.Optional,
		func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
			t.Progress(1, 2, "copied the tables")
			answer, err := t.Ask(ctx, "switch", &mcp.ElicitParams{
				Message: "Copy done. Switch traffic to the new database?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"switch": map[string]any{"type": "boolean"}},
					"required":   []string{"switch"},
				},
			})
			if err != nil {
				return nil, err // cancelled, or the client cannot be asked
			}
			if yes, _ := answer.Content["switch"].(bool); answer.Action == "accept" && yes {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Switched."}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Not switched (" + answer.Action + ")."}}}, nil
		})

	// A client that declares the extension and answers the question.
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(context.Background(), st, nil)
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(client); err != nil {
		panic(err)
	}
	cs, _ := client.Connect(context.Background(), taskclient.Transport(ct), nil)
	defer cs.Close()
	tc := taskclient.New(cs, &taskclient.Options{
		Answer: func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", p.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"switch": true}}, nil
		},
	})
	res, err := tc.CallTool(context.Background(), &mcp.CallToolParams{Name: "migrate"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Copy done. Switch traffic to the new database?
	// Switched.
}

package taskclient_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Start a task without waiting, look at it, and cancel it.
func ExampleClient_StartTool() {
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	ext, _ := tasks.Install(server, &tasks.Options{PollInterval: 5 * time.Millisecond})
	defer ext.Close(context.Background())
	ext.AddTool(&mcp.Tool{Name: "reindex", InputSchema: map[string]any{"type": "object"}}, tasks.Required,
		func(ctx context.Context, t *tasks.Task) (*mcp.CallToolResult, error) {
			t.Status("reindexing")
			<-ctx.Done() // works until cancelled
			return nil, context.Cause(ctx)
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(context.Background(), st, nil)
	defer ss.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(client); err != nil {
		panic(err)
	}
	cs, _ := client.Connect(context.Background(), taskclient.Transport(ct), nil)
	defer cs.Close()
	tc := taskclient.New(cs, nil)

	ctx := context.Background()
	started, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "reindex"})
	if err != nil {
		panic(err)
	}
	fmt.Println("task created:", started.Task != nil, started.Task.Status)
	if err := tc.Cancel(ctx, started.Task.TaskID); err != nil {
		panic(err)
	}
	_, err = tc.Wait(ctx, started.Task.TaskID)
	fmt.Println(errors.Is(err, taskclient.ErrCancelled))
	// Output:
	// task created: true working
	// true
}

package ask_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRoundsWithOldAndNewClients runs the example tool against a 2026-07-28
// client (input_required rounds) and a 2025-11-25 client (the go-sdk turns
// the question into elicitation/create and calls the handler again).
func TestRoundsWithOldAndNewClients(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "cache", Version: "1"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "clear_cache"}, confirmTool)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			asked := 0
			client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}, nil
				},
			})
			cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clear_cache"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != "Build cache deleted." || asked != 1 {
				t.Fatalf("got %q after %d questions", got, asked)
			}
		})
	}
}

// TestAsksAgainWhenAnswerMissing: a retry whose inputResponses lack the key
// (or carry only unknown keys) gets the question again, not an error.
func TestAsksAgainWhenAnswerMissing(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "cache", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "clear_cache"}, confirmTool)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		Capabilities:       &mcp.ClientCapabilities{},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, responses := range []mcp.InputResponseMap{
		nil,
		{"wrong_key": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}}},
		{"confirm": &mcp.ElicitResult{Action: "perhaps"}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clear_cache", InputResponses: responses})
		if err != nil {
			t.Fatalf("responses %v: %v", responses, err)
		}
		if !res.NeedsInput() || res.InputRequests["confirm"] == nil {
			t.Fatalf("responses %v: not asked again: %+v", responses, res)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clear_cache", InputResponses: mcp.InputResponseMap{
		"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sure": true}},
		"extra":   &mcp.ElicitResult{Action: "accept", Content: map[string]any{"x": 1}},
	}})
	if err != nil || res.NeedsInput() {
		t.Fatalf("with the answer and an extra one: %+v, %v", res, err)
	}
}

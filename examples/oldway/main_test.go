package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The old way holds the call open and asks with elicitation/create; the
// answer arrives while the call waits, and the result reflects it.
func TestAsksWhileTheCallWaits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range []struct {
		answer *mcp.ElicitResult
		want   string
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}}, "Rolling out auth-service 2.4.1 to production."},
		{&mcp.ElicitResult{Action: "decline"}, "Deployment not started (decline)."},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "confirm": false}}, "No deployment without confirmation."},
	} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := newServer().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		var asked string
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked = req.Params.Message
				return c.answer, nil
			},
		})
		cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth-service"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(asked, "version 2.4.1") {
			t.Errorf("question: %q", asked)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != c.want {
			t.Errorf("%s: %q, want %q", c.answer.Action, got, c.want)
		}
		cs.Close()
		ss.Close()
	}
}

func TestNeedsAnAddress(t *testing.T) {
	if err := run("", "", false, nil, nil); err == nil || !strings.Contains(err.Error(), "-http") {
		t.Errorf("run without -http: %v", err)
	}
}

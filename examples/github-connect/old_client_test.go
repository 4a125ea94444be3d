package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client on protocol 2025-11-25 reaches this stateless server without a session, so
// the server cannot ask it anything: it gets a normal result saying what to do.
func TestOlderClientGetsAResult(t *testing.T) {
	s := newStack(t)
	asked := 0
	c := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "1"}, &mcp.ClientOptions{
		Capabilities: urlCaps,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             s.appURL + "/mcp",
		HTTPClient:           &http.Client{Transport: &recordingTransport{token: "alice-mcp-token", log: s.wire}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_issue",
		Arguments: map[string]any{"repo": "octo-alice/hello", "title": "Old"}})
	if err != nil {
		t.Fatalf("create_issue: %v", err)
	}
	if asked != 0 || res.IsError {
		t.Fatalf("asked %d times, isError %v: %q", asked, res.IsError, resultText(res))
	}
	if got := resultText(res); !strings.Contains(got, "cannot ask this client to open a link") {
		t.Fatalf("result %q", got)
	}
}

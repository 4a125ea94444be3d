package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves the fixtures as stateless Streamable HTTP and connects a
// go-sdk client that drives the rounds by hand.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	codec, err := newCodec("")
	if err != nil {
		t.Fatal(err)
	}
	server := newServer(codec)
	addTaskFixtures(server)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		Capabilities:       &mcp.ClientCapabilities{},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

func isStateRefusal(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && je.Message == reqstate.ClientMessage
}

func TestMultiRoundStateIsSealedAndSingleUse(t *testing.T) {
	ctx := context.Background()
	cs := connect(t)
	call := func(responses mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multi_round", InputResponses: responses, RequestState: state})
	}
	r1, err := call(nil, "")
	if err != nil || !r1.NeedsInput() || r1.RequestState == "" {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	if strings.Contains(r1.RequestState, "round") {
		t.Fatalf("state is readable: %s", r1.RequestState)
	}
	r2, err := call(mcp.InputResponseMap{"step1": accept(map[string]any{"name": "Alice"})}, r1.RequestState)
	if err != nil || !r2.NeedsInput() || r2.InputRequests["step2"] == nil {
		t.Fatalf("round 2: %+v, %v", r2, err)
	}
	// The round-1 state again: single use.
	if _, err := call(mcp.InputResponseMap{"step1": accept(map[string]any{"name": "Mallory"})}, r1.RequestState); !isStateRefusal(err) {
		t.Fatalf("replayed round-1 state: %v", err)
	}
	r3, err := call(mcp.InputResponseMap{"step2": accept(map[string]any{"color": "blue"})}, r2.RequestState)
	if err != nil || r3.NeedsInput() {
		t.Fatalf("round 3: %+v, %v", r3, err)
	}
	if got := r3.Content[0].(*mcp.TextContent).Text; got != "Multi-round complete: Alice likes blue." {
		t.Fatalf("result %q", got)
	}
}

func TestStateOfOneToolRefusedByAnother(t *testing.T) {
	ctx := context.Background()
	cs := connect(t)
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_request_state"})
	if err != nil || r1.RequestState == "" {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	answers := mcp.InputResponseMap{"confirm": accept(map[string]any{"ok": true})}
	for name, p := range map[string]*mcp.CallToolParams{
		"other tool":      {Name: "test_input_required_result_tampered_state", InputResponses: answers, RequestState: r1.RequestState},
		"other arguments": {Name: "test_input_required_result_request_state", Arguments: map[string]any{"x": 1}, InputResponses: answers, RequestState: r1.RequestState},
		"tampered":        {Name: "test_input_required_result_request_state", InputResponses: answers, RequestState: r1.RequestState + "-TAMPERED"},
	} {
		if _, err := cs.CallTool(ctx, p); !isStateRefusal(err) {
			t.Errorf("%s: %v, want the requestState refusal", name, err)
		}
	}
	r2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_request_state", InputResponses: answers, RequestState: r1.RequestState})
	if err != nil || !strings.Contains(r2.Content[0].(*mcp.TextContent).Text, "state-ok") {
		t.Fatalf("honest round 2: %+v, %v", r2, err)
	}
}

func TestAsksOnlyWhatTheClientDeclared(t *testing.T) {
	ctx := context.Background()
	cs := connect(t) // declares elicitation only
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_capabilities"})
	if err != nil || len(res.InputRequests) != 1 || res.InputRequests["user_name"] == nil {
		t.Fatalf("capabilities tool asked %v (%v), want only user_name", res.InputRequests, err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_sampling"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("sampling tool without the sampling capability: %v, want -32021", err)
	}
}

func TestPromptAndResourceRounds(t *testing.T) {
	ctx := context.Background()
	cs := connect(t)
	p1, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
	if err != nil || !p1.NeedsInput() {
		t.Fatalf("prompt round 1: %+v, %v", p1, err)
	}
	p2, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt",
		InputResponses: mcp.InputResponseMap{"user_context": accept(map[string]any{"context": "release notes"})}, RequestState: p1.RequestState})
	if err != nil || len(p2.Messages) != 1 {
		t.Fatalf("prompt round 2: %+v, %v", p2, err)
	}
	r1, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://input-required-result"})
	if err != nil || !r1.NeedsInput() {
		t.Fatalf("resource round 1: %+v, %v", r1, err)
	}
	// The prompt's state does not open the resource.
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://input-required-result",
		InputResponses: mcp.InputResponseMap{"confirm": accept(map[string]any{"ok": true})}, RequestState: p1.RequestState})
	if !isStateRefusal(err) {
		t.Fatalf("prompt state on a resource: %v", err)
	}
	r2, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://input-required-result",
		InputResponses: mcp.InputResponseMap{"confirm": accept(map[string]any{"ok": true})}, RequestState: r1.RequestState})
	if err != nil || r2.Contents[0].Text != "Confirmed content." {
		t.Fatalf("resource round 2: %+v, %v", r2, err)
	}
}

package ask_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/ask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stepper asks one question per round, "step1" … "stepN", and carries the
// answers so far in its requestState; after n rounds it says what it heard.
func stepper(n int) func(mcp.InputResponseMap, string) (mcp.InputRequestMap, string, string) {
	return func(responses mcp.InputResponseMap, state string) (mcp.InputRequestMap, string, string) {
		heard := state
		for k, r := range responses {
			if e, ok := r.(*mcp.ElicitResult); ok {
				heard += fmt.Sprintf("%s=%v;", k, e.Content["v"])
			}
		}
		round := strings.Count(heard, ";") + 1
		if round > n {
			return nil, "", heard
		}
		key := fmt.Sprintf("step%d", round)
		return mcp.InputRequestMap{key: &mcp.ElicitParams{
			Message:         "Step " + key + "?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"v": map[string]any{"type": "string"}}},
		}}, heard, ""
	}
}

// everyRoundServer has a tool, a prompt and a resource that each ask three
// rounds, and a tool that never stops asking.
func everyRoundServer(apply bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rounds", Version: "1"}, nil)
	steps := stepper(3)
	mcp.AddTool(s, &mcp.Tool{Name: "three"}, func(_ context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		qs, state, done := steps(req.Params.InputResponses, req.Params.RequestState)
		if qs != nil {
			return &mcp.CallToolResult{InputRequests: qs, RequestState: state}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: done}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "endless"}, func(_ context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"again": &mcp.ElicitParams{
			Message: "Again?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}}}, nil, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "three"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		qs, state, done := steps(req.Params.InputResponses, req.Params.RequestState)
		if qs != nil {
			return &mcp.GetPromptResult{InputRequests: qs, RequestState: state}, nil
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: done}}}}, nil
	})
	s.AddResource(&mcp.Resource{Name: "three", URI: "test://three"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		qs, state, done := steps(req.Params.InputResponses, req.Params.RequestState)
		if qs != nil {
			return &mcp.ReadResourceResult{InputRequests: qs, RequestState: state}, nil
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://three", Text: done}}}, nil
	})
	if apply {
		ask.EveryRound(s)
	}
	return s
}

func connectAt(t *testing.T, s *mcp.Server, version string) (*mcp.ClientSession, *[]string) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var asked []string
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, r.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"v": fmt.Sprint(len(asked))}}, nil
		},
	}
	if version < "2026-07-28" {
		// An older client reads no inputRequests: the go-sdk's own client
		// would, which hides what other clients see.
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, &asked
}

// A 2025-11-25 client is asked every round of a tool and a prompt, as a
// 2026-07-28 client is; without EveryRound the go-sdk asks it the first
// round only and leaves it an empty result.
func TestEveryRoundAsksOlderClientsEveryRound(t *testing.T) {
	const want = "step1=1;step2=2;step3=3;"
	for _, version := range []string{"2025-11-25", "2025-06-18", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			cs, asked := connectAt(t, everyRoundServer(true), version)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "three"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want || len(*asked) != 3 {
				t.Fatalf("tool: %+v after %q", res, *asked)
			}
			*asked = nil
			p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "three"})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != want || len(*asked) != 3 {
				t.Errorf("prompt: %+v after %q", p, *asked)
			}
		})
	}
}

// Without EveryRound a 2025-11-25 client gets no answer to a second round:
// what the middleware is for.
func TestWithoutEveryRoundOlderClientsMissRounds(t *testing.T) {
	cs, asked := connectAt(t, everyRoundServer(false), "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "three"})
	if err == nil && len(res.Content) == 1 && len(*asked) == 3 {
		t.Fatal("the go-sdk now asks every round itself: EveryRound is no longer needed")
	}
	if len(*asked) != 1 {
		t.Errorf("asked %q", *asked)
	}
}

// A handler that never stops asking ends with an error naming the bound.
func TestEveryRoundBounded(t *testing.T) {
	cs, asked := connectAt(t, everyRoundServer(true), "2025-11-25")
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "endless"})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d rounds", ask.MaxRounds)) {
		t.Fatalf("err = %v", err)
	}
	if n := len(*asked); n > 2*ask.MaxRounds+2 {
		t.Errorf("asked %d times", n)
	}
}

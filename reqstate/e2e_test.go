package reqstate_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/reqstate"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type deployIn struct {
	Service string `json:"service"`
}

// deployTool is the deploy example's handler written on the codec.
func deployTool(codec *reqstate.Codec) mcp.ToolHandlerFor[deployIn, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in deployIn) (*mcp.CallToolResult, any, error) {
		answer, answered := req.Params.InputResponses["target"].(*mcp.ElicitResult)
		if !answered || answer == nil {
			state, err := codec.Issue(req, deployState{Service: in.Service, Version: "2.4.1"}, &reqstate.IssueOptions{SingleUse: true})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"target": &mcp.ElicitParams{
					Mode:    "form",
					Message: "Roll out " + in.Service + " 2.4.1?",
					RequestedSchema: map[string]any{
						"type":       "object",
						"properties": map[string]any{"confirm": map[string]any{"type": "boolean"}},
					},
				}},
				RequestState: state,
			}, nil, nil
		}
		st, err := reqstate.Open[deployState](ctx, codec, req)
		if err != nil {
			return nil, nil, reqstate.ClientError(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("Rolling out %s %s (%s).", st.Service, st.Version, answer.Action),
		}}}, nil, nil
	}
}

func connect(t *testing.T, auto bool) *mcp.ClientSession { return connectVersion(t, auto, "") }

func connectVersion(t *testing.T, auto bool, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	codec, err := reqstate.New(&reqstate.Options{Keys: []keys.Key{key("k1", 7)}, Replay: replay.NewMemory(nil)})
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy"}, deployTool(codec))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	opts := &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	}
	if !auto {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestOverTheWire(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"service": "auth-service"}

	t.Run("automatic rounds", func(t *testing.T) {
		cs := connect(t, true)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "Rolling out auth-service 2.4.1 (accept)." {
			t.Fatalf("result %q", got)
		}
	})

	// On 2025-11-25 the go-sdk asks with elicitation/create and calls the
	// handler again with the answer and the state, within the same request.
	t.Run("older client", func(t *testing.T) {
		cs := connectVersion(t, true, "2025-11-25")
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); got != "Rolling out auth-service 2.4.1 (accept)." {
			t.Fatalf("result %q", got)
		}
	})

	t.Run("attacks", func(t *testing.T) {
		cs := connect(t, false)
		r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
		if err != nil || !r1.NeedsInput() || r1.RequestState == "" {
			t.Fatalf("round 1 = %+v, %v", r1, err)
		}
		answers := mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
		retry := func(state string, a map[string]any) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: a, InputResponses: answers, RequestState: state})
			return err
		}
		for name, try := range map[string]func() error{
			"tampered":        func() error { return retry(r1.RequestState+"-TAMPERED", args) },
			"other arguments": func() error { return retry(r1.RequestState, map[string]any{"service": "billing"}) },
			"no state":        func() error { return retry("", args) },
		} {
			err := try()
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || je.Message != reqstate.ClientMessage {
				t.Errorf("%s: got %v, want invalid params %q", name, err, reqstate.ClientMessage)
			}
		}
		if err := retry(r1.RequestState, args); err != nil {
			t.Fatalf("honest retry: %v", err)
		}
		if err := retry(r1.RequestState, args); err == nil {
			t.Fatal("a single-use state worked twice")
		}
	})
}

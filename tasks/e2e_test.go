package tasks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Go ahead?"},
	},
	"required": []string{"confirm"},
}

var emptySchema = map[string]any{"type": "object"}

// newServer builds a server with a few task tools used across the tests.
func newServer(t testing.TB, opts *tasks.Options) (*mcp.Server, *tasks.Extension) {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks-test", Version: "1"}, nil)
	ext, err := tasks.Install(server, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, stop := context.WithTimeout(context.Background(), time.Minute) // against a hang
		defer stop()
		_ = ext.Close(ctx)
	})
	ext.AddTool(&mcp.Tool{Name: "confirm", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			tk.Progress(1, 2, "prepared")
			a, err := tk.Ask(ctx, "confirm", &mcp.ElicitParams{Message: "Go ahead?", RequestedSchema: confirmSchema})
			if errors.Is(err, tasks.ErrCannotAsk) {
				return text("could not ask"), nil
			}
			if err != nil {
				return nil, err
			}
			if a.Action != "accept" {
				return text("not done (" + a.Action + ")"), nil
			}
			if ok, _ := a.Content["confirm"].(bool); !ok {
				return text("not confirmed"), nil
			}
			return text("done"), nil
		})
	ext.AddTool(&mcp.Tool{Name: "two", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			as, err := tk.AskAll(ctx, map[string]*mcp.ElicitParams{
				"a": {Message: "A?", RequestedSchema: confirmSchema},
				"b": {Message: "B?", RequestedSchema: confirmSchema},
			})
			if err != nil {
				return nil, err
			}
			return text(as["a"].Action + "+" + as["b"].Action), nil
		})
	ext.AddTool(&mcp.Tool{Name: "sleep", InputSchema: emptySchema}, tasks.Required,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			case <-time.After(time.Minute):
				return text("woke"), nil
			}
		})
	ext.AddTool(&mcp.Tool{Name: "fail", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32050, Message: "backend unavailable"}
		})
	ext.AddTool(&mcp.Tool{Name: "panic", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			panic("boom")
		})
	ext.AddTool(&mcp.Tool{Name: "toolerror", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad input"}}}, nil
		})
	return server, ext
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) == 0 {
		t.Fatalf("result has no content: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content 0 is %T", res.Content[0])
	}
	return tc.Text
}

// connect connects a task-aware client over in-memory transports.
func connect(t *testing.T, server *mcp.Server, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connectWith(t, ct, caps)
}

func connectWith(t *testing.T, tr mcp.Transport, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	if caps == nil {
		caps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "tester", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   caps,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(client); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), taskclient.Transport(tr), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func fast() *taskclient.Options {
	return &taskclient.Options{Sleep: func(ctx context.Context, d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
			return nil
		}
	}}
}

func TestAskAndContinue(t *testing.T) {
	server, _ := newServer(t, nil)
	cs := connect(t, server, nil)
	for _, tc := range []struct {
		answer *mcp.ElicitResult
		want   string
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, "done"},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, "not confirmed"},
		{&mcp.ElicitResult{Action: "decline"}, "not done (decline)"},
		{&mcp.ElicitResult{Action: "cancel"}, "not done (cancel)"},
	} {
		opts := fast()
		var asked []string
		var updates []taskclient.Update
		var mu sync.Mutex
		opts.Answer = func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked = append(asked, key+": "+p.Message)
			return tc.answer, nil
		}
		opts.OnUpdate = func(u taskclient.Update) { mu.Lock(); updates = append(updates, u); mu.Unlock() }
		res, err := taskclient.New(cs, opts).CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm"})
		if err != nil {
			t.Fatal(err)
		}
		if got := resultText(t, res); got != tc.want {
			t.Errorf("answer %s: got %q, want %q", tc.answer.Action, got, tc.want)
		}
		if len(asked) != 1 || asked[0] != "confirm: Go ahead?" {
			t.Errorf("asked %q, want the one question once", asked)
		}
		if len(updates) == 0 || updates[len(updates)-1].Status != tasks.StatusCompleted {
			t.Errorf("updates %+v do not end completed", updates)
		}
	}
}

package session

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call's TaskMode decides whether it asks for a task: by default the
// session's rule, TaskAsk asks, TaskNone makes a plain call; and a call
// that asks a server that runs no tasks is refused before it is sent.
func TestCallToolWithTaskMode(t *testing.T) {
	for _, offered := range []bool{true, false} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
		// ran says how the tool ran: as a task, or in the call.
		ran := func(how string) *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: how}}}
		}
		if offered {
			ext, err := tasks.Install(srv, &tasks.Options{PollInterval: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer ext.Close(context.Background())
			ext.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, tasks.Optional,
				func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
					return ran("done"), nil
				})
		} else {
			srv.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return ran("done"), nil
			})
		}
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		defer hs.Close()
		var sent []string
		s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: 10 * time.Second, Tasks: true,
			Observe: func(out bool, msg jsonrpc.Message) {
				if req, ok := msg.(*jsonrpc.Request); ok && out && req.Method == "tools/call" {
					sent = append(sent, string(req.Params))
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if ts := s.TaskSupport(context.Background(), "job"); ts.Can != offered || ts.Required || (ts.WhyNot == "") == !offered {
			t.Errorf("offered %v: TaskSupport %+v", offered, ts)
		}
		for _, tc := range []struct {
			mode     TaskMode
			wantTask bool
		}{{TaskDefault, offered}, {TaskAsk, offered}, {TaskNone, false}} {
			sent = nil
			res, call, err := s.CallToolWith(context.Background(), "job", nil, nil, CallOptions{Task: tc.mode})
			if tc.mode == TaskAsk && !offered {
				var se *Error
				if !errors.As(err, &se) || se.Kind != KindAnswer || !strings.Contains(err.Error(), "does not offer the tasks extension") {
					t.Errorf("TaskAsk to a server without tasks: %v", err)
				}
				if len(sent) != 0 {
					t.Errorf("TaskAsk to a server without tasks sent %d calls", len(sent))
				}
				continue
			}
			if err != nil {
				t.Fatalf("offered %v, mode %d: %v", offered, tc.mode, err)
			}
			if got := call.Task != nil; got != tc.wantTask {
				t.Errorf("offered %v, mode %d: ran as a task %v; want %v", offered, tc.mode, got, tc.wantTask)
			}
			if res.Content[0].(*mcp.TextContent).Text != "done" {
				t.Errorf("offered %v, mode %d: result %v", offered, tc.mode, res.Content)
			}
			if declared := len(sent) == 1 && strings.Contains(sent[0], tasks.ExtensionID); declared != tc.wantTask {
				t.Errorf("offered %v, mode %d: the call declared the extension: %v (%v)", offered, tc.mode, declared, sent)
			}
		}
	}
}

// On protocol 2025-11-25 a tool that runs only as a task is told as such;
// TaskAsk runs it as one, TaskNone sends a plain call, which the server
// refuses.
func TestCallToolWithTaskMode2025(t *testing.T) {
	bin := testbin.Need(t, "./internal/testsupport/fixtures/tasks2025")
	s, err := Open(context.Background(), Options{Target: &target.Target{Command: filepath.Join(bin, "tasks2025") + " -step 1ms"}, Timeout: 30 * time.Second, Tasks: true, Protocol: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ts := s.TaskSupport(context.Background(), "survey"); !ts.Can || !ts.Required {
		t.Errorf("TaskSupport(survey) = %+v; want it can and must run as a task", ts)
	}
	res, call, err := s.CallToolWith(context.Background(), "survey", map[string]any{"topic": "lunch"}, nil, CallOptions{Task: TaskAsk})
	if err != nil {
		t.Fatal(err)
	}
	if call.Task == nil || call.Task.Status != tasks.StatusCompleted || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Survey on lunch") {
		t.Errorf("TaskAsk: task %+v, result %v", call.Task, res.Content)
	}
	_, call, err = s.CallToolWith(context.Background(), "survey", map[string]any{"topic": "lunch"}, nil, CallOptions{Task: TaskNone})
	if err == nil || !strings.Contains(err.Error(), "method not found") || call.Task != nil {
		t.Errorf("TaskNone: %v (task %+v); want the server's refusal", err, call.Task)
	}
}

// patchedResult is a result a test server's middleware rewrote, sent as it
// is.
type patchedResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (p *patchedResult) MarshalJSON() ([]byte, error) { return p.raw, nil }

// patchResult returns res with f applied to its JSON object.
func patchResult(t *testing.T, res mcp.Result, f func(m map[string]any)) mcp.Result {
	b, err := json.Marshal(res)
	if err != nil {
		t.Error(err)
		return res
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Error(err)
		return res
	}
	f(m)
	b, _ = json.Marshal(m)
	return &patchedResult{raw: b}
}

// On protocol 2025-11-25 a tool the server may run either way ("optional")
// is called plainly by default, and with params.task when the call asks
// for a task.
func TestCallToolWithTaskModeOptional2025(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A server that runs it plainly whatever it is asked: the call
		// still gets its result.
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			switch method {
			case "initialize":
				return patchResult(t, res, func(m map[string]any) {
					caps, _ := m["capabilities"].(map[string]any)
					caps["tasks"] = map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
				}), nil
			case "tools/list":
				return patchResult(t, res, func(m map[string]any) {
					for _, tool := range m["tools"].([]any) {
						tool.(map[string]any)["execution"] = map[string]any{"taskSupport": "optional"}
					}
				}), nil
			}
			return res, err
		}
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	var sent []string
	s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: 10 * time.Second, Tasks: true, Protocol: "2025-11-25",
		Observe: func(out bool, msg jsonrpc.Message) {
			if req, ok := msg.(*jsonrpc.Request); ok && out && req.Method == "tools/call" {
				sent = append(sent, string(req.Params))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ts := s.TaskSupport(context.Background(), "job"); !ts.Can || ts.Required {
		t.Errorf("TaskSupport(job) = %+v; want it can, and need not, run as a task", ts)
	}
	for _, tc := range []struct {
		mode TaskMode
		task bool
	}{{TaskDefault, false}, {TaskAsk, true}, {TaskNone, false}} {
		sent = nil
		res, _, err := s.CallToolWith(context.Background(), "job", nil, nil, CallOptions{Task: tc.mode})
		if err != nil {
			t.Fatalf("mode %d: %v", tc.mode, err)
		}
		if res.Content[0].(*mcp.TextContent).Text != "done" {
			t.Errorf("mode %d: %v", tc.mode, res.Content)
		}
		if asked := len(sent) == 1 && strings.Contains(sent[0], `"task":`); asked != tc.task {
			t.Errorf("mode %d: the call asked for a task: %v; want %v (%v)", tc.mode, asked, tc.task, sent)
		}
	}
}

package session

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool call declares the tasks extension, and may come back as a task,
// only when the server offers the extension; to any other server it is a
// plain call.
func TestTasksOnlyWhereOffered(t *testing.T) {
	for _, offered := range []bool{false, true} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
		if offered {
			ext, err := tasks.Install(srv, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ext.Close(context.Background())
		}
		srv.AddTool(&mcp.Tool{Name: "declared", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps, _ := json.Marshal(req.Params.GetMeta()[mcp.MetaKeyClientCapabilities])
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(caps)}}}, nil
		})
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		defer hs.Close()
		s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: 10 * time.Second, Tasks: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, _, err := s.CallTool(context.Background(), "declared", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		caps := res.Content[0].(*mcp.TextContent).Text
		if got := strings.Contains(caps, tasks.ExtensionID); got != offered {
			t.Errorf("server offers the extension: %v; the call declared it: %v (%s)", offered, got, caps)
		}
	}
}

// rawResult is a result sent as it is.
type rawResult struct {
	mcp.ResultBase
	b json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.b, nil }

// A task that says input_required and shows no question ends a wait at
// once, as the server's breach of the protocol, with what it said: not a
// poll after poll until the time limit, nor an answer "that could not be
// read".
func TestWaitForATaskThatAsksNothing(t *testing.T) {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(tasks.ExtensionID, map[string]any{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	if err := mcp.AddReceivingCustomMethod(srv, tasks.MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*rawResult, error) {
		return &rawResult{b: json.RawMessage(`{"resultType":"complete","taskId":"` + p.TaskID + `","status":"input_required","statusMessage":"asking","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer hs.Close()
	s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: time.Minute, Tasks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, _, err = s.WaitTask(context.Background(), "t1", nil)
	e, ok := err.(*Error)
	if !ok || e.Kind != KindProtocol {
		t.Fatalf("wait: %v (%T), want a protocol error", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, `task t1 is input_required (asking) but the server showed no question to answer`) || strings.Contains(msg, "could not be read") {
		t.Errorf("wait: %s", msg)
	}
}

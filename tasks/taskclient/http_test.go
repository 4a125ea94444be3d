package taskclient_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// seen records the Mcp-Method and Mcp-Name headers of each request.
type seen struct {
	mu    sync.Mutex
	names map[string][]string // method -> Mcp-Name values
}

func (s *seen) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		m := r.Header.Get("Mcp-Method")
		s.names[m] = append(s.names[m], r.Header.Get("Mcp-Name"))
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// Over Streamable HTTP (stateless, 2026-07-28) a tool run as a task is
// recognised and waited for, tasks/* requests carry the task's id in
// Mcp-Name, and a tool that answers directly is returned as it came.
func TestTaskOverHTTP(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	ext, err := tasks.Install(server, &tasks.Options{PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close(context.Background())
	ext.AddTool(&mcp.Tool{Name: "reindex", InputSchema: map[string]any{"type": "object"}}, tasks.Required,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "reindexed"}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "empty", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	rec := &seen{names: map[string][]string{}}
	srv := httptest.NewServer(rec.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})))
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	if err := taskclient.Register(client); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := client.Connect(ctx, taskclient.Transport(&mcp.StreamableClientTransport{Endpoint: srv.URL}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tc := taskclient.New(cs, &taskclient.Options{DefaultPollInterval: 5 * time.Millisecond})

	started, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "reindex"})
	if err != nil || started.Task == nil {
		t.Fatalf("start: %+v, %v", started, err)
	}
	res, err := tc.Wait(ctx, started.Task.TaskID)
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "reindexed" {
		t.Fatalf("wait: %+v, %v", res, err)
	}
	direct, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "empty"})
	if err != nil || direct.Task != nil || direct.Result == nil {
		t.Fatalf("a direct empty result: %+v, %v", direct, err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	gets := rec.names[tasks.MethodGet]
	if len(gets) == 0 {
		t.Fatal("no tasks/get seen")
	}
	for _, n := range gets {
		if n != started.Task.TaskID {
			t.Errorf("tasks/get with Mcp-Name %q, want %q", n, started.Task.TaskID)
		}
	}
	if calls := strings.Join(rec.names["tools/call"], ","); calls != "reindex,empty" {
		t.Errorf("tools/call Mcp-Name: %q", calls)
	}
}

// The watcher hands the body on unchanged and keeps it only for the call
// that asked for it.
func TestTransportLeavesOtherRequestsAlone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Name") != "" {
			t.Errorf("a request this package did not make got Mcp-Name %q", r.Header.Get("Mcp-Name"))
		}
		io.Copy(w, r.Body)
	}))
	defer srv.Close()
	st := taskclient.Transport(&mcp.StreamableClientTransport{Endpoint: srv.URL}).(*mcp.StreamableClientTransport)
	body := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x"}}`
	resp, err := st.HTTPClient.Post(srv.URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got, _ := io.ReadAll(resp.Body); string(got) != body {
		t.Errorf("body %q", got)
	}
}

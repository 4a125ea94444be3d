package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// standaloneAsker is a 2025-11-25 server whose tool asks on the standalone
// stream (a request not tied to the call), as servers built on the
// TypeScript SDK v1 and FastMCP do: the client must have opened that
// stream after initialize to hear the question.
func standaloneAsker() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, &mcp.ServerOptions{})
	mcp.AddTool(s, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		detached, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		res, err := req.Session.Elicit(detached, &mcp.ElicitParams{Message: "Sure?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answer: " + res.Action}}}, nil, nil
	})
	return s
}

// wireLog records what reaches the server: one line per HTTP request, its
// method, protocol version header and JSON-RPC content.
type wireLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *wireLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		what := ""
		var m struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &m) == nil {
			what = m.Method
			if what == "" {
				what = "response"
			}
		}
		l.mu.Lock()
		l.lines = append(l.lines, fmt.Sprintf("%s version=%q session=%t %s", r.Method, r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Mcp-Session-Id") != "", what))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *wireLog) sorted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.lines)
	slices.Sort(out)
	return out
}

// session runs one client session against a fresh server, observed or not,
// and returns what the server saw and what the observer heard.
func session(t *testing.T, observe bool) (seen []string, heard []string) {
	t.Helper()
	log := &wireLog{}
	srv := httptest.NewServer(log.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return standaloneAsker() }, nil)))
	defer srv.Close()
	var mu sync.Mutex
	obs := func(sent bool, msg jsonrpc.Message) {
		mu.Lock()
		defer mu.Unlock()
		dir := "in"
		if sent {
			dir = "out"
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			heard = append(heard, dir+" "+m.Method)
		case *jsonrpc.Response:
			heard = append(heard, dir+" response")
		}
	}
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	if observe {
		tr = wire.Watch(tr, nil, obs)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	// The default version: server/discover is refused, initialize follows.
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
	if err != nil {
		t.Fatalf("observed=%t: %v", observe, err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "answer: decline" {
		t.Errorf("observed=%t: %q", observe, got)
	}
	cs.Close()
	mu.Lock()
	defer mu.Unlock()
	return log.sorted(), heard
}

// Observing a session never changes what is sent: the server sees the same
// requests, headers included, with and without an observer. (Wrapping the
// go-sdk's HTTP connection would drop the standalone stream and the
// protocol header after initialize, and the question above would never
// arrive.)
func TestObservingChangesNothingOnTheWire(t *testing.T) {
	plain, _ := session(t, false)
	observed, heard := session(t, true)
	if !slices.Equal(plain, observed) {
		t.Errorf("the wire differs when observed:\nplain:\n  %s\nobserved:\n  %s", strings.Join(plain, "\n  "), strings.Join(observed, "\n  "))
	}
	if !slices.Contains(plain, `GET version="2025-11-25" session=true `) {
		t.Errorf("no standalone stream was opened:\n  %s", strings.Join(plain, "\n  "))
	}
	for _, want := range []string{"out initialize", "in response", "out notifications/initialized", "out tools/call", "in elicitation/create", "out response"} {
		if !slices.Contains(heard, want) {
			t.Errorf("the observer did not hear %q; heard %v", want, heard)
		}
	}
}

// A stdio-like transport is observed by its connection.
func TestObserveInMemory(t *testing.T) {
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var heard []string
	var mu sync.Mutex
	tr := wire.Watch(ct, nil, func(sent bool, msg jsonrpc.Message) {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := msg.(*jsonrpc.Request); ok {
			heard = append(heard, fmt.Sprintf("%t %s", sent, r.Method))
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(heard, "true initialize") || !slices.Contains(heard, "true ping") {
		t.Errorf("heard %v", heard)
	}
}

package taskclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// raw is a result sent as it is.
type raw struct {
	mcp.ResultBase
	b json.RawMessage
}

func (r *raw) MarshalJSON() ([]byte, error) { return r.b, nil }

// patchResult returns res with f applied to its JSON object.
func patchResult(t *testing.T, res mcp.Result, f func(map[string]any)) mcp.Result {
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, _ = json.Marshal(m)
	return &raw{b: b}
}

// sentLog keeps what the client writes.
type sentLog struct {
	mcp.Transport
	mu   sync.Mutex
	sent []string
}

func (s *sentLog) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	return &sentConn{Connection: c, log: s}, err
}

type sentConn struct {
	mcp.Connection
	log *sentLog
}

func (c *sentConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if b, err := jsonrpc.EncodeMessage(msg); err == nil {
		c.log.mu.Lock()
		c.log.sent = append(c.log.sent, string(b))
		c.log.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// server2025 is a server of protocol 2025-11-25 that runs job only as a
// task, t1, done on the second poll.
func server2025(t *testing.T) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "job runs only as a task"}
	})
	var mu sync.Mutex
	polls := 0
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "initialize":
				res, err := next(ctx, method, req)
				return patchResult(t, res, func(m map[string]any) {
					m["capabilities"].(map[string]any)["tasks"] = map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
				}), err
			case "tools/list":
				res, err := next(ctx, method, req)
				return patchResult(t, res, func(m map[string]any) {
					m["tools"].([]any)[0].(map[string]any)["execution"] = map[string]any{"taskSupport": "required"}
				}), err
			case "tools/call":
				return &raw{b: json.RawMessage(`{"task":{"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":60000,"pollInterval":5}}`)}, nil
			}
			return next(ctx, method, req)
		}
	})
	if err := mcp.AddReceivingCustomMethod(server, "tasks/get", func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*raw, error) {
		mu.Lock()
		polls++
		n := polls
		mu.Unlock()
		status := "working"
		if n > 1 {
			status = "completed"
		}
		return &raw{b: json.RawMessage(`{"taskId":"t1","status":"` + status + `","createdAt":"x","lastUpdatedAt":"x","ttl":60000,"pollInterval":5}`)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddReceivingCustomMethod(server, "tasks/result", func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + p.TaskID}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	return server
}

// A server of protocol 2025-11-25 that runs job only as a task: the client
// reads the offer and the tool's taskSupport the go-sdk drops, asks for a
// task with params.task, polls tasks/get and takes the result with
// Over Streamable HTTP a session of protocol 2025-11-25, which defines no
// Mcp-Name header, sends none: not on tasks/get, not on tasks/result, not
// on tasks/cancel. (The tasks extension of 2026-07-28 asks for it; see
// TestTaskOverHTTP.)
func TestNoRoutingHeaderOf2025(t *testing.T) {
	ctx := context.Background()
	server := server2025(t)
	var mu sync.Mutex
	named := map[string]string{} // method -> Mcp-Name
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(b, &msg) == nil && strings.HasPrefix(msg.Method, "tasks/") {
				mu.Lock()
				named[msg.Method] = r.Header.Get("Mcp-Name")
				mu.Unlock()
			}
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	if err := Register(client); err != nil {
		t.Fatal(err)
	}
	cs, _, err := Connect(ctx, client, Transport(&mcp.StreamableClientTransport{Endpoint: srv.URL}), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tc := New(cs, &Options{AsTask: func(string) bool { return true }, Sleep: func(context.Context, time.Duration) error { return nil }})
	if _, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: "job"}); err != nil {
		t.Fatal(err)
	}
	_ = tc.Cancel(ctx, "t1") // the server has no tasks/cancel: only the header counts
	mu.Lock()
	defer mu.Unlock()
	for _, m := range []string{tasks.MethodGet, MethodResult, tasks.MethodCancel} {
		n, ok := named[m]
		if !ok {
			t.Errorf("no %s seen", m)
		}
		if n != "" {
			t.Errorf("%s carried Mcp-Name %q on protocol 2025-11-25", m, n)
		}
	}
}

// tasks/result.
func TestTasksOf2025(t *testing.T) {
	ctx := context.Background()
	server := server2025(t)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	if err := Register(client); err != nil {
		t.Fatal(err)
	}
	log := &sentLog{Transport: ct}
	cs, offer, err := Connect(ctx, client, Transport(log), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if !Legacy(cs) || !offer.ToolCalls || offer.List || offer.Cancel {
		t.Fatalf("legacy %v, offer %+v", Legacy(cs), offer)
	}
	_, support, err := ListTools(ctx, cs, nil)
	if err != nil || support["job"] != SupportRequired {
		t.Fatalf("support %v, %v", support, err)
	}
	var updates []tasks.Status
	tc := New(cs, &Options{
		AsTask:   func(name string) bool { return support[name] == SupportRequired },
		OnUpdate: func(u Update) { updates = append(updates, u.Status) },
		Sleep:    func(context.Context, time.Duration) error { return nil },
	})
	res, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "done t1" {
		t.Errorf("result %q", got)
	}
	if len(updates) != 2 || updates[0] != tasks.StatusWorking || updates[1] != tasks.StatusCompleted {
		t.Errorf("updates %v", updates)
	}
	sent := strings.Join(log.sent, "\n")
	for _, want := range []string{`"method":"tools/call","params":{"name":"job","arguments":{},"task":{}}`, `"method":"tasks/get","params":{"taskId":"t1"}`, `"method":"tasks/result","params":{"taskId":"t1"}`} {
		if !strings.Contains(sent, want) {
			t.Errorf("not sent: %s\nin\n%s", want, sent)
		}
	}
	g, err := tc.Get(ctx, "t1")
	if err != nil || g.PollIntervalMs != 5 || g.TTLMs == nil || *g.TTLMs != 60000 {
		t.Errorf("tasks/get in the extension's words: %+v, %v", g, err)
	}

	// Without AsTask the call is a plain one: no params.task.
	log.mu.Lock()
	log.sent = nil
	log.mu.Unlock()
	_, _ = New(cs, nil).CallTool(ctx, &mcp.CallToolParams{Name: "job"})
	if sent := strings.Join(log.sent, "\n"); !strings.Contains(sent, `"method":"tools/call","params":{"name":"job","arguments":{}}`) {
		t.Errorf("a plain call sent\n%s", sent)
	}
}

func TestReadOffer(t *testing.T) {
	for in, want := range map[string]Offer{
		`{"capabilities":{}}`: {},
		`{"capabilities":{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}}`: {ToolCalls: true, List: true, Cancel: true},
		`{"capabilities":{"tasks":{"requests":{"tools":{"call":null}}}}}`:                     {},
		`not json`: {},
	} {
		if got := readOffer(json.RawMessage(in)); got != want {
			t.Errorf("%s: %+v, want %+v", in, got, want)
		}
	}
}

// A task of protocol 2025-11-25 cancelled while tasks/result waited: the
// server answers tasks/result with an error, and tasks/get says cancelled.
// The client reports the task cancelled, not failed.
func TestTaskOf2025CancelledIsNotFailed(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "job runs only as a task"}
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "initialize":
				res, err := next(ctx, method, req)
				return patchResult(t, res, func(m map[string]any) {
					m["capabilities"].(map[string]any)["tasks"] = map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
				}), err
			case "tools/call":
				return &raw{b: json.RawMessage(`{"task":{"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":60000}}`)}, nil
			}
			return next(ctx, method, req)
		}
	})
	var mu sync.Mutex
	cancelled := false
	if err := mcp.AddReceivingCustomMethod(server, "tasks/get", func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*raw, error) {
		mu.Lock()
		defer mu.Unlock()
		status := "input_required"
		if cancelled {
			status = "cancelled"
		}
		return &raw{b: json.RawMessage(`{"taskId":"t1","status":"` + status + `","statusMessage":"by the user","createdAt":"x","lastUpdatedAt":"x","ttl":60000}`)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddReceivingCustomMethod(server, "tasks/result", func(ctx context.Context, ss *mcp.ServerSession, p *tasks.GetTaskParams) (*mcp.CallToolResult, error) {
		mu.Lock()
		cancelled = true // the person cancelled while the task waited on its question
		mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task was cancelled"}
	}); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	if err := Register(client); err != nil {
		t.Fatal(err)
	}
	cs, _, err := Connect(ctx, client, Transport(ct), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var updates []tasks.Status
	tc := New(cs, &Options{
		AsTask:   func(string) bool { return true },
		OnUpdate: func(u Update) { updates = append(updates, u.Status) },
		Sleep:    func(context.Context, time.Duration) error { return nil },
	})
	_, err = tc.CallTool(ctx, &mcp.CallToolParams{Name: "job"})
	if !errors.Is(err, ErrCancelled) || rpcError(err) != nil {
		t.Errorf("error %v; want the task cancelled (and not the call's own error)", err)
	}
	if n := len(updates); n == 0 || updates[n-1] != tasks.StatusCancelled {
		t.Errorf("updates %v; want the last cancelled", updates)
	}
}

// A task's times that are no whole number of milliseconds, in the answer
// to tasks/get of either era, are refused naming the member and the value;
// whole ones are read as the extension's.
func TestTaskTimesAreWholeMilliseconds(t *testing.T) {
	for body, want := range map[string]string{
		`{"taskId":"a","status":"working","pollInterval":1500.5}`: `the task's pollInterval is 1500.5: not a whole number of milliseconds`,
		`{"taskId":"a","status":"working","ttl":"60000"}`:         `the task's ttl is "60000": not a whole number of milliseconds`,
		`{"taskId":"a","status":"working","pollIntervalMs":1e3}`:  `the task's pollIntervalMs is 1e3: not a whole number of milliseconds`,
		`{"taskId":"a","status":"working","ttlMs":[1]}`:           `the task's ttlMs is [1]: not a whole number of milliseconds`,
	} {
		var g getResult
		if err := json.Unmarshal([]byte(body), &g); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", body, err, want)
		}
	}
	var g getResult
	if err := json.Unmarshal([]byte(`{"taskId":"a","status":"working","ttl":60000,"pollInterval":1500}`), &g); err != nil {
		t.Fatal(err)
	}
	if r := g.normal(); r.TTLMs == nil || *r.TTLMs != 60000 || r.PollIntervalMs != 1500 {
		t.Errorf("read %+v", r)
	}
	var h getResult
	if err := json.Unmarshal([]byte(`{"taskId":"a","status":"working","ttlMs":null,"pollIntervalMs":7}`), &h); err != nil {
		t.Fatal(err)
	}
	if r := h.normal(); r.TTLMs != nil || r.PollIntervalMs != 7 {
		t.Errorf("read %+v", r)
	}
}

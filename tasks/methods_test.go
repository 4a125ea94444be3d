package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func rpcCode(t *testing.T, err error) int64 {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return je.Code
}

// start calls a tool and returns the task handle it must have created.
func start(t *testing.T, tc *taskclient.Client, tool string) *tasks.CreateTaskResult {
	t.Helper()
	s, err := tc.StartTool(context.Background(), &mcp.CallToolParams{Name: tool})
	if err != nil {
		t.Fatal(err)
	}
	if s.Task == nil {
		t.Fatalf("tool %q answered directly: %+v", tool, s.Result)
	}
	return s.Task
}

// waitFor polls until the task is in status (or terminal).
func waitFor(t *testing.T, tc *taskclient.Client, id string, status tasks.Status) *tasks.GetTaskResult {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // against a hang
	for time.Now().Before(deadline) {
		g, err := tc.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status == status || g.Status.Terminal() {
			return g
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s never reached %s", id, status)
	return nil
}

func TestCreateTaskResultShape(t *testing.T) {
	server, _ := newServer(t, &tasks.Options{TTL: time.Minute, PollInterval: 250 * time.Millisecond})
	tc := taskclient.New(connect(t, server, nil), fast())
	ct := start(t, tc, "sleep")
	if ct.ResultType != "task" || ct.Status != tasks.StatusWorking || len(ct.TaskID) < 20 {
		t.Errorf("CreateTaskResult = %+v", ct)
	}
	if ct.TTLMs == nil || *ct.TTLMs != 60000 || ct.PollIntervalMs != 250 {
		t.Errorf("ttl/poll = %v/%d, want 60000/250", ct.TTLMs, ct.PollIntervalMs)
	}
	if _, err := time.Parse(time.RFC3339Nano, ct.CreatedAt); err != nil {
		t.Errorf("createdAt: %v", err)
	}
	// Durable before the answer: an immediate tasks/get resolves.
	g, err := tc.Get(context.Background(), ct.TaskID)
	if err != nil || g.ResultType != "complete" || g.Status != tasks.StatusWorking {
		t.Fatalf("immediate get = %+v, %v", g, err)
	}
	if g.Result != nil || g.Error != nil || g.InputRequests != nil {
		t.Errorf("a working task carries result/error/inputRequests: %+v", g)
	}
}

func TestFailedCompletedCancelled(t *testing.T) {
	server, _ := newServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()

	_, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: "fail"})
	if code := rpcCode(t, err); code != -32050 {
		t.Errorf("failed task: code %d, want the code the tool returned", code)
	}
	ct := start(t, tc, "fail")
	g := waitFor(t, tc, ct.TaskID, tasks.StatusFailed)
	if g.Status != tasks.StatusFailed || g.Error == nil || g.Error.Message != "backend unavailable" || g.Result != nil {
		t.Errorf("failed task = %+v", g)
	}

	_, err = tc.CallTool(ctx, &mcp.CallToolParams{Name: "panic"})
	if code := rpcCode(t, err); code != -32603 {
		t.Errorf("panicking task: code %d, want -32603", code)
	}

	res, err := tc.CallTool(ctx, &mcp.CallToolParams{Name: "toolerror"})
	if err != nil || !res.IsError || resultText(t, res) != "bad input" {
		t.Errorf("tool error = %+v, %v; want a completed result with isError", res, err)
	}

	ct = start(t, tc, "sleep")
	if err := tc.Cancel(ctx, ct.TaskID); err != nil {
		t.Fatal(err)
	}
	g = waitFor(t, tc, ct.TaskID, tasks.StatusCancelled)
	if g.Status != tasks.StatusCancelled {
		t.Errorf("after cancel: %s", g.Status)
	}
	// Cancelling a finished task is acknowledged and changes nothing.
	if err := tc.Cancel(ctx, ct.TaskID); err != nil {
		t.Errorf("cancel of a terminal task: %v", err)
	}
}

func TestCancelWhileWaitingForInput(t *testing.T) {
	server, _ := newServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ct := start(t, tc, "confirm")
	g := waitFor(t, tc, ct.TaskID, tasks.StatusInputRequired)
	if _, ok := g.InputRequests["confirm"]; !ok {
		t.Fatalf("input_required without the question: %+v", g)
	}
	if err := tc.Cancel(context.Background(), ct.TaskID); err != nil {
		t.Fatal(err)
	}
	g = waitFor(t, tc, ct.TaskID, tasks.StatusCancelled)
	if g.Status != tasks.StatusCancelled || g.InputRequests != nil {
		t.Errorf("after cancel: %+v", g)
	}
	_, err := tc.Wait(context.Background(), ct.TaskID)
	if !errors.Is(err, taskclient.ErrCancelled) {
		t.Errorf("Wait on a cancelled task: %v", err)
	}
}

func TestPartialFulfilment(t *testing.T) {
	server, _ := newServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()
	ct := start(t, tc, "two")
	g := waitFor(t, tc, ct.TaskID, tasks.StatusInputRequired)
	if len(g.InputRequests) != 2 {
		t.Fatalf("want two questions, got %v", g.InputRequests)
	}
	yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
	if err := tc.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"a": yes}); err != nil {
		t.Fatal(err)
	}
	g, err := tc.Get(ctx, ct.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != tasks.StatusInputRequired || len(g.InputRequests) != 1 || g.InputRequests["b"] == nil {
		t.Fatalf("after answering a: %s %v, want input_required with only b", g.Status, g.InputRequests)
	}
	// An answer to a, again, and to a key never asked, are ignored.
	if err := tc.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"a": {Action: "decline"}, "zzz": yes}); err != nil {
		t.Fatal(err)
	}
	if err := tc.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"b": {Action: "decline"}}); err != nil {
		t.Fatal(err)
	}
	res, err := tc.Wait(ctx, ct.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "accept+decline" {
		t.Errorf("result %q, want accept+decline", got)
	}
}

func TestUpdateRejectsAnswersOutsideTheSchema(t *testing.T) {
	server, _ := newServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()
	ct := start(t, tc, "confirm")
	waitFor(t, tc, ct.TaskID, tasks.StatusInputRequired)
	for _, bad := range []*mcp.ElicitResult{
		{Action: "accept", Content: map[string]any{"confirm": "yes please"}},
		{Action: "accept", Content: map[string]any{}},
		{Action: "maybe"},
	} {
		err := tc.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"confirm": bad})
		if code := rpcCode(t, err); code != -32602 {
			t.Errorf("answer %+v: code %d, want -32602", bad, code)
		}
	}
	g, _ := tc.Get(ctx, ct.TaskID)
	if g.Status != tasks.StatusInputRequired || g.InputRequests["confirm"] == nil {
		t.Errorf("a rejected answer changed the task: %+v", g)
	}
	_ = tc.Cancel(ctx, ct.TaskID)
}

func TestUnknownTaskAndMissingCapability(t *testing.T) {
	server, _ := newServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()
	_, err := tc.Get(ctx, "no-such-task")
	if code := rpcCode(t, err); code != -32602 {
		t.Errorf("unknown task: code %d", code)
	}
	if code := rpcCode(t, tc.Cancel(ctx, "no-such-task")); code != -32602 {
		t.Errorf("cancel unknown: code %d", code)
	}
	if code := rpcCode(t, tc.Update(ctx, "no-such-task", nil)); code != -32602 {
		t.Errorf("update unknown: code %d", code)
	}

	// A client that does not declare the extension.
	plain := plainClient(t, server)
	for _, call := range []func() error{
		func() error {
			_, err := mcp.CallCustomMethod[*tasks.GetTaskParams, *tasks.GetTaskResult](ctx, plain, tasks.MethodGet, &tasks.GetTaskParams{TaskID: "x"})
			return err
		},
		func() error {
			_, err := mcp.CallCustomMethod[*tasks.CancelTaskParams, *tasks.CancelTaskResult](ctx, plain, tasks.MethodCancel, &tasks.CancelTaskParams{TaskID: "x"})
			return err
		},
		func() error {
			_, err := mcp.CallCustomMethod[*tasks.UpdateTaskParams, *tasks.UpdateTaskResult](ctx, plain, tasks.MethodUpdate, &tasks.UpdateTaskParams{TaskID: "x"})
			return err
		},
	} {
		if code := rpcCode(t, call()); code != mcp.CodeMissingRequiredClientCapabilities {
			t.Errorf("tasks/* without the extension: code %d, want -32021", code)
		}
	}
	// A required task tool refuses it, saying what to declare.
	_, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: "sleep"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32021 || !strings.Contains(string(je.Data), `"io.modelcontextprotocol/tasks"`) {
		t.Errorf("required tool without the extension: %v (data %s)", err, dataOf(je))
	}
	// An optional one runs synchronously, and cannot ask mid-way.
	res, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "confirm"})
	if err != nil || resultText(t, res) != "could not ask" {
		t.Errorf("optional tool without the extension = %v, %v", res, err)
	}
}

func dataOf(je *jsonrpc.Error) string {
	if je == nil {
		return ""
	}
	return string(je.Data)
}

// plainClient connects a client that knows the tasks/* methods but does not
// declare the extension.
func plainClient(t *testing.T, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	_ = mcp.AddSendingCustomMethod[*tasks.GetTaskParams, *tasks.GetTaskResult](client, tasks.MethodGet)
	_ = mcp.AddSendingCustomMethod[*tasks.UpdateTaskParams, *tasks.UpdateTaskResult](client, tasks.MethodUpdate)
	_ = mcp.AddSendingCustomMethod[*tasks.CancelTaskParams, *tasks.CancelTaskResult](client, tasks.MethodCancel)
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestURLQuestionNeedsURLCapability(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "u", Version: "1"}, nil)
	ext, err := tasks.Install(server, nil)
	if err != nil {
		t.Fatal(err)
	}
	ext.AddTool(&mcp.Tool{Name: "link", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			if tk.CanAsk("url") {
				return text("could ask by URL"), nil
			}
			_, err := tk.Ask(ctx, "connect", &mcp.ElicitParams{Mode: "url", Message: "Connect", URL: "https://example.test/connect"})
			if !errors.Is(err, tasks.ErrCannotAsk) {
				return nil, errors.New("Ask by URL did not refuse a forms-only client")
			}
			return text("fell back"), nil
		})
	tc := taskclient.New(connect(t, server, nil), fast())
	res, err := tc.CallTool(context.Background(), &mcp.CallToolParams{Name: "link"})
	if err != nil || resultText(t, res) != "fell back" {
		t.Errorf("forms-only client: %v, %v", res, err)
	}
	both := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	tc = taskclient.New(connect(t, server, both), fast())
	res, err = tc.CallTool(context.Background(), &mcp.CallToolParams{Name: "link"})
	if err != nil || resultText(t, res) != "could ask by URL" {
		t.Errorf("client with URL: %v, %v", res, err)
	}
}

func TestTTLExpiry(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	server, _ := newServer(t, &tasks.Options{TTL: time.Hour, Now: clock})
	tc := taskclient.New(connect(t, server, nil), fast())
	ct := start(t, tc, "toolerror")
	waitFor(t, tc, ct.TaskID, tasks.StatusCompleted)
	mu.Lock()
	now = now.Add(59 * time.Minute)
	mu.Unlock()
	if _, err := tc.Get(context.Background(), ct.TaskID); err != nil {
		t.Fatalf("before its TTL the task must stay readable: %v", err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	_, err := tc.Get(context.Background(), ct.TaskID)
	if code := rpcCode(t, err); code != -32602 || !strings.Contains(err.Error(), "expired") {
		t.Errorf("after its TTL: %v", err)
	}
}

// httpServer serves server statelessly over Streamable HTTP, with a fake
// bearer token naming the user.
func httpServer(t *testing.T, server *mcp.Server) *httptest.Server {
	return httpServerWrapped(t, server, nil)
}

func httpServerWrapped(t *testing.T, server *mcp.Server, wrap func(http.Handler) http.Handler) *httptest.Server {
	return httpServerWith(t, server, wrap, tokenVerifier(func(user string) *auth.TokenInfo { return &auth.TokenInfo{UserID: user} }))
}

// tokenVerifier accepts the bearer token "user:NAME" and describes NAME's
// token with info.
func tokenVerifier(info func(user string) *auth.TokenInfo) auth.TokenVerifier {
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		user, ok := strings.CutPrefix(token, "user:")
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		i := info(user)
		i.Expiration = time.Now().Add(time.Hour)
		return i, nil
	}
}

func httpServerWith(t *testing.T, server *mcp.Server, wrap func(http.Handler) http.Handler, verify auth.TokenVerifier) *httptest.Server {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(hs.Close)
	return hs
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func httpClient(t *testing.T, url, user string) *taskclient.Client {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &bearer{token: "user:" + user, base: http.DefaultTransport}}}
	return taskclient.New(connectWith(t, tr, nil), fast())
}

func TestStreamableHTTPStateless(t *testing.T) {
	server, _ := newServer(t, nil)
	hs := httpServer(t, server)
	alice := httpClient(t, hs.URL, "alice")
	opts := fast()
	opts.Answer = func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}
	aliceAnswering := httpClientOpts(t, hs.URL, "alice", opts)
	out, err := aliceAnswering.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm"})
	if err != nil || resultText(t, out) != "done" {
		t.Fatalf("over HTTP: %v, %v", out, err)
	}

	// Another user cannot see, answer or cancel alice's task: it does not
	// exist for them.
	ct := start(t, alice, "confirm")
	waitFor(t, alice, ct.TaskID, tasks.StatusInputRequired)
	mallory := httpClient(t, hs.URL, "mallory")
	ctx := context.Background()
	if _, err := mallory.Get(ctx, ct.TaskID); rpcCode(t, err) != -32602 {
		t.Errorf("mallory reads alice's task: %v", err)
	}
	yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
	if err := mallory.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"confirm": yes}); rpcCode(t, err) != -32602 {
		t.Errorf("mallory answers alice's task: %v", err)
	}
	if err := mallory.Cancel(ctx, ct.TaskID); rpcCode(t, err) != -32602 {
		t.Errorf("mallory cancels alice's task: %v", err)
	}
	g, err := alice.Get(ctx, ct.TaskID)
	if err != nil || g.Status != tasks.StatusInputRequired || g.InputRequests["confirm"] == nil {
		t.Errorf("mallory changed alice's task: %+v, %v", g, err)
	}
	_ = alice.Cancel(ctx, ct.TaskID)
}

func httpClientOpts(t *testing.T, url, user string, opts *taskclient.Options) *taskclient.Client {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &bearer{token: "user:" + user, base: http.DefaultTransport}}}
	return taskclient.New(connectWith(t, tr, nil), opts)
}

// TestRoutingHeaderMismatch sends a raw tasks/get whose Mcp-Name names
// another task.
func TestRoutingHeaderMismatch(t *testing.T) {
	t.Run("in the server", func(t *testing.T) { routingHeaderMismatch(t, nil, 0) })
	t.Run("RoutingHeaders", func(t *testing.T) { routingHeaderMismatch(t, tasks.RoutingHeaders, http.StatusBadRequest) })
}

func routingHeaderMismatch(t *testing.T, wrap func(http.Handler) http.Handler, wantStatus int) {
	server, _ := newServer(t, nil)
	hs := httpServerWrapped(t, server, wrap)
	alice := httpClient(t, hs.URL, "alice")
	ct := start(t, alice, "sleep")
	defer alice.Cancel(context.Background(), ct.TaskID)
	send := func(name string) (map[string]any, int) {
		return rawCall(t, hs.URL, "tasks/get", name, `"taskId":"`+ct.TaskID+`"`)
	}
	if m, _ := send(ct.TaskID); m["error"] != nil {
		t.Errorf("matching Mcp-Name rejected: %v", m["error"])
	}
	m, status := send("some-other-task")
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32020) {
		t.Errorf("mismatched Mcp-Name: %v, want error -32020", m)
	}
	if wantStatus != 0 && status != wantStatus {
		t.Errorf("mismatched Mcp-Name: HTTP %d, want %d", status, wantStatus)
	}
}

func TestSyncCallOnOlderProtocolAsksByElicitation(t *testing.T) {
	server, _ := newServer(t, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "done" || len(asked) != 1 {
		t.Errorf("got %q after questions %q", got, asked)
	}
}

func TestWithoutTheTransportTheHandleIsReportedMissing(t *testing.T) {
	server, _ := newServer(t, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "unwrapped", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	if err := taskclient.Register(client); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, nil) // not through taskclient.Transport
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = taskclient.New(cs, nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep"})
	if !errors.Is(err, taskclient.ErrNoHandle) {
		t.Errorf("got %v, want ErrNoHandle", err)
	}
}

func TestCloseFailsRunningTasks(t *testing.T) {
	server, ext := newServer(t, nil)
	tc := taskclient.New(connect(t, server, nil), fast())
	ct := start(t, tc, "sleep")
	ctx, stop := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer stop()
	if err := ext.Close(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := tc.Get(context.Background(), ct.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != tasks.StatusFailed || g.Error == nil || !strings.Contains(g.Error.Message, "shut down") {
		t.Errorf("after Close: %s %+v", g.Status, g.Error)
	}
}

func TestStreamableHTTPJSONResponses(t *testing.T) {
	server, _ := newServer(t, nil)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(hs.Close)
	opts := fast()
	opts.Answer = func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}
	tc := taskclient.New(connectWith(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil), opts)
	res, err := tc.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm"})
	if err != nil || resultText(t, res) != "done" {
		t.Errorf("JSON responses: %v, %v", res, err)
	}
}

// brokenStore fails every read after the first n.
type brokenStore struct {
	*tasks.MemoryStore
	mu    sync.Mutex
	reads int
}

func (s *brokenStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	s.mu.Lock()
	s.reads++
	n := s.reads
	s.mu.Unlock()
	if n > 1 {
		return nil, errors.New("disk on fire")
	}
	return s.MemoryStore.Get(ctx, id)
}

// A store failure is an internal error whose text says nothing of the store
// (a Redis address, a file path, a driver's message): that goes to the
// server's log.
func TestStoreFailureIsAnInternalError(t *testing.T) {
	store := &brokenStore{MemoryStore: tasks.NewMemoryStore(nil)}
	var log syncBuffer
	server, _ := newServer(t, &tasks.Options{Store: store, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	tc := taskclient.New(connect(t, server, nil), fast())
	ct := start(t, tc, "sleep")
	if _, err := tc.Get(context.Background(), ct.TaskID); err != nil {
		t.Fatal(err)
	}
	_, err := tc.Get(context.Background(), ct.TaskID)
	if code := rpcCode(t, err); code != -32603 || strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "the task store failed") {
		t.Errorf("store failure: %v", err)
	}
	if !strings.Contains(log.String(), "disk on fire") {
		t.Errorf("the store's error is not in the log: %q", log.String())
	}
	_ = tc.Cancel(context.Background(), ct.TaskID)
}

// A panic's value may hold anything the task's code had at hand: the client
// learns only that the code failed; the value and the stack go to the log.
func TestPanicValueStaysInTheLog(t *testing.T) {
	var log syncBuffer
	server := mcp.NewServer(&mcp.Implementation{Name: "panics", Version: "1"}, nil)
	ext, err := tasks.Install(server, &tasks.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ext.AddTool(&mcp.Tool{Name: "leaky", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			panic("cannot reach postgres://app:hunter2@10.0.0.5/prod")
		})
	for _, caps := range []*mcp.ClientCapabilities{nil, {}} {
		tc := taskclient.New(connect(t, server, caps), fast())
		_, err := tc.CallTool(context.Background(), &mcp.CallToolParams{Name: "leaky"})
		if code := rpcCode(t, err); code != -32603 || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("a panicking task (caps %v): %v", caps, err)
		}
	}
	if !strings.Contains(log.String(), "hunter2") || !strings.Contains(log.String(), "goroutine") {
		t.Errorf("the panic and its stack are not in the log: %q", log.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunningTaskEndsAtItsTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ran := make(chan error, 1)
		server := mcp.NewServer(&mcp.Implementation{Name: "ttl", Version: "1"}, nil)
		ext, err := tasks.Install(server, &tasks.Options{TTL: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ext.AddTool(&mcp.Tool{Name: "forever", InputSchema: emptySchema}, tasks.Required,
			func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
				<-ctx.Done()
				ran <- context.Cause(ctx)
				return nil, context.Cause(ctx)
			})
		tc := taskclient.New(connect(t, server, nil), fast())
		ct := start(t, tc, "forever")
		select {
		case cause := <-ran:
			if !errors.Is(cause, tasks.ErrExpired) {
				t.Errorf("cause %v, want ErrExpired", cause)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the task's context did not end at its TTL")
		}
		_, err = tc.Get(context.Background(), ct.TaskID)
		if code := rpcCode(t, err); code != -32602 || !strings.Contains(err.Error(), "expired") {
			t.Errorf("after the TTL: %v", err)
		}
	})
}

func TestImmediateResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server, _ := newServer(t, &tasks.Options{Immediate: 300 * time.Millisecond})
		tc := taskclient.New(connect(t, server, nil), fast())
		ctx := context.Background()

		s, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "toolerror"})
		if err != nil || s.Task != nil || s.Result == nil || !s.Result.IsError || resultText(t, s.Result) != "bad input" {
			t.Errorf("a fast task: %+v, %v; want its result directly", s, err)
		}
		_, err = tc.StartTool(ctx, &mcp.CallToolParams{Name: "fail"})
		if code := rpcCode(t, err); code != -32050 {
			t.Errorf("a fast failure: code %d, want the tool's error directly", code)
		}
		for _, tool := range []string{"confirm", "sleep"} {
			s, err = tc.StartTool(ctx, &mcp.CallToolParams{Name: tool})
			if err != nil || s.Task == nil {
				t.Errorf("%s: %+v, %v; want a task handle", tool, s, err)
				continue
			}
			if _, err := tc.Get(ctx, s.Task.TaskID); err != nil {
				t.Errorf("%s: the handed-out task is not readable: %v", tool, err)
			}
			_ = tc.Cancel(ctx, s.Task.TaskID)
		}
	})
}

// An older client asked by elicitation/create is held to the same checks as
// an answer sent with tasks/update: the go-sdk's own check lets through a
// field the form does not ask for, a malformed format and, with an action
// other than accept, any content at all; the task's code never sees them.
func TestSyncAnswersCheckedAsUpdates(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "sync-check", Version: "1"}, nil)
	ext, err := tasks.Install(server, nil)
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"confirm": map[string]any{"type": "boolean"},
		"email":   map[string]any{"type": "string", "format": "email"},
	}}
	ext.AddTool(&mcp.Tool{Name: "ask", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			a, err := tk.Ask(ctx, "q", &mcp.ElicitParams{Message: "Go?", RequestedSchema: schema})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s %v", a.Action, a.Content)), nil
		})
	for _, c := range []struct {
		answer *mcp.ElicitResult
		want   string // in the error, or the result when it starts with "ok:"
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true, "admin": true}}, `"admin": is not in the requested schema`},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "not mail"}}, "must be an email address"},
		{&mcp.ElicitResult{Action: "approve", Content: map[string]any{"confirm": "yes"}}, `action must be accept, decline or cancel, not "approve"`},
		{&mcp.ElicitResult{Action: "decline", Content: map[string]any{"confirm": true}}, "ok:decline map[]"},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, "ok:accept map[confirm:true]"},
	} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return c.answer, nil },
		})
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"})
		got := ""
		switch {
		case err != nil:
			got = err.Error()
		case res.IsError:
			got = resultText(t, res)
		default:
			got = "ok:" + resultText(t, res)
		}
		if ok := strings.HasPrefix(c.want, "ok:"); ok && got != c.want || !ok && !strings.Contains(got, c.want) {
			t.Errorf("answer %+v: %q, want %q", c.answer, got, c.want)
		}
		cs.Close()
		ss.Close()
	}
}

// A URL question's answer has no content (its input happens out of band):
// content a client sends with it anyway never reaches the task's code.
func TestURLAnswerCarriesNoContent(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "u", Version: "1"}, nil)
	ext, err := tasks.Install(server, nil)
	if err != nil {
		t.Fatal(err)
	}
	ext.AddTool(&mcp.Tool{Name: "link", InputSchema: emptySchema}, tasks.Optional,
		func(ctx context.Context, tk *tasks.Task) (*mcp.CallToolResult, error) {
			a, err := tk.Ask(ctx, "connect", &mcp.ElicitParams{Mode: "url", Message: "Connect", URL: "https://example.test/connect", ElicitationID: "e1"})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s %v", a.Action, a.Content)), nil
		})
	opts := fast()
	opts.Answer = func(context.Context, string, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"paid": true}}, nil
	}
	both := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	tc := taskclient.New(connect(t, server, both), opts)
	res, err := tc.CallTool(context.Background(), &mcp.CallToolParams{Name: "link"})
	if err != nil || resultText(t, res) != "accept map[]" {
		t.Errorf("a URL answer with content: %v, %v; want accept without content", res, err)
	}
}

// RoutingHeaders reads params exactly as the go-sdk does: a body whose
// "TaskId" agrees with Mcp-Name while its "taskId" (the one the go-sdk
// reads) names another task is refused by the wrapper itself, with 400 and
// -32020 naming the task the server would have acted on. (Read with
// encoding/json, "TaskId" won and the wrapper let it through.) A key given
// twice is refused with 400 and -32602 before the go-sdk reads it.
func TestRoutingHeaderCaseVariantKey(t *testing.T) {
	server, _ := newServer(t, nil)
	hs := httpServerWrapped(t, server, tasks.RoutingHeaders)
	alice := httpClient(t, hs.URL, "alice")
	ct := start(t, alice, "sleep")
	defer alice.Cancel(context.Background(), ct.TaskID)
	m, status := rawCall(t, hs.URL, "tasks/get", "routed-elsewhere", `"taskId":"`+ct.TaskID+`","TaskId":"routed-elsewhere"`)
	e, _ := m["error"].(map[string]any)
	if status != http.StatusBadRequest || e == nil || e["code"] != float64(tasks.CodeHeaderMismatch) || !strings.Contains(e["message"].(string), ct.TaskID) {
		t.Errorf("a case-variant taskId routed by the other: HTTP %d %v, want 400 and -32020 naming %s", status, m, ct.TaskID)
	}
	m, status = rawCall(t, hs.URL, "tasks/get", ct.TaskID, `"taskId":"other","taskId":"`+ct.TaskID+`"`)
	e, _ = m["error"].(map[string]any)
	if status != http.StatusBadRequest || e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), "taskId") {
		t.Errorf("taskId twice: HTTP %d %v, want 400 and -32602 naming the key", status, m)
	}
}

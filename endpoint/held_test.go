package endpoint_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Anonymous clients each have their share of sessions: one client address
// whose sessions are all busy is refused another (503), while another
// address opens one.
func TestAnonymousSessionsPerClient(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{MaxSessions: 10, MaxSessionsPerUser: 2})
	// The test's clients all come from loopback: a header names the
	// address each stands for, as a trusted proxy's would.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(subject.WithClient(r.Context(), r.Header.Get("X-Test-Client"))))
	}))
	t.Cleanup(srv.Close)
	send := func(ctx context.Context, client, method, session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL, strings.NewReader(body))
		req.Header.Set("X-Test-Client", client)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	open := func(client string) (string, int) {
		t.Helper()
		resp := send(context.Background(), client, http.MethodPost, "", initialize)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("Mcp-Session-Id")
		if id != "" {
			send(context.Background(), client, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
		}
		return id, resp.StatusCode
	}
	streams, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	for range 2 {
		id, code := open("addr:192.0.2.1")
		if id == "" {
			t.Fatalf("a first session of 192.0.2.1: %d", code)
		}
		go holdStream(streams, srv.URL, id, "X-Test-Client", "addr:192.0.2.1")
	}
	waitBusy(t, 2, func() int { return h.BusyShare("~addr:192.0.2.1") })
	resp := send(context.Background(), "addr:192.0.2.1", http.MethodPost, "", initialize)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "one client address") {
		t.Fatalf("a third session of a client with two busy: %d %s", resp.StatusCode, body)
	}
	if id, code := open("addr:192.0.2.2"); id == "" {
		t.Fatalf("another client's session: %d", code)
	}
}

// When every session is open, held by clients at many addresses, a client
// holding fewer than the one holding the most still opens one: that client
// gives up a session, an idle one first.
func TestSessionsSharedWhenFull(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{MaxSessions: 4, MaxSessionsPerUser: 3})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(subject.WithClient(r.Context(), r.Header.Get("X-Test-Client"))))
	}))
	t.Cleanup(srv.Close)
	send := func(client, session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("X-Test-Client", client)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	open := func(client string) (string, int, string) {
		t.Helper()
		resp := send(client, "", initialize)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id := resp.Header.Get("Mcp-Session-Id")
		if id != "" {
			send(client, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
		}
		return id, resp.StatusCode, string(body)
	}
	const a = "addr:192.0.2.1"
	streams, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	// a: one busy session (an event stream), then two idle ones; b: one.
	busy, _, _ := open(a)
	go holdStream(streams, srv.URL, busy, "X-Test-Client", a)
	waitBusy(t, 1, func() int { return h.BusyShare("~" + a) })
	var idle []string
	for range 2 {
		id, code, body := open(a)
		if id == "" {
			t.Fatalf("a's session: %d %s", code, body)
		}
		idle = append(idle, id)
	}
	if id, code, body := open("addr:192.0.2.2"); id == "" {
		t.Fatalf("b's session: %d %s", code, body)
	}
	// Full. c and d each take one of a's places: its idle sessions.
	for _, client := range []string{"addr:192.0.2.3", "addr:192.0.2.4"} {
		if id, code, body := open(client); id == "" {
			t.Fatalf("%s while every session is open: %d %s, want a session", client, code, body)
		}
	}
	if h.Sessions() != 4 {
		t.Fatalf("%d sessions open, want 4", h.Sessions())
	}
	for _, id := range idle {
		resp := send(a, id, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("a's idle session given up still answers: %d", resp.StatusCode)
		}
	}
	if h.BusyShare("~"+a) != 1 {
		t.Error("a's busy session was closed while it had idle ones")
	}
	// Each holds one now: a fifth client is refused.
	if id, code, body := open("addr:192.0.2.5"); id != "" || code != http.StatusServiceUnavailable || !strings.Contains(body, "too many open sessions (4)") {
		t.Fatalf("a fifth client when everyone holds one: %d %s, want 503", code, body)
	}
}

// A question a session's client never answers ends at QuestionTimeout: the
// call that asked it ends and its session is no longer busy.
func TestQuestionTimeout(t *testing.T) {
	h, url := serve(t, &endpoint.Options{QuestionTimeout: 300 * time.Millisecond})
	asked := make(chan struct{}, 1)
	quit := make(chan struct{})
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- struct{}{}
			select { // never answers
			case <-ctx.Done():
			case <-quit:
			}
			return nil, context.Canceled
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	defer close(quit)
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
	<-asked
	if ctx.Err() != nil {
		t.Fatalf("the call waited for its unanswered question for %v", time.Since(start))
	}
	if err == nil && !res.IsError {
		t.Fatalf("a call whose question was never answered: %v", res)
	}
	for deadline := time.Now().Add(time.Minute); h.BusyShare("~addr:127.0.0.1") > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session is still busy after its question timed out")
		}
	}
	if err != nil && !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Errorf("the call's error does not say why: %v", err)
	}
}

// holdStream opens an event stream on session id, which holds the session
// busy until ctx ends; the header key names the caller.
func holdStream(ctx context.Context, url, id, key, value string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set(key, value)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// waitBusy waits until busy reports n sessions busy (their streams have
// started).
func waitBusy(t *testing.T, n int, busy func() int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); busy() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the event streams did not start: %d busy, want %d", busy(), n)
		}
	}
}

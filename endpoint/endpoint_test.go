package endpoint_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/testsupport/bodylimit"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingServer has one tool that asks for a name (input_required) and
// greets with the answer.
func askingServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		if a, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("hello %v (%s)", a.Content["name"], a.Action)}}}, nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
			Message:         "Your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		}}}, nil, nil
	})
	return s
}

func serve(t *testing.T, opts *endpoint.Options) (*endpoint.Handler, string) {
	t.Helper()
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, opts)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL
}

// call connects a go-sdk client speaking protocol, calls greet and
// answers its question with "ann"; it reports how the question came.
func call(t *testing.T, url, protocol string) (text string, via string) {
	t.Helper()
	var mu sync.Mutex
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if req.Session != nil && req.Session.ID() != "" {
				via = "elicitation/create in session"
			} else {
				via = "input_required"
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ann"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect (%s): %v", protocol, err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != protocol {
		t.Fatalf("negotiated %s, want %s", got, protocol)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
	if err != nil {
		t.Fatalf("call (%s): %v", protocol, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return res.Content[0].(*mcp.TextContent).Text, via
}

func TestBothErasOnOneEndpoint(t *testing.T) {
	h, url := serve(t, nil)
	text, _ := call(t, url, "2026-07-28")
	if text != "hello ann (accept)" {
		t.Errorf("2026-07-28: %q", text)
	}
	if n := h.Sessions(); n != 0 {
		t.Errorf("a 2026-07-28 client opened %d sessions, want none", n)
	}
	// The older client is asked with elicitation/create, in its session.
	text, via := call(t, url, "2025-11-25")
	if text != "hello ann (accept)" || via != "elicitation/create in session" {
		t.Errorf("2025-11-25: %q, asked by %s", text, via)
	}
	// Its session was closed (DELETE) when the client closed.
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions open after the client closed, want 0", n)
	}
}

// post sends one JSON-RPC message as a 2025-era client without a session.
func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// A request of an older client that opens no session is served as a
// stateless endpoint serves it: no session, an answer.
func TestSessionlessOldRequest(t *testing.T) {
	h, url := serve(t, nil)
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"greet"`) {
		t.Errorf("status %d, body %s", resp.StatusCode, body)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" || h.Sessions() != 0 {
		t.Errorf("a sessionless request opened a session")
	}
}

// A client cannot fill the server with sessions: beyond MaxSessions an
// initialize is refused with 503 and Retry-After; closing one makes room.
func TestSessionsAreBounded(t *testing.T) {
	h, url := serve(t, &endpoint.Options{MaxSessions: 2, SessionTimeout: time.Minute})
	var ids []string
	for range 2 {
		resp := post(t, url, initialize)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: status %d, session %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp := post(t, url, initialize)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "60" ||
		!strings.Contains(string(body), "too many open sessions (2)") {
		t.Errorf("third session: status %d, Retry-After %q, body %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// A modern request needs no session and is served anyway.
	if text, _ := call(t, url, "2026-07-28"); text != "hello ann (accept)" {
		t.Errorf("2026-07-28 while sessions are full: %q", text)
	}

	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if h.Sessions() != 1 {
		t.Fatalf("after DELETE: %d sessions, want 1", h.Sessions())
	}
	if resp := post(t, url, initialize); resp.StatusCode != http.StatusOK {
		t.Errorf("after DELETE, initialize: status %d", resp.StatusCode)
	}
}

// Sessions idle longer than SessionTimeout no longer count.
func TestIdleSessionsAreForgotten(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h, url := serve(t, &endpoint.Options{MaxSessions: 1, SessionTimeout: time.Minute, Now: clock})
	if resp := post(t, url, initialize); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	if resp := post(t, url, initialize); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second initialize at the bound: %d", resp.StatusCode)
	}
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	if h.Sessions() != 0 {
		t.Errorf("an idle session still counts")
	}
	if resp := post(t, url, initialize); resp.StatusCode != http.StatusOK {
		t.Errorf("initialize after the idle one expired: %d", resp.StatusCode)
	}
}

// A body too large to tell what it is gets 413, not a session.
func TestOversizedSessionlessBody(t *testing.T) {
	_, url := serve(t, nil)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", endpoint.DefaultMaxPeek) + `"}}`
	if resp := post(t, url, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}

// A client that trickles a sessionless body, one byte at a time, is
// answered 408 once BodyReadTimeout has passed, on a plain server without
// read timeouts of its own; one that sends its body in time is served.
func TestSlowSessionlessBody(t *testing.T) {
	slowBody(t, "")
}

// So is a request of protocol 2026-07-28, which the go-sdk's stateless
// handler would read without any time limit.
func TestSlowModernBody(t *testing.T) {
	slowBody(t, "Mcp-Protocol-Version: "+endpoint.Modern+"\r\n")
}

func slowBody(t *testing.T, header string) {
	_, url := serve(t, &endpoint.Options{BodyReadTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", strings.TrimPrefix(url, "http://"), header, len(body))
	answered := make(chan *http.Response, 1)
	go func() {
		resp, _ := http.ReadResponse(bufio.NewReader(conn), nil) // nil: the connection ended unanswered
		answered <- resp
	}()
	start := time.Now()
	var resp *http.Response
trickle:
	for i := 0; i < len(body)-1; i++ { // never the last byte
		select {
		case resp = <-answered:
			break trickle
		case <-time.After(50 * time.Millisecond):
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				break trickle
			}
		}
	}
	if resp == nil {
		select {
		case resp = <-answered:
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer %v after the body began to trickle", time.Since(start))
		}
	}
	if resp == nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("answer %v, want 408", resp)
	}
	msg, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(msg), "not received within 300ms") {
		t.Errorf("408 body %q does not say why", msg)
	}
	if resp := post(t, url, body); resp.StatusCode != http.StatusOK {
		t.Errorf("a body sent at once: status %d, want 200", resp.StatusCode)
	}
}

// Whatever a client posts without a session, the handler answers without
// panicking, and never opens more sessions than allowed.
func FuzzSessionlessPost(f *testing.F) {
	f.Add(initialize)
	f.Add(`[` + initialize + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f.Add(`[]`)
	f.Add(`{"method":`)
	f.Add(`[{"method":"initialize"},{"method":"initialize"}]`)
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{MaxSessions: 3})
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Errorf("status %d for %q", rec.Code, body)
		}
		if n := h.Sessions(); n > 3 {
			t.Errorf("%d sessions open, limit 3", n)
		}
	})
}

// Many initialize requests at once open no more than MaxSessions: each takes
// its place before it is served. The server holds every initialize that
// reaches it until all have arrived (or a second has passed), so that they
// are served at once.
func TestConcurrentInitializeBounded(t *testing.T) {
	const clients, limit = 40, 5
	s := askingServer()
	var mu sync.Mutex
	arrived, all := 0, make(chan struct{})
	h := endpoint.New(func(*http.Request) *mcp.Server {
		mu.Lock()
		if arrived++; arrived == clients {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(time.Second):
		}
		return s
	}, &endpoint.Options{MaxSessions: limit})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var wg sync.WaitGroup
	var opened, refused int
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case resp.Header.Get("Mcp-Session-Id") != "":
				opened++
			case resp.StatusCode == http.StatusServiceUnavailable:
				refused++
			}
		}()
	}
	wg.Wait()
	if opened > limit || h.Sessions() > limit || opened+refused != clients {
		t.Fatalf("%d initialize at once with MaxSessions %d: %d opened (%d tracked), %d refused", clients, limit, opened, h.Sessions(), refused)
	}
}

// With SessionsOnly, nothing is served without a session (the go-sdk would
// open one for any request, uncounted), and sessions stay bounded.
func TestSessionsOnly(t *testing.T) {
	h, url := serve(t, &endpoint.Options{SessionsOnly: true, MaxSessions: 1})
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Mcp-Session-Id") != "" ||
		!strings.Contains(string(body), "send initialize first") {
		t.Fatalf("a sessionless tools/list: %d, session %q, %s; want 400 and no session", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
	}
	if text, via := call(t, url, "2025-11-25"); text != "hello ann (accept)" || via != "elicitation/create in session" {
		t.Fatalf("2025-11-25: %q via %s", text, via)
	}
	if h.Sessions() != 0 {
		t.Fatalf("after the client closed: %d sessions", h.Sessions())
	}
	if resp := post(t, url, initialize); resp.Header.Get("Mcp-Session-Id") == "" || h.Sessions() != 1 {
		t.Fatalf("initialize: status %d, %d sessions tracked", resp.StatusCode, h.Sessions())
	}
	if resp := post(t, url, initialize); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a second session over MaxSessions 1: status %d, want 503", resp.StatusCode)
	}
}

// One authenticated user cannot take every session: beyond
// MaxSessionsPerUser the user's idle session that waited longest is closed
// for the new one, the user's busy sessions are kept (503 when all are
// busy), and another user still opens one.
func TestSessionsPerUser(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{MaxSessions: 4, MaxSessionsPerUser: 2})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	srv := httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
	t.Cleanup(srv.Close)
	send := func(user, method, session, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+user)
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
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	open := func(user string) string {
		t.Helper()
		resp := send(user, http.MethodPost, "", initialize)
		id := resp.Header.Get("Mcp-Session-Id")
		if id == "" {
			body, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s's initialize: %d %s", user, resp.StatusCode, body)
		}
		resp.Body.Close()
		send(user, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
		return id
	}
	ping := func(user, id string) int {
		resp := send(user, http.MethodPost, id, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		resp.Body.Close()
		return resp.StatusCode
	}
	b1 := open("bob")
	time.Sleep(5 * time.Millisecond)
	b2 := open("bob")
	b3 := open("bob") // closes b1, idle the longest
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		code := ping("bob", b1)
		if code == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's oldest session after his third: ping %d, want 404", code)
		}
	}
	for _, id := range []string{b2, b3} {
		if code := ping("bob", id); code != http.StatusOK {
			t.Fatalf("bob's newer session: ping %d", code)
		}
	}
	if h.Sessions() != 2 {
		t.Fatalf("%d sessions tracked, want bob's 2", h.Sessions())
	}
	open("alice")
	open("alice")
	// Bob's two sessions busy (each holds an event stream): no room for him.
	streams, stop := context.WithCancel(context.Background())
	t.Cleanup(stop) // before the server closes, which waits for the streams
	for _, id := range []string{b2, b3} {
		go holdStream(streams, srv.URL, id, "Authorization", "Bearer bob")
	}
	// Wait until both streams hold their sessions, then ask for a third.
	waitBusy(t, 2, func() int { return h.Busy("bob") })
	resp := send("bob", http.MethodPost, "", initialize)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "all busy") || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("bob's initialize with both sessions busy: %d %s", resp.StatusCode, body)
	}
}

// A session belongs to the user who opened it, however the verifier names
// the user: with the user in the token's "sub" claim only (UserID empty,
// which is all the go-sdk compares), another user who learns the session id
// is refused, as is a request without a token; the owner is served.
func TestSessionBelongsToItsUser(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, nil)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{Extra: map[string]any{"sub": token}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	protected := auth.RequireBearerToken(verify, nil)(h)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			h.ServeHTTP(w, r) // as behind a front that lets anonymous requests through
			return
		}
		protected.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	send := func(user, session, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		if user != "" {
			req.Header.Set("Authorization", "Bearer "+user)
		}
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
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if session == "" {
			return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
		}
		return resp.StatusCode, string(b)
	}
	_, id := send("alice", "", initialize)
	if id == "" {
		t.Fatal("alice's initialize opened no session")
	}
	send("alice", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, user := range []string{"bob", ""} {
		if code, body := send(user, id, list); code != http.StatusForbidden || strings.Contains(body, "greet") {
			t.Errorf("%q in alice's session: %d %s, want 403", user, code, body)
		}
	}
	if code, body := send("alice", id, list); code != http.StatusOK || !strings.Contains(body, "greet") {
		t.Errorf("alice in her own session: %d %s", code, body)
	}
}

// The sessionless body read to tell an initialize from other requests is
// bounded by the body limit the server set (HTTP.MaxRequestBodyBytes): a
// smaller limit is not 4 MiB held per request, a larger one is not refused
// before the go-sdk's handler would take it.
func TestSessionlessBodyFollowsTheServersLimit(t *testing.T) {
	s := askingServer()
	small := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{HTTP: mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 1024}})
	body := bodylimit.NewCounting(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`)
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Body = body
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	small.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || body.BytesRead() > 1025 {
		t.Errorf("a body over a limit of 1 KiB: %d after reading %d bytes, want 413 after at most 1025", rec.Code, body.BytesRead())
	}
	large := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{HTTP: mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 2 * endpoint.DefaultMaxPeek}})
	srv := httptest.NewServer(large)
	t.Cleanup(srv.Close)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":"` + strings.Repeat("a", endpoint.DefaultMaxPeek) + `"}}}`
	resp := post(t, srv.URL, big)
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"greet"`) {
		t.Errorf("a body over 4 MiB within the server's limit of 8 MiB: %d %.200s", resp.StatusCode, got)
	}
}

package endpoint_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2025-11-25 client that leaves while its call waits for the answer to
// its question (its connection cut, no notifications/cancelled sent) does
// not hold its session until QuestionTimeout: the go-sdk closes a session
// only once its calls have returned, and this call waited for an answer
// nobody would give. Its DELETE is answered at once, and a session it
// leaves without one is closed SessionTimeout after its last request, with
// no other request needed to notice. Either way the call ends and the
// session is gone from the server.
func TestLeavingMidQuestionFreesTheSession(t *testing.T) {
	for _, how := range []string{"DELETE", "idle"} {
		t.Run(how, func(t *testing.T) {
			s := askingServer()
			// The question outlives the test's patience (a minute), so
			// that a session held until it ends fails the test; and then
			// ends, so that the server's close does not hang the test.
			opts := &endpoint.Options{QuestionTimeout: 2 * time.Minute, SessionTimeout: time.Hour}
			// The Handler's clock stands still until the client has gone:
			// a busy machine's pause before the call closes nothing.
			var mu sync.Mutex
			now := time.Now()
			opts.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			if how == "idle" {
				opts.SessionTimeout = 200 * time.Millisecond
			}
			h := endpoint.New(func(*http.Request) *mcp.Server { return s }, opts)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			id := openAsking(t, srv.URL)

			// The call's stream brings the question; then the client is gone.
			callCtx, cut := context.WithCancel(context.Background())
			defer cut()
			resp, err := rawClient(callCtx, srv.URL, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
			if err != nil {
				t.Fatal(err)
			}
			untilQuestion(t, resp.Body)
			cut()
			resp.Body.Close()

			guard, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang, not a measure
			defer cancel()
			if how == "DELETE" {
				resp, err := rawClient(guard, srv.URL, http.MethodDelete, id, "")
				if err != nil {
					t.Fatalf("the DELETE of a session whose question waits was not answered: %v", err)
				}
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					t.Fatalf("DELETE: %d", resp.StatusCode)
				}
			}
			for open := sessionsOf(s); open > 0; open = sessionsOf(s) {
				if guard.Err() != nil {
					t.Fatalf("%d session(s) still open on the server after its client left (%s)", open, how)
				}
				// Time passes for the Handler now (a second a look):
				// the session's last POST ends when the server notices
				// the cut, and it is idle from then on.
				mu.Lock()
				now = now.Add(time.Second)
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
			if n := h.Closing(); n != 0 {
				t.Errorf("%d session(s) still being closed", n)
			}
		})
	}
}

// sessionsOf counts the sessions s has open.
func sessionsOf(s *mcp.Server) int {
	n := 0
	for range s.Sessions() {
		n++
	}
	return n
}

// openAsking opens a session at url as a 2025-11-25 client that declares
// elicitation (it is asked in the session), and returns its id.
func openAsking(t *testing.T, url string) string {
	t.Helper()
	resp, err := rawClient(context.Background(), url, http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"x","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize: %d, no session", resp.StatusCode)
	}
	if resp, err = rawClient(context.Background(), url, http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return id
}

// untilQuestion reads a call's event stream until the server's question
// (elicitation/create), and fails when the stream ends before it.
func untilQuestion(t *testing.T, stream io.Reader) *bufio.Scanner {
	t.Helper()
	lines := bufio.NewScanner(stream)
	for lines.Scan() {
		if strings.Contains(lines.Text(), `"elicitation/create"`) {
			return lines
		}
	}
	t.Fatalf("the call's stream ended before its question: %v", lines.Err())
	return nil
}

// rawClient sends one JSON-RPC message to url as a 2025-11-25 client
// (of session, when not empty; with more headers).
func rawClient(ctx context.Context, url, method, session, body string, more ...string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	for i := 0; i+1 < len(more); i += 2 {
		req.Header.Set(more[i], more[i+1])
	}
	return http.DefaultClient.Do(req)
}

// waitNoSessions waits until s has no session open, or fails after a
// minute (against a hang, not a measure).
func waitNoSessions(t *testing.T, s *mcp.Server, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); sessionsOf(s) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d session(s) still open on the server: %s", sessionsOf(s), what)
		}
	}
}

// An initialize whose client leaves before its answer leaves no session
// behind: the go-sdk made one and handled its initialize, but nobody was
// told its id, so nobody would ever use or close it.
func TestUnansweredInitializeLeavesNoSession(t *testing.T) {
	s := askingServer()
	// The initialize is handled; its answer waits till its client is gone.
	entered, release := make(chan struct{}, 1), make(chan struct{})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "initialize" {
				entered <- struct{}{}
				<-release
			}
			return res, err
		}
	})
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{SessionTimeout: time.Hour})
	ended := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		ended <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	ctx, cut := context.WithCancel(context.Background())
	go func() {
		if resp, err := rawClient(ctx, srv.URL, http.MethodPost, "", initialize); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	cut()
	<-ended // the request ended without its answer
	close(release)
	waitNoSessions(t, s, "an initialize nobody received the answer of")
	if n := h.Sessions(); n != 0 {
		t.Errorf("the Handler counts %d session(s)", n)
	}
}

// A 404 the go-sdk gives a request of a live session (an unknown method of
// protocol 2026-07-28) does not make the Handler forget the session: it
// still counts against its caller's bound, and is still closed when given
// up. A caller who sends one after each initialize has no more sessions
// open than its bound.
func TestA404KeepsTheSessionCounted(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{SessionsOnly: true, MaxSessionsPerUser: 2, SessionTimeout: time.Hour})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for range 5 {
		id := openAsking(t, srv.URL)
		resp, err := rawClient(context.Background(), srv.URL, http.MethodPost, id, `{"jsonrpc":"2.0","id":7,"method":"nope/nope"}`, "Mcp-Protocol-Version", "2026-07-28")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if n := h.Sessions(); n != 2 {
		t.Errorf("the Handler counts %d sessions of the caller, want its bound, 2", n)
	}
	for deadline := time.Now().Add(time.Minute); sessionsOf(s) > 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions open on the server for one caller whose bound is 2", sessionsOf(s))
		}
	}
}

// A call that begins while its session's DELETE is being served ends at
// once: the go-sdk closes the session only once its calls have returned,
// and a call that began after the DELETE ended the others would ask its
// question and hold the DELETE until QuestionTimeout.
func TestACallDuringDeleteEndsAtOnce(t *testing.T) {
	s := askingServer()
	// A tool that takes its time and does not stop for its context: it
	// holds the DELETE (the go-sdk's close) while the second call comes.
	slowDone := make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		<-slowDone
		return &mcp.CallToolResult{}, nil, nil
	})
	// The second call is taken in by the session before the DELETE, and
	// reaches the Handler's middleware after it (held here till then).
	greetIn, greetGo := make(chan struct{}, 1), make(chan struct{})
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{QuestionTimeout: 2 * time.Minute, SessionTimeout: time.Hour})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	id := openAsking(t, srv.URL)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p.Name == "greet" {
				greetIn <- struct{}{}
				<-greetGo
			}
			return next(ctx, method, req)
		}
	})
	var once sync.Once
	let := func() { once.Do(func() { close(greetGo); close(slowDone) }) }
	t.Cleanup(let) // a failure does not leave the server's calls held
	calls, stop := context.WithCancel(context.Background())
	defer stop()
	go rawClient(calls, srv.URL, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	go rawClient(calls, srv.URL, http.MethodPost, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
	<-greetIn
	guard, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang, not a measure
	defer cancel()
	deleted := make(chan error, 1)
	go func() {
		resp, err := rawClient(guard, srv.URL, http.MethodDelete, id, "")
		if err == nil {
			resp.Body.Close()
		}
		deleted <- err
	}()
	for !h.Deleting(id) {
		if guard.Err() != nil {
			t.Fatal("the DELETE did not begin")
		}
		time.Sleep(5 * time.Millisecond)
	}
	let()
	if err := <-deleted; err != nil {
		t.Fatalf("the DELETE, with a call begun during it: %v", err)
	}
	waitNoSessions(t, s, "after its DELETE")
}

// A DELETE the go-sdk refuses (here, a protocol version it does not
// speak) ends nothing: the session's call that waits for its answer still
// gets it, and returns what it asked for.
func TestARefusedDeleteEndsNoCall(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{QuestionTimeout: 2 * time.Minute, SessionTimeout: time.Hour})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	id := openAsking(t, srv.URL)
	guard, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang, not a measure
	defer cancel()
	call, err := rawClient(guard, srv.URL, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
	if err != nil {
		t.Fatal(err)
	}
	defer call.Body.Close()
	lines := bufio.NewScanner(call.Body)
	var question struct {
		ID json.RawMessage `json:"id"`
	}
	for lines.Scan() {
		if l, ok := strings.CutPrefix(lines.Text(), "data: "); ok && strings.Contains(l, `"elicitation/create"`) {
			if err := json.Unmarshal([]byte(l), &question); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if question.ID == nil {
		t.Fatalf("no question on the call's stream: %v", lines.Err())
	}
	resp, err := rawClient(guard, srv.URL, http.MethodDelete, id, "", "Mcp-Protocol-Version", "1999-01-01")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a DELETE with protocol 1999-01-01: %d, want the go-sdk's 400", resp.StatusCode)
	}
	// The question is answered after all: the call goes on.
	answer := `{"jsonrpc":"2.0","id":` + string(question.ID) + `,"result":{"action":"accept","content":{"name":"ann"}}}`
	if resp, err = rawClient(guard, srv.URL, http.MethodPost, id, answer); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), `"id":2`) {
			break
		}
	}
	if !strings.Contains(rest.String(), "hello ann (accept)") {
		t.Fatalf("the call after a refused DELETE:\n%s", rest.String())
	}
}

// One server served by two Handlers (two paths, say): each Handler acts on
// the initializes it served only, and a session of either works after its
// initialize.
func TestOneServerTwoHandlers(t *testing.T) {
	s := askingServer()
	mux := http.NewServeMux()
	mux.Handle("/a", endpoint.New(func(*http.Request) *mcp.Server { return s }, nil))
	mux.Handle("/b", endpoint.New(func(*http.Request) *mcp.Server { return s }, nil))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang, not a measure
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	for _, path := range []string{"/a", "/b", "/a", "/b"} {
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + path, DisableStandaloneSSE: true, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := cs.Ping(ctx, nil); err != nil {
			t.Errorf("%s: a ping after the initialize: %v", path, err)
		}
		defer cs.Close()
	}
}

// An initialize the go-sdk cannot read is answered with an error and a
// session id, and the go-sdk closes that session at once: it does not
// count against anyone's places.
func TestAFailedInitializeCountsNoSession(t *testing.T) {
	s := askingServer()
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{SessionTimeout: time.Hour})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":"nope","clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}`,
	} {
		resp, err := rawClient(context.Background(), srv.URL, http.MethodPost, "", body)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	waitNoSessions(t, s, "after initializes that failed")
	if n := h.Sessions(); n != 0 {
		t.Errorf("the Handler counts %d session(s) of initializes that failed", n)
	}
}

// The go-sdk's checks are asked of the DELETE itself: with cross-origin
// protection that lets a cross-site DELETE through (a bypass that names
// the method), that DELETE still ends the session's waiting call, and is
// answered at once.
func TestADeleteLetThroughByABypassEndsTheCalls(t *testing.T) {
	s := askingServer()
	cop := http.NewCrossOriginProtection()
	cop.AddInsecureBypassPattern("DELETE /")
	opts := &endpoint.Options{QuestionTimeout: 2 * time.Minute, SessionTimeout: time.Hour}
	opts.HTTP.CrossOriginProtection = cop //lint:ignore SA1019 the go-sdk still applies it, and a server built on Options.HTTP may set it
	h := endpoint.New(func(*http.Request) *mcp.Server { return s }, opts)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	id := openAsking(t, srv.URL)
	callCtx, cut := context.WithCancel(context.Background())
	defer cut()
	resp, err := rawClient(callCtx, srv.URL, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
	if err != nil {
		t.Fatal(err)
	}
	untilQuestion(t, resp.Body)
	cut()
	resp.Body.Close()
	guard, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang, not a measure
	defer cancel()
	if resp, err = rawClient(guard, srv.URL, http.MethodDelete, id, "", "Sec-Fetch-Site", "cross-site"); err != nil {
		t.Fatalf("a cross-site DELETE the bypass lets through, of a session whose question waits: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	waitNoSessions(t, s, "after its DELETE")
}

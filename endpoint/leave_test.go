package endpoint_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
			if how == "idle" {
				opts.SessionTimeout = 200 * time.Millisecond
			}
			h := endpoint.New(func(*http.Request) *mcp.Server { return s }, opts)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			send := func(ctx context.Context, method, session, body string) (*http.Response, error) {
				req, _ := http.NewRequestWithContext(ctx, method, srv.URL, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
					req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				}
				return http.DefaultClient.Do(req)
			}
			resp, err := send(context.Background(), http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"x","version":"1"}}}`)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			id := resp.Header.Get("Mcp-Session-Id")
			if id == "" {
				t.Fatalf("initialize: %d, no session", resp.StatusCode)
			}
			if resp, err = send(context.Background(), http.MethodPost, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()

			// The call's stream brings the question; then the client is gone.
			callCtx, cut := context.WithCancel(context.Background())
			defer cut()
			resp, err = send(callCtx, http.MethodPost, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
			if err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(resp.Body)
			for lines.Scan() && !strings.Contains(lines.Text(), `"elicitation/create"`) {
			}
			if lines.Err() != nil {
				t.Fatalf("the call's stream ended before its question: %v", lines.Err())
			}
			cut()
			resp.Body.Close()

			guard, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang, not a measure
			defer cancel()
			if how == "DELETE" {
				resp, err := send(guard, http.MethodDelete, id, "")
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

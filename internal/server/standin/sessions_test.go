package standin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// initialize opens a 2025-11-25 session at url as a client that never
// closes it (nor holds a stream): what an ordinary TypeScript SDK client
// leaves behind. It returns the answer's status and text, and the session's id.
func initialize(t *testing.T, url string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"left","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")
}

// Clients at one address that leave their sessions open do not lock the
// next ones out: when every place is taken, a new session takes the place
// of the one idle the longest (as the endpoint's bound per caller does),
// places kept for other addresses notwithstanding.
func TestSessionsOfLeftClientsMakeRoom(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	hs := httptest.NewServer(s.Handler(HTTPOptions{MaxSessions: 10}))
	defer hs.Close()
	for i := range 25 {
		if code, text, _ := initialize(t, hs.URL+"/mcp"); code != http.StatusOK {
			t.Fatalf("client %d: %d %s", i+1, code, text)
		}
	}
}

// When every session is busy, a new one is refused, with the text the
// stand-in's server gave (Full: what to raise).
func TestSessionsAllBusyRefusalSaysWhatToRaise(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	hs := httptest.NewServer(s.Handler(HTTPOptions{MaxSessions: 1, Full: "raise --max-sessions"}))
	defer hs.Close()
	code, text, id := initialize(t, hs.URL+"/mcp")
	if code != http.StatusOK || id == "" {
		t.Fatalf("the first client: %d %s (session %q)", code, text, id)
	}
	// A stream held open keeps the session busy.
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", resp.StatusCode)
	}
	code, text, _ = initialize(t, hs.URL+"/mcp")
	if code != http.StatusServiceUnavailable || !strings.HasSuffix(text, "which needs none (raise --max-sessions)\n") {
		t.Errorf("the second client: %d %q", code, text)
	}
}

// A client of 2025-11-25 that never answers its question is one entry of
// the report, unanswered, before and after the toolkit's bound on the
// wait ends the call: in the report's words, not the toolkit's.
func TestUnansweredQuestionTimedOut(t *testing.T) {
	s, log := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	hs := httptest.NewServer(s.Handler(HTTPOptions{QuestionTimeout: 50 * time.Millisecond}))
	defer hs.Close()
	defer hs.CloseClientConnections()
	gone := make(chan struct{})
	c := mcp.NewClient(&mcp.Implementation{Name: "gone", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			select { // never answers
			case <-gone:
			case <-ctx.Done():
			}
			return nil, errors.New("gone")
		}})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	defer close(gone) // before the client closes: it waits for its handler
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "auth"}})
	if err == nil && !res.IsError {
		t.Fatalf("the call was answered: %+v", res)
	}
	r := s.Report()
	if len(r.Problems) != 1 {
		t.Fatalf("problems: %+v", r.Problems)
	}
	p := r.Problems[0]
	want := "the client was asked and did not answer within 50ms (it left mid-question?)"
	if p.Kind != ProblemUnanswered || p.Detail != want || p.Request != "tools/call deploy" {
		t.Errorf("problem: %+v, want unanswered: %s", p, want)
	}
	if strings.Contains(log.String(), "endpoint.") || strings.Contains(log.String(), "deadline") {
		t.Errorf("the log speaks the toolkit's words: %s", log)
	}
}

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/testsupport/bodylimit"
)

// A request body over the limit is refused with 413 before the server reads it.
func TestHTTPBodyIsBounded(t *testing.T) {
	hs := httptest.NewServer(httpHandler(newServer(), false, &endpoint.Options{MaxSessions: 10}))
	t.Cleanup(hs.Close)
	bodylimit.Refused(t, hs.URL+"/mcp", maxRequestBody, nil)
}

// A client cannot fill the server with sessions (each holds a goroutine
// and memory until it is closed or idle for 10 minutes): beyond the limit an
// initialize gets 503, and a request without a session opens none.
func TestSessionsAreBounded(t *testing.T) {
	hs := httptest.NewServer(httpHandler(newServer(), false, &endpoint.Options{MaxSessions: 2}))
	t.Cleanup(hs.Close)
	post := func(body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for i := range 2 {
		if resp, body := post(initialize); resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize %d: %d %s", i, resp.StatusCode, body)
		}
	}
	if resp, body := post(initialize); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "too many open sessions") {
		t.Fatalf("a third session: %d %s, want 503", resp.StatusCode, body)
	}
	if resp, _ := post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.Header.Get("Mcp-Session-Id") != "" || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a request without a session: %d, session %q; want 400 and none", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
}

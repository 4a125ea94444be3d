package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/reqstate"
)

// A request body over the limit is refused with 413 before the server reads it.
func TestHTTPBodyIsBounded(t *testing.T) {
	hs := httptest.NewServer(httpHandler(newServer(mustCodec(t))))
	t.Cleanup(hs.Close)
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(strings.Repeat("a", maxRequestBody+1)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}

func mustCodec(t *testing.T) *reqstate.Codec {
	t.Helper()
	c, err := newCodec("")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

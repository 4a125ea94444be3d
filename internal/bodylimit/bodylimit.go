// Package bodylimit checks, in tests, that an HTTP endpoint refuses a request
// body over its limit: every example server bounds what a client may send.
package bodylimit

import (
	"bytes"
	"net/http"
	"testing"
)

// Refused posts limit+1 bytes to url, with the headers of an MCP request and
// the given extra ones, and fails tb unless the answer is 413.
func Refused(tb testing.TB, url string, limit int, extra http.Header) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(bytes.Repeat([]byte("a"), limit+1)))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range extra {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		tb.Fatalf("POST %s with %d bytes: status %d, want 413", url, limit+1, resp.StatusCode)
	}
}

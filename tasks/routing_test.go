package tasks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/testsupport/bodylimit"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzRoutingHeaders feeds request bodies, which come from the client,
// through the wrapper: a body that goes on must reach the handler whole.
func FuzzRoutingHeaders(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"a"}}`, "a")
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"a"}}`, "b")
	f.Add(`{"jsonrpc":"2.0","id":"x","method":"tasks/cancel","params":{}}`, "b")
	f.Add(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`, "x")
	f.Add(`not json`, "a")
	f.Fuzz(func(t *testing.T, body, name string) {
		var got string
		reached := false
		h := tasks.RoutingHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reached = true
			b, _ := io.ReadAll(r.Body)
			got = string(b)
		}))
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Mcp-Name", name)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if reached && got != body {
			t.Fatalf("the handler got %q, want %q", got, body)
		}
		if !reached && rec.Code != http.StatusBadRequest {
			t.Fatalf("refused with HTTP %d", rec.Code)
		}
	})
}

// RoutingHeaders reads a body within the limit of the handler it wraps: in
// front of an endpoint that takes 1 KiB, a megabyte with Mcp-Name is refused
// with 413 after 1 KiB and a byte, not read to 4 MiB.
func TestRoutingHeadersReadsWithinTheServersLimit(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := tasks.RoutingHeaders(endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{HTTP: mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 1024}}))
	body := bodylimit.NewCounting(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + strings.Repeat("a", 1<<20) + `"}}`)
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Body = body
	req.Header.Set("Mcp-Name", "a")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || body.BytesRead() > 1025 {
		t.Fatalf("a 1 MiB body in front of a 1 KiB limit: HTTP %d after reading %d bytes, want 413 after at most 1025", rec.Code, body.BytesRead())
	}
}

// RoutingHeaders reads a body within the time of the handler it wraps: a
// body with Mcp-Name that trickles is answered 408 when the endpoint's
// BodyReadTimeout has passed, on a plain http.Server without timeouts.
func TestRoutingHeadersReadsWithinTheServersTime(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv := httptest.NewServer(tasks.RoutingHeaders(endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{BodyReadTimeout: 300 * time.Millisecond})))
	defer srv.Close()
	bodylimit.Stalls(t, srv.Listener.Addr().String(), "POST /mcp HTTP/1.1\r\nHost: x\r\nMcp-Name: a\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
}

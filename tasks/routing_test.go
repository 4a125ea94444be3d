package tasks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/tasks"
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

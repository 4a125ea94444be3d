package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
)

// A server whose Mcp-Session-Id holds what a header cannot carry (control
// characters) is told so, naming the header, escaped; the earlier answer
// that was fine (server/discover's "method not found") is not quoted as
// the cause.
func TestSessionIDAHeaderCannotCarry(t *testing.T) {
	const sid = "abc\x1b]0;PWNED\x07\x1b[31mRED"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case len(m.ID) == 0:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", sid)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sid","version":"1"}}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"method not found"}}`)
		}
	}))
	defer hs.Close()
	s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: 10 * time.Second})
	if err == nil {
		defer s.Close()
		_, _, err = s.ListTools(context.Background(), Pages{})
	}
	if err == nil {
		t.Fatal("no error for a session id with control characters")
	}
	msg := err.Error()
	var hv *target.HeaderValueError
	if !errors.As(err, &hv) || hv.Header != "Mcp-Session-Id" || KindOf(err) != KindProtocol {
		t.Errorf("error %v (kind %v), want a HeaderValueError for Mcp-Session-Id of kind protocol", err, KindOf(err))
	}
	if !strings.Contains(msg, `the server's Mcp-Session-Id "abc\x1b]0;PWNED\a\x1b[31mRED" holds characters a header cannot carry (a session id is visible ASCII only)`) {
		t.Errorf("message does not name the session id, escaped: %s", msg)
	}
	if strings.Contains(msg, "not with JSON-RPC") || strings.Contains(msg, "method not found") || strings.ContainsAny(msg, "\x1b\x07") {
		t.Errorf("message quotes a stale answer or raw control characters: %s", msg)
	}
}

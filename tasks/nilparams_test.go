package tasks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tasks/get, tasks/update and tasks/cancel with "params": null or without
// params, in a 2025-11-25 session that declared the extension and with an
// Mcp-Name header, are answered with an error. (The routing header check
// read the task id through the nil params: a panic in the go-sdk's handler
// goroutine, which ends the whole server process.)
func TestTaskMethodsWithoutParams(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "nil-params", Version: "1"}, nil)
	if _, err := tasks.Install(server, nil); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(hs.Close)
	send := func(session, name, body string) (string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	id, _ := send("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"`+tasks.ExtensionID+`":{}}},"clientInfo":{"name":"x","version":"1"}}}`)
	if id == "" {
		t.Fatal("no session")
	}
	send(id, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, m := range []string{tasks.MethodGet, tasks.MethodUpdate, tasks.MethodCancel} {
		for _, params := range []string{`,"params":null`, ``} {
			for _, name := range []string{"x", ""} {
				_, body := send(id, name, `{"jsonrpc":"2.0","id":2,"method":"`+m+`"`+params+`}`)
				if !strings.Contains(body, `"error"`) {
					t.Errorf("%s%s, Mcp-Name %q: %s, want an error", m, params, name, body)
				}
			}
		}
	}
}

package endpoint_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends one JSON-RPC body as written and returns the status and the
// answer.
func postRaw(t *testing.T, url string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Answers the go-sdk would read otherwise than other readers (one key
// twice: decline, then accept; "Action" for "action") are refused with
// -32602 before the go-sdk reads them, on both eras; a plain answer is
// served.
func TestAmbiguousAnswersAreRefused(t *testing.T) {
	_, url := serve(t, nil)
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "greet"}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	call := func(responses string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + meta + `,"name":"greet","inputResponses":` + responses + `}}`
	}
	for _, c := range []struct{ responses, want string }{
		{`{"name":{"action":"decline"},"name":{"action":"accept","content":{"name":"mallory"}}}`, `key \"name\" appears twice in the object at $.params.inputResponses`},
		{`{"name":{"action":"decline","action":"accept","content":{"name":"mallory"}}}`, `key \"action\" appears twice in the object at $.params.inputResponses.name`},
		{`{"name":{"action":"decline","Action":"accept","content":{"name":"mallory"}}}`, `keys \"action\" and \"Action\" differ only in letter case`},
		{`{"name":{"ACTION":"accept","content":{"name":"mallory"}}}`, `not spelled as the protocol spells them`},
	} {
		status, got := postRaw(t, url, modern, call(c.responses))
		if status != http.StatusOK || !strings.Contains(got, `"id":3,"error":{"code":-32602`) || !strings.Contains(got, c.want) || strings.Contains(got, "hello") {
			t.Errorf("inputResponses %s: %d %s, want -32602 with %s", c.responses, status, got, c.want)
		}
	}
	if status, got := postRaw(t, url, modern, call(`{"name":{"action":"accept","content":{"name":"ann"}}}`)); status != http.StatusOK || !strings.Contains(got, "hello ann (accept)") {
		t.Errorf("a plain answer: %d %s", status, got)
	}
	// A 2025-11-25 request without a session, and a batch.
	old := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	if status, got := postRaw(t, url, old, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}`); status != http.StatusOK || !strings.Contains(got, `"id":4,"error":{"code":-32602`) {
		t.Errorf("a 2025-11-25 request with a key twice: %d %s", status, got)
	}
	if status, got := postRaw(t, url, old, `[{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}]`); status != http.StatusBadRequest || !strings.Contains(got, "could be read two ways") {
		t.Errorf("a batch with a key twice: %d %s", status, got)
	}
	// "Method" is no initialize to the go-sdk: no session is opened for it.
	if status, got := postRaw(t, url, old, `{"jsonrpc":"2.0","id":6,"method":"ping","Method":"initialize","params":{}}`); strings.Contains(got, `"protocolVersion"`) {
		t.Errorf(`"Method":"initialize": %d %s, opened a session`, status, got)
	}
}

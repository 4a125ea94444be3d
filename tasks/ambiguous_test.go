package tasks_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/askback/askback/tasks"
)

// rawCall posts one JSON-RPC request as alice, exactly as written, with the
// Mcp-Name header name (none if empty), and returns the decoded response and
// its HTTP status.
func rawCall(t *testing.T, url, method, name, params string) (map[string]any, int) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `,` + params + `}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer user:alice")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf strings.Builder
	_, _ = bufCopy(&buf, resp)
	raw := buf.String()
	if i := strings.Index(raw, "{"); i >= 0 {
		raw = strings.TrimSpace(raw[i:])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("decode %q: %v", raw, err)
	}
	return m, resp.StatusCode
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// Arguments and answers whose objects repeat a key, or hold keys that differ
// only in letter case, are refused: encoding/json would read the last of
// them case-insensitively, the go-sdk the exact one.
func TestAmbiguousArgumentsAndAnswersAreRefused(t *testing.T) {
	server, _ := newServer(t, nil)
	hs := httpServer(t, server)
	for _, args := range []string{`{"a":1,"A":2}`, `{"a":{"b":1,"b":2}}`} {
		m, _ := rawCall(t, hs.URL, "tools/call", "confirm", `"name":"confirm","arguments":`+args)
		if errorCode(m) != -32602 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "ambiguous") {
			t.Errorf("tools/call with arguments %s: %v, want -32602 naming the ambiguity", args, m)
		}
	}

	alice := httpClient(t, hs.URL, "alice")
	ct := start(t, alice, "confirm")
	waitFor(t, alice, ct.TaskID, tasks.StatusInputRequired)
	for _, answer := range []string{
		`{"action":"decline","Action":"accept","content":{"confirm":true}}`,
		`{"action":"accept","content":{"confirm":false,"confirm":true}}`,
		`{"action":"accept","content":{"confirm":true,"Confirm":false}}`,
	} {
		m, _ := rawCall(t, hs.URL, "tasks/update", ct.TaskID, `"taskId":"`+ct.TaskID+`","inputResponses":{"confirm":`+answer+`}`)
		if errorCode(m) != -32602 {
			t.Errorf("tasks/update with %s: %v, want -32602", answer, m)
		}
	}
	g := waitFor(t, alice, ct.TaskID, tasks.StatusInputRequired)
	if g.Status != tasks.StatusInputRequired {
		t.Errorf("an ambiguous answer changed the task: %+v", g)
	}
}

// One question's answer given twice in inputResponses (decline, then
// accept) is refused, not taken last-wins; and capabilities in another
// case ("Extensions") are no declaration of the extension, as the go-sdk
// reads them.
func TestRepeatedAnswerKeysAndCaseVariantCapabilitiesAreRefused(t *testing.T) {
	server, _ := newServer(t, nil)
	hs := httpServer(t, server)
	alice := httpClient(t, hs.URL, "alice")
	ct := start(t, alice, "confirm")
	waitFor(t, alice, ct.TaskID, tasks.StatusInputRequired)
	m, _ := rawCall(t, hs.URL, "tasks/update", ct.TaskID, `"taskId":"`+ct.TaskID+`","inputResponses":{"confirm":{"action":"decline"},"confirm":{"action":"accept","content":{"confirm":true}}}`)
	if errorCode(m) != -32602 || !strings.Contains(m["error"].(map[string]any)["message"].(string), `key \"confirm\" appears twice`) && !strings.Contains(m["error"].(map[string]any)["message"].(string), `key "confirm" appears twice`) {
		t.Errorf("tasks/update with one answer twice: %v, want -32602 naming the key", m)
	}
	if g := waitFor(t, alice, ct.TaskID, tasks.StatusInputRequired); g.Status != tasks.StatusInputRequired {
		t.Errorf("the repeated answer changed the task: %+v", g)
	}

	// "Extensions" is not "extensions" to the go-sdk: a tool that needs
	// the extension is refused (-32021), no task is made.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"Extensions":{"io.modelcontextprotocol/tasks":{}}}},"name":"sleep"}}`
	req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer user:alice")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "sleep")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	_, _ = bufCopy(&buf, resp)
	resp.Body.Close()
	if got := buf.String(); !strings.Contains(got, "-32021") || strings.Contains(got, `"taskId"`) {
		t.Errorf("a call declaring the extension as \"Extensions\": %s, want -32021 and no task", got)
	}
}

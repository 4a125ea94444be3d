package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// An answer given twice in inputResponses (decline, then accept), which
// the go-sdk alone takes last-wins, is refused with -32602 naming the key
// before the tool sees it, as every path of the toolkit refuses it.
func TestRepeatedAnswerKeysAreRefused(t *testing.T) {
	s := newStack(t)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}},"name":"create_issue","arguments":{"repo":"octo-alice/hello","title":"Twice"},` +
		`"inputResponses":{"connect":{"action":"decline"},"connect":{"action":"accept"}}}}`
	req, _ := http.NewRequest(http.MethodPost, s.appURL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "create_issue")
	req.Header.Set("Authorization", "Bearer alice-mcp-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(got), `"id":7,"error":{"code":-32602`) || !strings.Contains(string(got), `key \"connect\" appears twice`) {
		t.Errorf("an answer given twice: HTTP %d %s, want -32602 naming the key", resp.StatusCode, got)
	}
}

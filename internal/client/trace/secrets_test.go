package trace_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/trace"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A call's secret arguments and the answers to a server's questions reach
// the trace hidden, unless --show-secrets; so do the values of headers
// named like credentials in words (X-Csrf, X-Passphrase, X-Pat) and a
// tenant's token under a header of its own.
func TestTraceHidesArgumentsAnswersAndHeaders(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(1))
	id2, _ := jsonrpc.MakeID(float64(7))
	msgs := []struct {
		sent bool
		msg  jsonrpc.Message
	}{
		{true, &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"login","arguments":{"user":"bob","password":"hunter2-pass","card":"4111111111111111"}}`)}},
		{false, &jsonrpc.Request{ID: id2, Method: "elicitation/create", Params: json.RawMessage(`{"message":"PIN?","requestedSchema":{"type":"object","properties":{"pin":{"type":"string"}}}}`)}},
		{true, &jsonrpc.Response{ID: id2, Result: json.RawMessage(`{"action":"accept","content":{"pin":"8642","otp":"913572"}}`)}},
	}
	for _, show := range []bool{false, true} {
		var buf bytes.Buffer
		rec := trace.New(&buf, trace.Options{ShowSecrets: show})
		for _, m := range msgs {
			rec.Observe(m.sent, m.msg)
		}
		got := buf.String()
		for _, secret := range []string{"hunter2-pass", "4111111111111111", "8642", "913572"} {
			if strings.Contains(got, secret) != show {
				t.Errorf("show=%v: the trace holds %q: %v\n%s", show, secret, !show, got)
			}
		}
		if !strings.Contains(got, `"user":"bob"`) {
			t.Errorf("the trace hides what is no secret:\n%s", got)
		}
	}
	hdrs := strings.Join(trace.RedactHeaders([]string{"X-Csrf: csrf-v4lue", "X-Passphrase: correct horse", "X-Pat: pat-v4lue",
		"X-Tenant: 7f3c9a0b2e4d4c1e9b8a6f5d", "X-Tenant-Tok: t3n4nt", "X-Region: eu-west-1"}), "\n")
	for _, secret := range []string{"csrf-v4lue", "correct horse", "pat-v4lue", "7f3c9a0b2e4d4c1e9b8a6f5d", "t3n4nt"} {
		if strings.Contains(hdrs, secret) {
			t.Errorf("RedactHeaders shows %q:\n%s", secret, hdrs)
		}
	}
	if !strings.Contains(hdrs, "X-Region: eu-west-1") {
		t.Errorf("an ordinary header was hidden:\n%s", hdrs)
	}
}

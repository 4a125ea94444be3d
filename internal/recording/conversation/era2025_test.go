package conversation

import (
	"fmt"
	"strings"
	"testing"
)

// A task of protocol 2025-11-25 ({"task": {...}}, no resultType) belongs to
// the call that started it: its tasks/get polls, the question the server
// asks while tasks/result waits (related to the task), and the result of
// tasks/result, which ends the call.
func TestTaskOf2025(t *testing.T) {
	r := rec(t, "stdio",
		`c2s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"survey","arguments":{"ask":true},"task":{}}}`,
		`s2c {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":1000}}}`,
		`c2s {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1"}}`,
		`s2c {"jsonrpc":"2.0","id":3,"result":{"taskId":"t1","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttl":1000}}`,
		`c2s {"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"t1"}}`,
		`s2c {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{}}}}`,
		`c2s {"jsonrpc":"2.0","id":7,"result":{"action":"decline"}}`,
		`s2c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}`,
	)
	c, err := Read(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := summary(c)
	want := `tools/call survey {"ask":true} rounds=1 [ "Who?" → {"action":"decline"}] result {"content":[{"type":"text","text":"done"}]} task t1 completed cancel=false` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "note") {
		t.Errorf("notes: %s", got)
	}
}

// A retry after the URL error -32042 continues the call: until the retry
// is answered the call has no end, and the error the first request got is
// not how it ended (a recording that ends while the retry waits leaves it
// open, with a note).
func TestRetryAfterURLErrorIsTheCallsLastRequest(t *testing.T) {
	const (
		call = `c2s {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"link"}}`
		fail = `s2c {"jsonrpc":"2.0","id":2,"error":{"code":-32042,"message":"authorize first","data":{"elicitations":[{"mode":"url","url":"https://example.com/a","message":"Open it.","elicitationId":"e1"}]}}}`
	)
	r := rec(t, "stdio",
		`c2s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
		fmt.Sprintf(call, 2), fail, fmt.Sprintf(call, 3),
	)
	c, err := Read(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `tools/call link  rounds=2 [ "Open it." → {"action":"accept"}] open` + "\nnote 4: tools/call link has no result: the recording ends first\n"
	if got := summary(c); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if call := c.Calls[0]; call.Ended || call.Err != nil || call.ResultLine != 0 {
		t.Errorf("the call ended (%v) with %v at line %d; want it open", call.Ended, call.Err, call.ResultLine)
	}
}

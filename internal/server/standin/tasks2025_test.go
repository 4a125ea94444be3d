package standin

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// params.task is moved into _meta on its way in, unless the params hold
// a key twice or keys that differ in case only: rewritten, those would
// pass the checks after it as one.
func TestMovedTaskParam(t *testing.T) {
	moved, ok := movedTaskParam(json.RawMessage(`{"name":"survey","task":{"ttl":5},"_meta":{"a":1}}`))
	if !ok || string(moved) != `{"_meta":{"a":1,"askback.standin/task":{"ttl":5}},"name":"survey"}` {
		t.Errorf("moved %s, %v", moved, ok)
	}
	for _, in := range []string{
		`{"name":"survey"}`,
		`{"name":"survey","task":{},"task":{}}`,
		`{"name":"survey","task":{},"Task":{}}`,
		`not json`,
	} {
		if got, ok := movedTaskParam(json.RawMessage(in)); ok || string(got) != in {
			t.Errorf("%s: moved to %s", in, got)
		}
	}
}

func TestTaskBodies(t *testing.T) {
	var got []byte
	h := taskBodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","task":{}}}`,
			`{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"askback.standin/task":{}},"name":"s"}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","task":{}},"id":2}`, ""},
		// The go-sdk matches keys as written: "Method" is no method to it.
		{`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"s","task":{}}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t","task":{}}}`, ""},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader([]byte(c.in))))
		want := c.want
		if want == "" {
			want = c.in
		}
		if string(got) != want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.in, got, want)
		}
	}
	if !strings.Contains(string(got), "tasks/get") {
		t.Fatal("the handler was not reached")
	}
}

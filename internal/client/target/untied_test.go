package target

import (
	"strings"
	"testing"
)

// Whatever a server writes, readUntied either reads one JSON-RPC error tied
// to no request, shown as one escaped line, or nothing; it never panics.
func FuzzReadUntied(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"no id"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"tied"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"\u001b[2J\nsecond line"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}} trailing`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"error"`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		u := readUntied(b)
		if u == nil {
			return
		}
		if u.Err == nil {
			t.Fatalf("%q read as an untied error without its error", b)
		}
		if s := u.String(); strings.ContainsAny(s, "\x1b\n\r") {
			t.Errorf("%q shown as %q: not one escaped line", b, s)
		}
	})
}

// The TypeScript SDK's refusal (no id) and JSON-RPC's (id null) are read;
// an error tied to a request is not.
func TestReadUntied(t *testing.T) {
	if u := readUntied([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)); u == nil || u.NoID || u.Err.Code != -32000 {
		t.Errorf("id null: %+v", u)
	}
	if u := readUntied([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Session not found"}}`)); u == nil || !u.NoID {
		t.Errorf("no id: %+v", u)
	}
	if u := readUntied([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"tied"}}`)); u != nil {
		t.Errorf("an error with an id read as untied: %+v", u)
	}
}

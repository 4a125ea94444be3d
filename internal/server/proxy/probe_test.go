package proxy

import (
	"bytes"
	"encoding/json"
	"testing"
)

// probes are bodies a client may post: messages as clients write them,
// and the spellings where reading the keys as written and decoding them
// could part (letter case, escapes, repeats, values of every kind).
var probes = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
	` {"jsonrpc":"2.0","id":"a-1","method":"initialize"} `,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":7,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`,
	`{"JSONRPC":"2.0","ID":3,"Method":"ping"}`,
	`{"JsonRpc":null,"id":3,"method":"ping"}`,
	`{"jsonrpc":1,"id":3,"method":"ping"}`,
	`{"jsonrpc":{},"id":3,"method":"ping"}`,
	`{"jsonrpc":"2.0","jsonrpc":null}`,
	`{"jsonrpc":"2.0","JSONRPC":"2.0","id":1,"method":"m"}`,
	`{"json\u0072pc":"2.0","id":1,"method":"m"}`,
	`{"jſonrpc":"2.0","id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":"\u0000"}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"m"}`,
	`{"jsonrpc":"2.0","id" : { "a" : 1 } ,"method":"m"}`,
	`{"jsonrpc":"2.0","method":"m","method":"n","id":1}`,
	`{"jsonrpc":"2.0","id":1,"Method":"m","method":""}`,
	`{}`,
	`{"id":1,"method":"m"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
	`[]`,
	`[1]`,
	`"jsonrpc"`,
	`null`,
	`{"jsonrpc":"2.0","id":1,"method":"m"} x`,
	`{"jsonrpc":"2.0","id":1,"method":"m"`,
}

// The bodies read by their keys as written are read as decoding them
// reads them: whether they are JSON-RPC and the request's id.
func TestQuickProbeAgreesWithDecoding(t *testing.T) {
	for _, p := range probes {
		checkProbe(t, []byte(p))
	}
}

func FuzzQuickProbe(f *testing.F) {
	for _, p := range probes {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkProbe(t, body)
	})
}

func checkProbe(t *testing.T, body []byte) {
	t.Helper()
	trimmed := bytes.TrimSpace(body)
	want := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) && decodedRPC(trimmed)
	if got := isRPC(body); got != want {
		t.Errorf("isRPC(%s) = %v, decoding says %v", body, got, want)
	}
	if !json.Valid(body) {
		return
	}
	if got, want := requestID(body), decodedRequestID(body); !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		t.Errorf("requestID(%s) = %q, decoding says %q", body, got, want)
	}
}

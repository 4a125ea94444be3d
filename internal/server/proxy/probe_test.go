package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/askback/askback/internal/text/credential"
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

// A header line is what the credential rules make of it however often it
// comes, before and after the Handler's memory of lines is full.
func TestHeaderKindIsTheRules(t *testing.T) {
	h := NewHandler(HTTPOptions{Server: &url.URL{Scheme: "http", Host: "127.0.0.1:1"}})
	lines := [][2]string{{"Authorization", "Bearer abc.def"}, {"Content-Type", "application/json"},
		{"X-Tenant-Key", "Zq8vK3mN9pL2xR7tY4wB"}, {"X-Trace", " t0k3nValueThatLooksGenerated1234 "},
		{"Mcp-Name", "Zq8vK3mN9pL2xR7tY4wB"}, {"Cookie", "a=b"}, {"Accept", "sk-abcdefghijklmnopqrstuvwx"},
		{"User-Agent", "bench/1"}, {"X-Long", strings.Repeat("a1", maxKindLine)}}
	for i := range maxKinds + 10 {
		lines = append(lines, [2]string{"X-Filler", fmt.Sprint(i)})
	}
	for round := range 2 {
		for _, l := range lines {
			v := strings.TrimSpace(l[1])
			want := headerKind(0)
			switch {
			case credential.Name(l[0]) || credential.Token(v):
				want = kindCredential
			case credential.Header(l[0], v):
				want = kindGuessed
			}
			if got := h.headerKind(l[0], l[1]); got != want {
				t.Errorf("round %d: headerKind(%q, %q) = %d, the rules say %d", round, l[0], l[1], got, want)
			}
			if got := h.credentialName(l[0]); got != credential.Name(l[0]) {
				t.Errorf("round %d: credentialName(%q) = %v", round, l[0], got)
			}
		}
	}
	if len(h.kinds) > maxKinds || len(h.names) > maxKinds {
		t.Errorf("the Handler remembers %d lines and %d names, past its bound of %d", len(h.kinds), len(h.names), maxKinds)
	}
}

// The hop-by-hop headers, and those a Connection header names, are not
// copied; every other header is, all its values.
func TestCopyHeaderLeavesHopByHop(t *testing.T) {
	src := http.Header{"Connection": {"keep-alive, x-hop", "Upgrade"}, "Keep-Alive": {"timeout=5"}, "X-Hop": {"1"},
		"Upgrade": {"h2c"}, "Te": {"trailers"}, "Transfer-Encoding": {"chunked"}, "Content-Type": {"text/event-stream"},
		"X-Kept": {"a", "b"}, "Mcp-Session-Id": {"s"}}
	dst := http.Header{}
	copyHeader(dst, src)
	want := http.Header{"Content-Type": {"text/event-stream"}, "X-Kept": {"a", "b"}, "Mcp-Session-Id": {"s"}}
	if !reflect.DeepEqual(dst, want) {
		t.Errorf("copyHeader = %v, want %v", dst, want)
	}
}

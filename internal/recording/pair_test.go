package recording

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// An answer takes the request with its id in its session, the one sent on
// its stream when several wait with that id; the string "1" is not the
// number 1.
func TestWaitingPairsByIDSessionAndStream(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		x, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	var w waiting[string]
	w.Add("s1", "post-1", id(float64(1)), "first")
	w.Add("s1", "post-2", id(float64(1)), "second")
	w.Add("s2", "post-3", id(float64(1)), "other session")
	w.Add("s1", "post-4", id("1"), "string id")

	if streams, got := w.In("s1"); len(got) != 3 || got[0] != "first" || got[2] != "string id" || streams[1] != "post-2" {
		t.Fatalf("In(s1) = %q %q", streams, got)
	}
	if v, ok := w.Take("s1", "post-2", id(float64(1))); !ok || v != "second" {
		t.Errorf("Take on post-2 = %q, %v", v, ok)
	}
	if v, ok := w.Take("s1", "", id(float64(1))); !ok || v != "first" {
		t.Errorf("Take without a stream = %q, %v", v, ok)
	}
	if v, ok := w.Take("s1", "", id(float64(1))); ok {
		t.Errorf("a third answer took %q", v)
	}
	if got := w.Get("s1", id("1")); len(got) != 1 || got[0] != "string id" {
		t.Errorf("Get(\"1\") = %q", got)
	}
	if _, ok := CancelledID([]byte(`{"x":1}`)); ok {
		t.Error("an object is no request id")
	}
	if c, ok := CancelledID([]byte(`7`)); !ok || c != id(float64(7)) {
		t.Errorf("CancelledID(7) = %v, %v", c, ok)
	}
}

// An error whose id is null (a server that could not read the request)
// decodes as a response, and answers the one request sent on its stream;
// so does one without an id (as the TypeScript SDK writes it); a result
// without an id or with a null id is no message.
func TestNullIDErrorAnswersTheRequestOnItsStream(t *testing.T) {
	msg, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.ID.IsValid() || r.Error == nil {
		t.Fatalf("decoded %#v", msg)
	}
	if m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`)); err != nil {
		t.Error(err)
	} else if r, ok := m.(*jsonrpc.Response); !ok || r.ID.IsValid() || r.Error == nil {
		t.Errorf("decoded %#v", m)
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","result":{},"id":null}`,
		`{"jsonrpc":"2.0","result":{},"id":{"a":1}}`,
	} {
		if _, err := DecodeMessage([]byte(bad)); err == nil || strings.Contains(err.Error(), "request") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	one, _ := jsonrpc.MakeID(float64(1))
	var w waiting[string]
	w.Add("", "post-1", one, "probe")
	w.Add("", "post-2", one, "initialize")
	if v, ok := w.Take("", "post-1", r.ID); !ok || v != "probe" {
		t.Errorf("null id on post-1 took %q, %v", v, ok)
	}
	if v, ok := w.Take("", "", r.ID); ok {
		t.Errorf("null id on no stream took %q", v)
	}
	if v, ok := w.Take("", "post-2", one); !ok || v != "initialize" {
		t.Errorf("id 1 on post-2 took %q, %v", v, ok)
	}
}

// A recording's messages decode as the go-sdk decodes them.
func TestDecodeMessageAsTheSDK(t *testing.T) {
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":[1,2]}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":7,"result":null}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no","data":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":2.5,"method":"x"}`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":3}`,
		`[1]`,
	} {
		want, werr := jsonrpc.DecodeMessage([]byte(m))
		got, gerr := DecodeMessage([]byte(m))
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: go-sdk %v, here %v", m, werr, gerr)
			continue
		}
		if werr != nil {
			continue
		}
		wb, _ := jsonrpc.EncodeMessage(want)
		gb, _ := jsonrpc.EncodeMessage(got)
		if string(wb) != string(gb) {
			t.Errorf("%s: go-sdk %s, here %s", m, wb, gb)
		}
	}
}

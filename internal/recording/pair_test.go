package recording

import (
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
	var w Waiting[string]
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

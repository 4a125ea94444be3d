package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestCheckKeys(t *testing.T) {
	for _, c := range []struct {
		in, err string // err: "" for accepted, else a part of the message
	}{
		{``, ""},
		{`{}`, ""},
		{`null`, ""},
		{`{"to":"bob","amount":10}`, ""},
		{`{"a":{"b":1},"c":[{"b":2},{"b":3}]}`, ""},
		{`{"to":"bob","to":"mallory"}`, `key "to" appears twice in the object at $`},
		{`{"To":"mallory","to":"bob"}`, `keys "To" and "to" differ only in letter case in the object at $`},
		{`{"x":{"y":{"id":1,"ID":2}}}`, `in the object at $.x.y`},
		{`{"list":[{"ok":1},{"a":1,"A":2}]}`, `in the object at $.list[1]`},
		{`[[{"k":1,"K":2}]]`, `in the object at $[0][0]`},
		{`{"k":1,"\u212a":2}`, `differ only in letter case`},   // Kelvin sign
		{`{"s":1,"\u017f":2}`, `differ only in letter case`},   // long s
		{`{"\u0054o":1,"to":2}`, `differ only in letter case`}, // escaped "To"
		{`{"a":1} {"b":2}`, "more than one JSON value"},
		{`{"a":1`, "EOF"},
		{`{"a" 1}`, "invalid"},
	} {
		err := CheckKeys([]byte(c.in))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("CheckKeys(%s) = %v, want nil", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("CheckKeys(%s) = %v, want an error with %q", c.in, err, c.err)
		case strings.Contains(c.err, "object at") && !errors.Is(err, ErrAmbiguous):
			t.Errorf("CheckKeys(%s) = %v, want ErrAmbiguous", c.in, err)
		}
	}
}

// A handler that decodes with encoding/json acts on the last of two keys
// that differ in case; Decode refuses such input instead.
func TestDecodeRefusesWhatEncodingJSONReadsLoosely(t *testing.T) {
	var loose, strict struct {
		To string `json:"to"`
	}
	in := []byte(`{"to":"bob","To":"mallory"}`)
	if err := json.Unmarshal(in, &loose); err != nil || loose.To != "mallory" {
		t.Fatalf("encoding/json read %+v, %v: the attack no longer applies", loose, err)
	}
	if err := Decode(in, &strict); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("Decode = %v, %+v; want ErrAmbiguous", err, strict)
	}
	if err := Decode(nil, &strict); err != nil {
		t.Fatalf("Decode(empty) = %v", err)
	}
}

func TestFoldAgreesWithEncodingJSON(t *testing.T) {
	// Every pair encoding/json matches to one field must fold alike.
	for _, pair := range [][2]string{{"to", "TO"}, {"k", "\u212a"}, {"s", "\u017f"}, {"straße", "STRAßE"}, {"Σ", "ς"}} {
		if Fold(pair[0]) != Fold(pair[1]) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q", pair[0], Fold(pair[0]), pair[1], Fold(pair[1]))
		}
	}
	if Fold("a") == Fold("b") {
		t.Error("Fold merges different letters")
	}
}

func FuzzCheckKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"A":2}`, `{"a":[{"b":1}]}`, `[]`, `{"\u212a":1}`, `1`, `{"a":1}{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := CheckKeys(data)
		if errRepeats := CheckRepeats(data); err == nil && errRepeats != nil {
			// Folding only refuses more: what CheckKeys accepts has no
			// repeated key either.
			t.Fatalf("CheckKeys accepted %q, CheckRepeats refused it: %v", data, errRepeats)
		}
		if err != nil {
			return
		}
		// Accepted input is one valid JSON value (or nothing) whose objects
		// decode without losing a key.
		if len(strings.TrimSpace(string(data))) == 0 {
			return
		}
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("CheckKeys accepted %q, which encoding/json refuses: %v", data, err)
		}
	})
}

func TestCheckRepeats(t *testing.T) {
	for data, want := range map[string]string{
		`{"a":1,"A":2,"\u212a":3,"k":4}`: "",
		`{"a":{"b":1,"b":2}}`:            `ambiguous JSON object: key "b" appears twice in the object at $.a`,
		`[1] [2]`:                        "more than one JSON value",
	} {
		got := ""
		if err := CheckRepeats([]byte(data)); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckRepeats(%s) = %q, want %q", data, got, want)
		}
	}
}

// DecodeAsSDK reads a message as the go-sdk does: a key in another case is
// not the field (encoding/json would take it), a repeated key and anything
// after the value are refused.
func TestDecodeAsSDK(t *testing.T) {
	type params struct {
		Name string `json:"name"`
	}
	type msg struct {
		Method string `json:"method"`
		Params params `json:"params"`
	}
	for _, c := range []struct {
		in      string
		want    msg
		loose   msg    // what encoding/json reads, when it differs
		refused string // a part of the error
	}{
		{in: `{"method":"tools/call","params":{"name":"admin"}}`, want: msg{"tools/call", params{"admin"}}},
		{in: `{"Method":"tools/call","params":{"Name":"admin"}}`, want: msg{}, loose: msg{"tools/call", params{"admin"}}},
		{in: `{"method":"tools/call","params":{"name":"admin","Name":"whoami"}}`, want: msg{"tools/call", params{"admin"}}, loose: msg{"tools/call", params{"whoami"}}},
		{in: `{"method":"tools/list","Method":"tools/call"}`, want: msg{Method: "tools/list"}, loose: msg{Method: "tools/call"}},
		{in: `{"method":"tools/call","params":{"name":"whoami","name":"admin"}}`, refused: `key "name" appears twice in the object at $.params`},
		{in: `{"method":"ping"} {"method":"tools/call"}`, refused: "more than one JSON value"},
		{in: `{"method":"ping"} x`, refused: "invalid character"},
		{in: ``, refused: "no JSON value"},
	} {
		var got msg
		err := DecodeAsSDK([]byte(c.in), &got)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("DecodeAsSDK(%s) = %+v, %v; want an error with %q", c.in, got, err, c.refused)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("DecodeAsSDK(%s) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if c.loose != (msg{}) {
			var loose msg
			if json.Unmarshal([]byte(c.in), &loose) != nil || loose != c.loose {
				t.Errorf("encoding/json reads %s as %+v, not %+v: the case no longer shows the difference", c.in, loose, c.loose)
			}
		}
	}
}

// Whatever DecodeAsSDK accepts, the go-sdk's own reading of a JSON-RPC
// message (jsonrpc.DecodeMessage) finds the same method and params.
func FuzzDecodeAsSDKAgreesWithSDK(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin"}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","Name":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		`{"jsonrpc":"2.0","id":1,"METHOD":"x","params":[1]}`,
		`{"jsonrpc":"2.0","id":"x","method":"\u0074ools/list"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ours struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if DecodeAsSDK(data, &ours) != nil {
			return
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			if ours.Method != "" {
				t.Fatalf("%s: DecodeAsSDK read method %q, the go-sdk a response", data, ours.Method)
			}
			return
		}
		if req.Method != ours.Method || !bytes.Equal(bytes.TrimSpace(req.Params), bytes.TrimSpace(ours.Params)) {
			t.Fatalf("%s: DecodeAsSDK read %q %s, the go-sdk %q %s", data, ours.Method, ours.Params, req.Method, req.Params)
		}
	})
}

// deepObject is n objects nested one in the other through arrays.
func deepObject(n int) []byte {
	return []byte(strings.Repeat(`{"properties":[`, n) + "1" + strings.Repeat("]}", n))
}

// allocatedBy is the number of bytes f allocates on the heap (the
// process's, with f the only thing running in it).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkDeepNesting: CheckRepeats of objects nested just under half the
// bound (MaxDepth/2-1 levels): B/op, and B/input-byte, the bytes allocated
// for each byte read (an error's path is written only for the error: a
// few, not a number that grows with the depth). make bench (section
// allocs) runs it; BENCHMARKS.md gives the figure.
func BenchmarkDeepNesting(b *testing.B) {
	data := deepObject(MaxDepth/2 - 1)
	b.ReportAllocs()
	var bytes uint64
	for b.Loop() {
		bytes += allocatedBy(func() {
			if err := CheckRepeats(data); err != nil {
				b.Fatal(err)
			}
		})
	}
	b.ReportMetric(float64(bytes)/float64(b.N)/float64(len(data)), "B/input-byte")
}

// TestDeepNesting: nesting is bounded as encoding/json bounds it, and
// reading what is nested just under the bound takes memory in proportion
// to its size, not to its depth squared: ten times the depth allocates
// less than forty times the bytes (about nineteen now, its stack grown by
// doubling; a hundred if it grew with the depth squared). Counted bytes,
// from an emptied pool, which no load moves; the bytes a read
// allocates for each byte are a figure of BenchmarkDeepNesting (make
// bench, section allocs; BENCHMARKS.md, "Allocations per operation").
func TestDeepNesting(t *testing.T) {
	if err := CheckRepeats(deepObject(MaxDepth)); err == nil || !strings.Contains(err.Error(), "nested deeper than 10000 at $.properties[0].properties[0]") {
		t.Errorf("CheckRepeats of %d levels: %v", 2*MaxDepth, err)
	}
	read := func(n int) uint64 {
		data := deepObject(n)
		_ = CheckRepeats(data) // once before, as a process reads many
		// The reader keeps its stack in a sync.Pool, which a collection
		// may or may not have emptied by now: two empty it for certain
		// (the pool's victim cache survives one), so that both depths
		// are measured from the same state, whatever the load.
		runtime.GC()
		runtime.GC()
		return allocatedBy(func() {
			if err := CheckRepeats(data); err != nil {
				t.Fatal(err)
			}
		})
	}
	const deep = MaxDepth/2 - 1
	small, large := read(deep/10), read(deep)
	if large > 40*max(small, 1) {
		t.Errorf("reading %d levels allocated %d bytes, %d levels %d: more than 40 times for 10 times the depth", deep, large, deep/10, small)
	}
}

func TestDecodeKnown(t *testing.T) {
	type doc struct {
		To  string `json:"to"`
		Amt int    `json:"amt"`
	}
	var d doc
	if err := DecodeKnown([]byte(` {"to":"bob","amt":3} `), &d); err != nil || d != (doc{"bob", 3}) {
		t.Fatalf("DecodeKnown = %v, %+v", err, d)
	}
	for _, bad := range []string{``, ` `, `{"to":"bob","to":"eve"}`, `{"to":"bob","To":"eve"}`, `{"to":"bob","extra":1}`, `{"to":"bob"} {}`, `{"to":"bob"`, `{"amt":"3"}`} {
		if err := DecodeKnown([]byte(bad), &d); err == nil {
			t.Errorf("DecodeKnown(%q) accepted", bad)
		}
	}
}

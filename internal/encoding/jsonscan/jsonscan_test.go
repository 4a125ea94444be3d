package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Inputs on which Repeats must agree with strictjson.CheckRepeats; they
// seed the fuzz targets too.
var repeatCases = []string{
	``, ` `, `{}`, `[]`, `null`, `1`, `-0.5e+3`, `"x"`,
	`{"a":1,"A":2,"\u212a":3,"k":4}`,
	`{"a":{"b":1,"b":2}}`,
	`{"a":1,"\u0061":2}`,
	`{"\ud800":1,"\udfff":2}`,        // lone surrogates both decode to U+FFFD
	"{\"a\xff\":1,\"a\xfe\":2}",      // so does invalid UTF-8
	"{\"\xc3\xa9\":1,\"\\u00e9\":2}", // é raw and escaped
	`{"list":[{"ok":1},{"x":1,"x":2}]}`,
	`[[{"k":1,"k":2}]]`,
	`{"a.b":{"c":[0,{"d":1,"d":1}]}}`,
	`{"a":[1,2,{"b":[3,{"c":{}},{"c":1,"c":2}]}]}`,
	`{"x":{"a":1},"y":{"a":1},"x":0}`,
	`[1] [2]`, `{"a":1} x`, `{"a":1`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{,}`,
	`01`, `1.`, `1e`, `-`, `.5`, `+1`, `tru`, `nul`, `"\x"`, "\"\x01\"", `"\u12"`, `"abc`,
	"\ufeff{}", "\v{}", `{"a":"\/\b\f\n\r\t\"\\"}`,
}

func manyKeysObject(n int, repeat string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, "%q:%d,", fmt.Sprintf("k%d", i), i)
	}
	b.WriteString(repeat + `:0}`)
	return b.String()
}

func TestRepeatsAgreesWithCheckRepeats(t *testing.T) {
	cases := append([]string{}, repeatCases...)
	cases = append(cases,
		manyKeysObject(100, `"k7"`), manyKeysObject(100, `"k\u0037"`), manyKeysObject(100, `"new"`),
		manyKeysObject(manyKeys, `"k0"`), manyKeysObject(manyKeys+1, `"k0"`), manyKeysObject(manyKeys-1, `"k0"`),
		`{"o":`+manyKeysObject(40, `"k39"`)+`}`,
	)
	for _, in := range cases {
		same(t, []byte(in))
	}
}

// same fails t unless Repeats and CheckRepeats give the same verdict on
// data: both accept it, both refuse the same repeated key with the same
// message, or both refuse it as not JSON; and unless Repeats takes for
// JSON exactly what encoding/json does.
func same(t *testing.T, data []byte) {
	t.Helper()
	got, want := Repeats(data), refCheckRepeats(data)
	blank := len(bytes.TrimSpace(data)) == 0
	valid := json.Valid(data)
	switch {
	case blank:
		if got != nil {
			t.Fatalf("Repeats(%q) = %v, want nil (no value)", data, got)
		}
	case !valid:
		// Refused either way, for the first problem in the data: a key
		// twice before the syntax error, or the syntax error.
		if got == nil || want == nil || errors.Is(got, ErrAmbiguous) != errors.Is(want, ErrAmbiguous) ||
			errors.Is(want, ErrAmbiguous) && got.Error() != want.Error() {
			t.Fatalf("Repeats(%q) = %v, the reference %v; encoding/json refuses it", data, got, want)
		}
	case want == nil || got == nil:
		if want != got {
			t.Fatalf("Repeats(%q) = %v, CheckRepeats = %v", data, got, want)
		}
	default:
		if got.Error() != want.Error() || !errors.Is(got, ErrAmbiguous) {
			t.Fatalf("Repeats(%q) = %v, CheckRepeats = %v", data, got, want)
		}
	}
}

func TestRepeatsDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if err := Repeats([]byte(deep)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	deeper := "[" + deep + "]"
	if err := Repeats([]byte(deeper)); err == nil || json.Valid([]byte(deeper)) {
		t.Errorf("%d levels: %v (encoding/json valid: %v), want both to refuse", MaxDepth+1, err, json.Valid([]byte(deeper)))
	}
	// The path is built only for a repeat, from the open containers.
	path := strings.Repeat(`{"a":[`, 50) + `{"k":1,"k":2}` + strings.Repeat(`]}`, 50)
	same(t, []byte(path))
}

func FuzzRepeats(f *testing.F) {
	for _, s := range repeatCases {
		f.Add([]byte(s))
	}
	f.Add([]byte(manyKeysObject(30, `"k\u0031"`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > MaxDepth {
			return // CheckRepeats has no depth limit; encoding/json does
		}
		same(t, data)
	})
}

func TestScan(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // kind id method failed object content task type repeat
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":1,"a":2}}`, `request 1 tools/call false | false false false "" <nil>`},
		{`{"jsonrpc":"2.0","method":"notifications/progress"}`, `request <nil> notifications/progress false | false false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":"x\u0031","result":{"content":[]}}`, `response x1  false | true true false "" <nil>`},
		{`{"jsonrpc":"2.0","id":1.0,"result":{"content":null}}`, `response 1  false | true false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":7.9,"result":null}`, `response 7  false | false false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":7}`, `response 7  false | false false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":7,"result":[1]}`, `response 7  false | false false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":2,"result":{"task":null}}`, `response 2  false | true false true "" <nil>`},
		{`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{}}}`, `response 2  false | true false false "input_required" <nil>`},
		{`{"jsonrpc":"2.0","id":2,"result":{"resultType":5}}`, `response 2  false | true false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":2,"result":{"\u0063ontent":[{"type":"text","text":"a"}],"isError":true,"isError":false}}`,
			`response 2  false | true true false "" ambiguous JSON object: key "isError" appears twice in the object at $`},
		{`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","type":"image"}]}}`,
			`response 2  false | true true false "" ambiguous JSON object: key "type" appears twice in the object at $.content[0]`},
		{`{"jsonrpc":"2.0","id":2,"result":{"content":[]},"result":{"content":null}}`,
			`response 2  false | true false false "" ambiguous JSON object: key "result" appears twice in the JSON-RPC message`},
		{`{"jsonrpc":"2.0","id":2,"id":3,"result":{"content":[]}}`,
			`response 3  false | true true false "" ambiguous JSON object: key "id" appears twice in the JSON-RPC message`},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x","data":{"a":1,"a":2}}}`, `response 2  true | false false false "" <nil>`},
		{`{"jsonrpc":"2.0","id":2,"error":null,"result":{"content":[]}}`, `response 2  false | true true false "" <nil>`},
		{`{"jsonrpc":"1.0","id":2,"result":{}}`, `not`},
		{`{"id":2,"result":{}}`, `not`},
		{`{"jsonrpc":"2.0","result":{}}`, `not`},
		{`{"jsonrpc":"2.0","id":true,"result":{}}`, `not`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":null}} x`, `response 1  false | true false false "" <nil>`}, // the go-sdk reads the first value
		{`{"jsonrpc":"2.0","id":1,"result":{}`, `not`},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, `not`},
		{`<html>`, `not`},
	} {
		if got := describe(Scan([]byte(c.in))); got != c.want {
			t.Errorf("Scan(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func describe(m Message) string {
	kind := map[Kind]string{NotRPC: "not", Request: "request", Response: "response"}[m.Kind]
	if m.Kind == NotRPC {
		return kind
	}
	r := m.Result
	return fmt.Sprintf("%s %v %s %v | %v %v %v %q %v", kind, m.ID.Raw(), m.Method, m.Failed, r.Object, r.Content, r.Task, r.Type, m.Repeat)
}

// hasContent is the check the session made before the scan, on the
// result as the go-sdk decodes it: the reference for Result.Answered.
func hasContent(raw json.RawMessage) bool {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil || r == nil {
		return false
	}
	if c, ok := r["content"]; ok && !bytes.Equal(bytes.TrimSpace(c), []byte("null")) {
		return true
	}
	if _, ok := r["task"]; ok {
		return true
	}
	var rt string
	_ = json.Unmarshal(r["resultType"], &rt)
	return rt != "" && rt != "complete"
}

// What Scan finds in a message is what the go-sdk's decoder reads from it
// and what the checks on the decoded message found before: the same kind,
// id and method, the same answered verdict, the same repeated key in the
// result.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","result":{"content":[],"isError":true,"isError":false}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e0,"result":{"resultType":"input_required"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t"}},"error":null}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`))
	f.Add([]byte(`{"\u006asonrpc":"2.0","\u0069d":3,"result":{"\u0063ontent":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := Scan(data)
		msg, err := jsonrpc.DecodeMessage(data)
		if m.Kind == NotRPC {
			if err == nil {
				// The go-sdk would act on a message the scan did not see.
				t.Fatalf("Scan read nothing from %q, the go-sdk a %T", data, msg)
			}
			return
		}
		if err != nil {
			if json.Valid(data) && m.Kind == Response && m.Failed {
				return // an error the go-sdk cannot read: the call fails either way
			}
			t.Fatalf("Scan read %s from %q, which the go-sdk refuses: %v", describe(m), data, err)
		}
		switch d := msg.(type) {
		case *jsonrpc.Request:
			if m.Kind != Request || m.ID != d.ID || m.Method != d.Method {
				t.Fatalf("Scan read %s from %q, the go-sdk request %v %q", describe(m), data, d.ID.Raw(), d.Method)
			}
		case *jsonrpc.Response:
			if m.Kind != Response || m.ID != d.ID || m.Failed != (d.Error != nil) {
				t.Fatalf("Scan read %s from %q, the go-sdk response %v (error %v)", describe(m), data, d.ID.Raw(), d.Error)
			}
			if m.Failed {
				return
			}
			if got, want := m.Result.Answered(), hasContent(d.Result); got != want {
				t.Fatalf("Scan read %s from %q: answered %v, the decoded result %v", describe(m), data, got, want)
			}
			want := refCheckRepeats(d.Result)
			if m.Repeat == nil && want != nil || m.Repeat != nil && want != nil && m.Repeat.Error() != want.Error() && !strings.Contains(m.Repeat.Error(), "JSON-RPC message") {
				t.Fatalf("Scan read %s from %q; CheckRepeats of the result: %v", describe(m), data, want)
			}
			r, rerr := ScanResult(d.Result)
			if r != m.Result && !strings.Contains(fmt.Sprint(m.Repeat), "JSON-RPC message") || fmt.Sprint(rerr) != fmt.Sprint(want) {
				t.Fatalf("ScanResult(%s) = %+v, %v; Scan %+v; CheckRepeats %v", d.Result, r, rerr, m.Result, want)
			}
			// Keys that differ only in letter case in the result: the
			// verdict and message of strictjson.CheckKeys.
			if m.Repeat == nil && !strings.Contains(fmt.Sprint(m.Case), "JSON-RPC message") && !strings.Contains(fmt.Sprint(m.Case), "takes for") {
				if folded := refCheckKeys(d.Result); fmt.Sprint(folded) != fmt.Sprint(m.Case) {
					t.Fatalf("Scan read case %v from %q; CheckKeys of the result: %v", m.Case, data, folded)
				}
			}
		}
	})
}

// A key that differs from another only in letter case, or a member the
// protocol spells otherwise, is what a reader matching keys in any case
// (encoding/json) reads otherwise than the go-sdk.
func TestScanCase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false,"IsError":true}}`, `ambiguous JSON object: keys "isError" and "IsError" differ only in letter case in the object at $`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"IsError":true}}`, `ambiguous JSON object: the result has "IsError", which a reader that matches keys in any letter case takes for "isError" (the go-sdk does not)`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a","Text":"b"}]}}`, `keys "text" and "Text" differ only in letter case in the object at $.content[0]`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"Result":{"content":[],"isError":true}}`, `keys "result" and "Result" differ only in letter case in the JSON-RPC message`},
		{`{"jsonrpc":"2.0","id":1,"Result":{"content":[],"isError":true},"result":{"content":[]}}`, `the JSON-RPC message has "Result", which a reader that matches keys in any letter case takes for "result"`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"ERROR":{"code":1,"message":"x"}}`, `the JSON-RPC message has "ERROR", which a reader that matches keys in any letter case takes for "error"`},
		{`{"jsonrpc":"2.0","id":1,"ID":2,"result":{"content":[]}}`, `keys "id" and "ID" differ only in letter case in the JSON-RPC message`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete","ResultType":"task"}}`, `keys "resultType" and "ResultType"`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a":1,"A":2}}}`, `in the object at $.structuredContent`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"Content":1}}}`, `<nil>`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`, `<nil>`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false,"isError":true,"IsError":true}}`, `<nil>`}, // a repeat: m.Repeat
	} {
		m := Scan([]byte(c.in))
		if got := fmt.Sprint(m.Case); !strings.Contains(got, c.want) {
			t.Errorf("Scan(%s).Case = %s, want %s", c.in, got, c.want)
		}
	}
	if m := Scan([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}} {"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"no"}}`)); !m.Trailing || m.Failed {
		t.Errorf("a result and an error in one body: %+v, want the result, trailing", m)
	}
	if m := Scan([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n ")); m.Trailing {
		t.Errorf("space after a message: trailing")
	}
}

// Keys gives strictjson.CheckKeys' verdict and message.
func FuzzKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"A":2}`, `{"a":1,"a":2,"A":3}`, `{"a":1,"A":1,"a":2}`, `{"x":{"k":1,"\u212a":2}}`, `[{"s":1},{"S":1,"s":2}]`, `{"a":1}{`, `1`, ``,
		manyKeysObject(30, `"K0"`), manyKeysObject(30, `"k\u0031"`)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > MaxDepth {
			return
		}
		got, want := Keys(data), refCheckKeys(data)
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			if got != nil {
				t.Fatalf("Keys(%q) = %v, want nil (no value)", data, got)
			}
		case !json.Valid(data):
			// Refused either way, for what each met first.
			if got == nil || want == nil || errors.Is(got, ErrAmbiguous) != errors.Is(want, ErrAmbiguous) ||
				errors.Is(want, ErrAmbiguous) && got.Error() != want.Error() {
				t.Fatalf("Keys(%q) = %v, the reference %v; encoding/json refuses it", data, got, want)
			}
		case (got == nil) != (want == nil) || fmt.Sprint(got) != fmt.Sprint(want):
			t.Fatalf("Keys(%q) = %v, CheckKeys %v", data, got, want)
		}
	})
}

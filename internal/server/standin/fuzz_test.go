package standin

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askback/askback/internal/recording"
)

// A fault spec is read strictly: one that parses says the same thing when
// written again, within its bounds; anything else is an error, never a
// panic.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{
		"tools/call:delay=2s", "tools/call deploy:error=-32603:boom", "tools/list:drop",
		"tools/call:error=-32000", "resources/read file:///a:drop", "prompts/get p:delay=1ms",
		"tools/call:", ":drop", "tools/call deploy extra:drop", "tools/call:delay=-1s",
		"tools/call:error=0", "tools/call:error=+1", "tools/call:error=99999999999", "tools/call:error=-1:",
		"tools/list x:drop", "tool/call:drop", "tools/call:dorp", "tools/call:drop=1", "tools/call\x1b:drop",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		flt, err := ParseFault(spec)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: an empty error", spec)
			}
			return
		}
		if !utf8.ValidString(spec) || len(spec) > maxFaultSpec {
			t.Fatalf("%q accepted", spec)
		}
		switch flt.Kind {
		case FaultDelay:
			if flt.Delay <= 0 || flt.Delay > MaxFaultDelay {
				t.Fatalf("%q: delay %v", spec, flt.Delay)
			}
		case FaultError:
			if flt.Code == 0 || flt.Message == "" {
				t.Fatalf("%q: error %d %q", spec, flt.Code, flt.Message)
			}
		case FaultDrop:
		default:
			t.Fatalf("%q: kind %d", spec, flt.Kind)
		}
		if flt.Name != "" && !strings.HasPrefix(spec, flt.Method+" "+flt.Name+":") {
			t.Fatalf("%q: method %q name %q", spec, flt.Method, flt.Name)
		}
		if !flt.applies(flt.Method, flt.Name) {
			t.Fatalf("%q does not apply to what it names", spec)
		}
	})
}

// The match key of params is their canonical form: the same params
// written otherwise (keys in another order, other spacing, numbers
// spelled otherwise, _meta and the round's members added) have the same
// key, and a key is itself canonical.
func FuzzMatchKey(f *testing.F) {
	for _, s := range []string{
		`{"name":"deploy","arguments":{"service":"auth"}}`,
		`{"arguments":{"service":"auth","n":1.0,"list":[1,2,{"b":true,"a":null}]},"name":"deploy"}`,
		`{"name":"x","arguments":null}`, `{"name":"x"}`, `{}`, `null`, ``, `[]`, `"s"`,
		`{"name":"a","arguments":{"k":1e400}}`, `{"name":"a","Name":"b"}`, `{"name":"a","arguments":{"k":1,"k":2}}`,
		`{"uri":"file:///x"}`, `{"cursor":"c2"}`,
	} {
		f.Add("tools/call", s)
		f.Add("resources/read", s)
		f.Add("tools/list", s)
		f.Add("custom/method", s)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		key, err := matchKey(method, json.RawMessage(params))
		if err != nil {
			return
		}
		if !json.Valid([]byte(key)) {
			t.Fatalf("key %q of %q is not JSON", key, params)
		}
		// Written otherwise: indented, with _meta and a round's members.
		var members map[string]json.RawMessage
		if json.Unmarshal([]byte(params), &members) != nil || members == nil {
			return
		}
		members["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)
		members["requestState"] = json.RawMessage(`"opaque"`)
		members["inputResponses"] = json.RawMessage(`{"k":{"action":"decline"}}`)
		b, err := json.Marshal(members)
		if err != nil {
			return
		}
		var indented bytes.Buffer
		if json.Indent(&indented, b, "", "  ") != nil {
			return
		}
		again, err := matchKey(method, indented.Bytes())
		if err != nil {
			t.Fatalf("%q matched, %q (the same, written otherwise) did not: %v", params, indented.String(), err)
		}
		if again != key {
			t.Fatalf("the same params, two keys:\n%s\n%s", key, again)
		}
	})
}

// Any recording that reads builds into a script or says which line is
// wrong, never a panic; the results of a script decode.
func FuzzBuild(f *testing.F) {
	for _, name := range []string{"deploy-2026.jsonl", "deploy-2025.jsonl", "task-ext-asked.jsonl"} {
		b, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","inputResponses":{"a":{"roots":[]}},"requestState":"x"}}}
`)
	f.Fuzz(func(t *testing.T, text string) {
		rec, err := recording.Read(strings.NewReader(text), recording.ReadOptions{MaxEntries: 200})
		if err != nil {
			return
		}
		sc, err := Build(rec)
		if err != nil {
			if _, ok := err.(*recording.Error); !ok {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		// What a stand-in serves decodes: every question, every result.
		for _, x := range sc.Exchanges {
			for _, r := range x.Rounds {
				for _, q := range r.Questions {
					_, _ = inputRequest(q)
				}
			}
			if x.Ended && x.Err == nil {
				if _, err := decodeResult(x.Method, x.Result); err != nil {
					t.Fatalf("line %d: a result Build took does not decode: %v", x.ResultLine, err)
				}
			}
		}
	})
}

// movedTaskParam reads a client's params: whatever they are, it returns
// them untouched or moves exactly their task into _meta, leaving every
// other member as it came.
func FuzzMovedTaskParam(f *testing.F) {
	for _, s := range []string{`{"name":"s","task":{}}`, `{"name":"s","task":{"ttl":5},"_meta":{"a":1}}`, `{"name":"s"}`, `{"task":1,"Task":2}`, `{"task":{},"_meta":3}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		moved, ok := movedTaskParam(params)
		if !ok {
			if !bytes.Equal(moved, params) {
				t.Fatalf("params changed without a task moved: %s → %s", params, moved)
			}
			return
		}
		var in, out map[string]json.RawMessage
		if err := json.Unmarshal(params, &in); err != nil {
			t.Fatalf("moved the task of params that are no object: %s", params)
		}
		if err := json.Unmarshal(moved, &out); err != nil {
			t.Fatalf("moved params are no object: %s (%v)", moved, err)
		}
		if _, has := out["task"]; has {
			t.Fatalf("the task stayed: %s", moved)
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(out["_meta"], &meta); err != nil || !jsonEqual(meta[metaTaskParam], in["task"]) {
			t.Fatalf("the task is not in _meta: %s → %s", params, moved)
		}
		for k, v := range in {
			if k != "task" && k != "_meta" && !jsonEqual(out[k], v) {
				t.Fatalf("member %q changed: %s → %s", k, v, out[k])
			}
		}
	})
}

// jsonEqual says whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

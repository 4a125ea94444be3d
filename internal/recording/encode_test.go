package recording

import (
	"bytes"
	"encoding/json"
	"testing"
)

// texts are the texts an entry may hold: plain, empty, and with each
// kind of character json.Marshal escapes.
var texts = []string{"", "c2s", "POST", "/mcp?x=1", "post-12", "s1", "text/event-stream", "2026-07-28",
	`an event of type "x"`, `a\b`, "<b>", "a&b", "tab\there", "line\n", "\x00", "\x7f", "é", "\u2028", "\xff",
	"it's 100% fine; {ok} [yes] ~ ^ `q`"}

// messages are messages as they are recorded, and some json.Marshal
// rewrites (space, characters it escapes) or refuses.
var encodeMessages = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"hello"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a \"quoted\" \\ text"}]}}`,
	`{"a": 1}`, `{"a":"with space"}`, "{\"a\":\n1}", `{"a":"<tag>"}`, `{"a":"\u003c"}`, `{"a":"x&y"}`,
	"{\"a\":\"\u2028\"}", "{\"a\":\"\u2029\"}", `{"a":"é"}`, "{\"a\":\"\xff\"}", `[1,2]`, `"s"`, `12.5e3`,
	`{"a":`, `{"a":1}}`, `null`, `{"a":"\\"}`, `{"a":"\\\" <"}`,
}

var times = []float64{0, 0.001, 1, 12.345, 1234567.891, 1e-7, 5e-6, 1e21, 3e22, 1e20}

// An entry is written byte for byte as json.Marshal writes it.
func TestAppendEntryIsMarshal(t *testing.T) {
	var entries []Entry
	for i, at := range times {
		for j, s := range texts {
			m := encodeMessages[(i+j)%len(encodeMessages)]
			entries = append(entries,
				Entry{At: at, Dir: s},
				Entry{At: at, Dir: ClientToServer, Message: json.RawMessage(m), HTTP: &HTTP{}},
				Entry{At: at, Event: s, Note: texts[(j+1)%len(texts)], Raw: texts[(j+2)%len(texts)]},
				Entry{At: at, Dir: ServerToClient, Message: json.RawMessage(m), HTTP: &HTTP{Method: s, Path: "/mcp", Status: 200 + j,
					Session: texts[(j+3)%len(texts)], Stream: "post-1", EventID: s, LastEventID: s, ContentType: "application/json",
					ProtocolVersion: texts[(i+j)%len(texts)]}},
				Entry{At: at, HTTP: &HTTP{Status: -j, Stream: s}},
			)
		}
	}
	for _, m := range encodeMessages {
		entries = append(entries, Entry{At: 1.5, Dir: ClientToServer, Message: json.RawMessage(m)})
	}
	for _, e := range entries {
		checkEntry(t, e)
	}
	// The entries of a usual exchange are written without json.Marshal.
	usual := Entry{At: 12.345, Dir: ServerToClient, Message: json.RawMessage(encodeMessages[1]),
		HTTP: &HTTP{Method: "POST", Path: "/mcp", Status: 200, Stream: "post-1", ContentType: "text/event-stream", ProtocolVersion: "2026-07-28"}}
	if _, ok := appendEntry(nil, &usual); !ok {
		t.Errorf("appendEntry refused %+v", usual)
	}
}

func checkEntry(t *testing.T, e Entry) {
	t.Helper()
	want, err := json.Marshal(e)
	got, ok := appendEntry([]byte("kept"), &e)
	if !bytes.HasPrefix(got, []byte("kept")) {
		t.Fatalf("appendEntry lost what it appended to: %q", got)
	}
	got = got[len("kept"):]
	switch {
	case !ok && len(got) > 0:
		t.Errorf("appendEntry(%+v) refused, but appended %q", e, got)
	case !ok:
	case err != nil:
		t.Errorf("appendEntry(%+v) = %s, json.Marshal: %v", e, got, err)
	case !bytes.Equal(got, want):
		t.Errorf("appendEntry(%+v)\n = %s\nwant %s", e, got, want)
	}
}

func FuzzAppendEntry(f *testing.F) {
	f.Add(1.5, "c2s", []byte(encodeMessages[0]), "", "/mcp", 200, "note")
	f.Add(0.0, "", []byte(`{"a": "<"}`), "limit", "", 0, `"quoted"`)
	f.Fuzz(func(t *testing.T, at float64, dir string, msg []byte, event, path string, status int, note string) {
		e := Entry{At: at, Dir: dir, Message: msg, Event: event, Note: note}
		if path != "" || status != 0 {
			e.HTTP = &HTTP{Path: path, Status: status, EventID: dir}
		}
		checkEntry(t, e)
	})
}

// A message found plain by its top-level members is one DecodeMessage
// reads.
func TestPlainRPCAgreesWithDecodeMessage(t *testing.T) {
	for _, m := range plainProbes {
		checkPlainRPC(t, []byte(m))
	}
	for _, m := range plainProbes[:4] {
		if !plainRPC([]byte(m)) {
			t.Errorf("plainRPC(%s) = false, want true", m)
		}
	}
}

var plainProbes = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"x","result":{}}`,
	`{"jsonrpc":"2.0","id":-12,"result":null}`,
	`{"jsonrpc":"2.0","id":123456789012345678,"result":{}}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e999,"method":"m"}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":null,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":1}`,
	`{"jsonrpc":"2.0","id":[1],"method":"m"}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"m"}`,
	`{"json\u0072pc":"2.0","id":1,"method":"m"}`,
	`{"JSONRPC":"2.0","id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`,
	`{"jsonrpc":"2.0","i\u0064":1,"id":2,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"result":1}`,
	`{"jsonrpc":"2.0"}`,
	`{}`, `[]`, `null`, `"x"`, `1`,
}

func FuzzPlainRPC(f *testing.F) {
	for _, m := range plainProbes {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if json.Valid(msg) {
			checkPlainRPC(t, msg)
		}
	})
}

func checkPlainRPC(t *testing.T, msg []byte) {
	t.Helper()
	if !plainRPC(msg) {
		return
	}
	if _, err := DecodeMessage(msg); err != nil {
		t.Errorf("plainRPC(%s), but DecodeMessage: %v", msg, err)
	}
}

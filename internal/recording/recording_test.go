package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func fixedClock() func() time.Time {
	t := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(1500 * time.Microsecond)
		return t
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Transport: TransportHTTP, Server: "http://127.0.0.1:8080/mcp"}, WriterOptions{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"}}}`
	ask := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"where":{"method":"elicitation/create","params":{"message":"Where?"}}},"requestState":"c2VjcmV0LXN0YXRl"}}`
	h := &HTTP{Method: "POST", Status: 200, Stream: "post-1", ContentType: "text/event-stream", EventID: "e1"}
	for _, step := range []struct {
		dir, msg string
	}{{ClientToServer, call}, {ServerToClient, ask}} {
		if err := w.Message(step.dir, []byte(step.msg), h); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Event(Entry{Event: EventHTTP, HTTP: &HTTP{Method: "DELETE", Status: 204, Session: "s1"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close("the client closed its side"); err != nil {
		t.Fatal(err)
	}
	if err := w.Message(ClientToServer, []byte(call), nil); !errors.Is(err, ErrStopped) {
		t.Fatalf("after Close: %v, want ErrStopped", err)
	}

	rec, err := Read(bytes.NewReader(buf.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatalf("Read: %v\n%s", err, buf.Bytes())
	}
	if rec.Header.Format != Format || rec.Header.Transport != TransportHTTP || rec.Truncated {
		t.Errorf("header %+v truncated %v", rec.Header, rec.Truncated)
	}
	if len(rec.Entries) != 4 {
		t.Fatalf("%d entries, want 4:\n%s", len(rec.Entries), buf.Bytes())
	}
	if got := string(rec.Entries[0].Message); got != call {
		t.Errorf("call recorded as %s", got)
	}
	want := strings.Replace(ask, `"c2VjcmV0LXN0YXRl"`, `"[requestState: 16 bytes]"`, 1)
	if got := string(rec.Entries[1].Message); got != want {
		t.Errorf("state not hidden in place:\n got %s\nwant %s", got, want)
	}
	if e := rec.Entries[1]; e.Dir != ServerToClient || e.HTTP.EventID != "e1" || e.At != 3 {
		t.Errorf("second entry %+v", e)
	}
	if e := rec.Entries[3]; e.Event != EventEnd || e.Note == "" {
		t.Errorf("last entry %+v", e)
	}
}

func TestShowStateKeepsState(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Transport: TransportStdio, Server: "bin/deployer"}, WriterOptions{ShowState: true})
	msg := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","requestState":"abc"}}`
	w.Message(ClientToServer, []byte(msg), nil)
	if !strings.Contains(buf.String(), `"requestState":"abc"`) {
		t.Errorf("ShowState hid the state:\n%s", buf.String())
	}
}

func TestHideState(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"requestState":"abcd"}`, `{"requestState":"[requestState: 4 bytes]"}`},
		{`{"a":{"b":[1,{"requestState" : "xy"}]},"requestState":"z"}`, `{"a":{"b":[1,{"requestState" : "[requestState: 2 bytes]"}]},"requestState":"[requestState: 1 bytes]"}`},
		{`{"request\u0053tate":"abc"}`, `{"request\u0053tate":"[requestState: 3 bytes]"}`},
		// A value named requestState is no key.
		{`{"k":"requestState","v":"secret"}`, `{"k":"requestState","v":"secret"}`},
		{`["requestState","x"]`, `["requestState","x"]`},
		// Not a string: left as it is.
		{`{"requestState":{"n":1}}`, `{"requestState":{"n":1}}`},
		{`{"requestState":12,"x":"y"}`, `{"requestState":12,"x":"y"}`},
		// Keys after a nested object are still keys.
		{`{"a":{"b":"c"},"requestState":"q1"}`, `{"a":{"b":"c"},"requestState":"[requestState: 2 bytes]"}`},
	} {
		if got := string(HideState([]byte(c.in))); got != c.want {
			t.Errorf("HideState(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestSecretsNeverWritten(t *testing.T) {
	const token = "tok_3f9a8b7c6d5e4f3a2b1c"
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Transport: TransportHTTP, Server: "http://127.0.0.1:1/mcp?access_token=" + token}, WriterOptions{Secrets: []string{token}})
	if err != nil {
		t.Fatal(err)
	}
	later := "Bearer-eyJhbGciOiJIUzI1NiJ9.e30.sig"
	w.AddSecrets(later)
	escaped := strings.ReplaceAll(later, "e", `\u0065`)
	w.Message(ServerToClient, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"you sent `+token+` and `+escaped+`"}]}}`), &HTTP{Path: "/mcp?access_token=" + token})
	w.Event(Entry{Event: EventHTTP, Note: "challenge for " + later})
	// A secret outside a string would break the JSON when hidden.
	w.AddSecrets("98765432109876")
	w.Message(ServerToClient, []byte(`{"jsonrpc":"2.0","id":2,"result":{"n":98765432109876}}`), nil)
	out := buf.String()
	for _, s := range []string{token, later, escaped, "98765432109876"} {
		if strings.Contains(out, s) {
			t.Errorf("secret %q written:\n%s", s, out)
		}
	}
	if _, err := Read(strings.NewReader(out), ReadOptions{}); err != nil {
		t.Errorf("recording with hidden secrets does not read: %v\n%s", err, out)
	}
}

func TestLimit(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{MaxBytes: 600})
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	var err error
	n := 0
	for ; n < 100; n++ {
		if err = w.Message(ServerToClient, msg, nil); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrStopped) || n == 0 || n > 10 {
		t.Fatalf("stopped after %d messages with %v", n, err)
	}
	rec, err := Read(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if last := rec.Entries[len(rec.Entries)-1]; last.Event != EventLimit {
		t.Errorf("last entry %+v, want the limit", last)
	}
	big := bytes.Repeat([]byte("a"), MaxMessage+1)
	var b2 bytes.Buffer
	w2, _ := NewWriter(&b2, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
	w2.Message(ServerToClient, big, nil)
	if !strings.Contains(b2.String(), `"event":"limit"`) || b2.Len() > 4096 {
		t.Errorf("a huge message was not bounded: %d bytes", b2.Len())
	}
}

func TestNotJSONFrame(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
	w.Message(ServerToClient, []byte("Starting server on stdio...\x1b[0m"), nil)
	rec, err := Read(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Entries[0]; e.Event != EventNotJSON || !strings.HasPrefix(e.Raw, "Starting server") {
		t.Errorf("entry %+v", e)
	}
}

// A batch is recorded as its messages, and JSON that is no JSON-RPC
// message (a stdio server's JSON log line) as an EventNotRPC holding it,
// whoever writes (the stdio proxy as the HTTP one).
func TestWriterBatchAndNotRPC(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
	w.Message(ClientToServer, []byte(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`+"\n"), nil)
	w.Message(ServerToClient, []byte(`{"level":"info","msg":"starting"}`), nil)
	w.Message(ServerToClient, []byte(`[]`), nil)
	rec, err := Read(&buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Entries) != 4 {
		t.Fatalf("%d entries, want 4:\n%+v", len(rec.Entries), rec.Entries)
	}
	for i, id := range []string{`"id":2`, `"id":3`} {
		if e := rec.Entries[i]; !e.IsMessage() || !strings.Contains(string(e.Message), id) {
			t.Errorf("entry %d %+v, want the batch's message with %s", i, e, id)
		}
	}
	for _, e := range rec.Entries[2:] {
		if e.Event != EventNotRPC || len(e.Message) == 0 || !strings.Contains(e.Note, "no JSON-RPC message") {
			t.Errorf("entry %+v, want a not-jsonrpc frame that holds it", e)
		}
	}
}

// A recording of an earlier proxy, which wrote a stdio batch as one msg
// and a JSON log line as a msg, is read whole: Walk hands the batch's
// messages at its line and the log line as an EventNotRPC.
func TestWalkEarlierBatchAndNotRPC(t *testing.T) {
	text := `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"x"}
{"t_ms":1,"dir":"s2c","msg":{"level":"info","msg":"starting"}}
{"t_ms":2,"dir":"c2s","msg":[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"hello":1}]}
`
	rec, err := Read(strings.NewReader(text), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := Walk(rec, visitLog{&got}); err != nil {
		t.Fatal(err)
	}
	want := []string{"2 event not-jsonrpc s2c", "3 request ping", "3 request tools/list", "3 event not-jsonrpc c2s"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type visitLog struct{ got *[]string }

func (v visitLog) Event(line int, e Entry) {
	*v.got = append(*v.got, fmt.Sprintf("%d event %s %s", line, e.Event, e.Dir))
}
func (v visitLog) ClientRequest(m Message, r *jsonrpc.Request) error {
	*v.got = append(*v.got, fmt.Sprintf("%d request %s", m.Line, r.Method))
	return nil
}
func (v visitLog) ServerRequest(Message, *jsonrpc.Request) error   { return nil }
func (v visitLog) ServerResponse(Message, *jsonrpc.Response) error { return nil }
func (v visitLog) ClientResponse(Message, *jsonrpc.Response) error { return nil }

func TestCreateMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	os.WriteFile(path, []byte("old"), 0o644)
	w, f, err := Create(path, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close("done")
	f.Close()
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

// A proxy killed mid-write leaves a last line cut short: the recording
// reads up to the line before.
func TestTruncatedLastLine(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Transport: TransportStdio, Server: "x"}, WriterOptions{})
	w.Message(ClientToServer, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
	w.Message(ServerToClient, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), nil)
	full := buf.String()
	cut := full[:len(full)-9]
	rec, err := Read(strings.NewReader(cut), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Truncated || len(rec.Entries) != 1 {
		t.Errorf("truncated %v, %d entries", rec.Truncated, len(rec.Entries))
	}
	// A whole last line without its newline is a whole entry.
	rec, err = Read(strings.NewReader(strings.TrimSuffix(full, "\n")), ReadOptions{})
	if err != nil || rec.Truncated || len(rec.Entries) != 2 {
		t.Errorf("no final newline: %v truncated %v entries %d", err, rec != nil && rec.Truncated, len(rec.Entries))
	}
}

func TestReadRefuses(t *testing.T) {
	hdr := `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"x"}`
	ping := `{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "line 1: the recording is empty"},
		{"trace", `{"t_ms":0,"dir":"out","kind":"request"}` + "\n", "line 1: not a recording of mcp-tester proxy"},
		{"newer", `{"format":"askback-recording/2","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"x"}` + "\n", `format "askback-recording/2" is not one this mcp-tester reads`},
		{"transport", strings.Replace(hdr, "stdio", "carrier-pigeon", 1) + "\n", `unknown transport "carrier-pigeon"`},
		{"unknown field", hdr + "\n" + `{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"},"extra":1}` + "\n", `line 2: json: unknown field "extra"`},
		{"direction", hdr + "\n" + strings.Replace(ping, "c2s", "up", 1) + "\n", `line 2: unknown direction "up"`},
		{"time", hdr + "\n" + ping + "\n" + strings.Replace(ping, `"t_ms":1`, `"t_ms":0.5`, 1) + "\n", "line 3: t_ms 0.5 is earlier"},
		{"repeat", hdr + "\n" + `{"t_ms":1,"t_ms":2,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n", "line 2:"},
		{"bad middle", hdr + "\n" + `{"t_ms":1,` + "\n" + ping + "\n", "line 2:"},
		{"after", hdr + "\n" + ping + "}\n", "line 2: invalid character"},
		{"event msg", hdr + "\n" + `{"t_ms":1,"event":"end","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n", `line 2: a "end" event carries a message`},
		{"unknown event", hdr + "\n" + `{"t_ms":1,"event":"party"}` + "\n", `line 2: unknown event "party"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.text), ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
	if _, err := Read(strings.NewReader(hdr+"\n"+ping+"\n"+ping+"\n"), ReadOptions{MaxEntries: 1}); err == nil || !strings.Contains(err.Error(), "more than 1 entries") {
		t.Errorf("MaxEntries: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"x"}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n" + `{"t_ms":2,"event":"end"}`))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Read(bytes.NewReader(data), ReadOptions{MaxEntries: 1000})
		if err != nil {
			var le *Error
			if !errors.As(err, &le) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		// What reads, written again, reads the same.
		var buf bytes.Buffer
		w, err := NewWriter(&buf, rec.Header, WriterOptions{ShowState: true, Now: func() time.Time { return rec.Header.Started }})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Entries {
			if e.IsMessage() {
				if err := w.Message(e.Dir, e.Message, e.HTTP); err != nil {
					t.Fatal(err)
				}
			} else if err := w.Event(e); err != nil {
				t.Fatal(err)
			}
		}
		again, err := Read(&buf, ReadOptions{})
		if err != nil {
			t.Fatalf("rewritten recording does not read: %v\n%s", err, buf.Bytes())
		}
		if len(again.Entries) != len(rec.Entries) {
			t.Fatalf("%d entries, then %d", len(rec.Entries), len(again.Entries))
		}
	})
}

func FuzzHideState(f *testing.F) {
	for _, s := range []string{`{"requestState":"abc"}`, `{"a":[{"request\u0053tate":"x"}],"b":"requestState"}`, `[1,2,{"c":null}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		out := HideState(data)
		if !json.Valid(out) {
			t.Fatalf("HideState(%s) = %s, not JSON", data, out)
		}
		if !bytes.Contains(data, []byte("requestState")) && !bytes.Contains(data, []byte(`\`)) && !bytes.Equal(out, data) {
			t.Fatalf("changed a message without a state: %s -> %s", data, out)
		}
	})
}

// What a client answered and the arguments it sent, where they are secrets
// by name or form, are written hidden, and so is a server's echo of them.
func TestAnswersAndArgumentsHidden(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Transport: TransportStdio, Server: "bin/bank"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Message(ClientToServer, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"to":"alice","api_key":"k-7766554433","ssn":"123-45-6789"}}}`), nil)
	w.Message(ServerToClient, []byte(`{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"Card?","requestedSchema":{"type":"object","properties":{"card_number":{"type":"string"},"pin":{"type":"string"}}}}}`), nil)
	w.Message(ClientToServer, []byte(`{"jsonrpc":"2.0","id":5,"result":{"action":"accept","content":{"card_number":"4111 1111 1111 1111","pin":"864213"}}}`), nil)
	w.Message(ClientToServer, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","inputResponses":{"otp":{"action":"accept","content":{"otp":"913572"}}}}}`), nil)
	w.Message(ServerToClient, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"paid with 4111 1111 1111 1111 and key k-7766554433"}]}}`), nil)
	out := buf.String()
	for _, s := range []string{"k-7766554433", "123-45-6789", "4111 1111 1111 1111", "864213", "913572"} {
		if strings.Contains(out, s) {
			t.Errorf("secret %q written:\n%s", s, out)
		}
	}
	if !strings.Contains(out, `"to":"alice"`) || !strings.Contains(out, `"card_number":{"type":"string"}`) {
		t.Errorf("what is no secret was hidden:\n%s", out)
	}
	if _, err := Read(strings.NewReader(out), ReadOptions{}); err != nil {
		t.Errorf("the recording does not read: %v\n%s", err, out)
	}
}

// Every reader of a recording file words what is wrong alike: FILE:LINE:
// for a line (however deep the error wraps it), FILE: otherwise, and
// "recording FILE: …" for a file that cannot be opened.
func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("\x01\x02 no recording\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{bad, bad + ":1: not a recording of mcp-tester proxy"},
		{empty, empty + ":1: the recording is empty"},
		{filepath.Join(dir, "none.jsonl"), "recording " + filepath.Join(dir, "none.jsonl") + ": no such file or directory"},
		{dir, "recording " + dir + ": is a directory"},
	} {
		_, err := ReadFile(tc.path, ReadOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ReadFile(%s) = %v, want %s…", tc.path, err, tc.want)
		}
	}
	wrapped := fmt.Errorf("building: %w", &Error{Line: 7, Err: errors.New("odd")})
	if got := InFile("r.jsonl", wrapped).Error(); got != "r.jsonl:7: odd" {
		t.Errorf("InFile of a line's error: %q", got)
	}
	if got := InFile("r.jsonl", errors.New("odd")).Error(); got != "r.jsonl: odd" {
		t.Errorf("InFile of another error: %q", got)
	}
	if InFile("r.jsonl", nil) != nil {
		t.Error("InFile(nil) is not nil")
	}
}

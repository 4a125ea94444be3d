package taskclient

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzDecodeQuestion feeds inputRequests entries, which come from the
// server, to the decoder.
func FuzzDecodeQuestion(f *testing.F) {
	for _, s := range []string{
		`{"method":"elicitation/create","params":{"message":"Go?","requestedSchema":{"type":"object"}}}`,
		`{"method":"elicitation/create","params":{"mode":"url","message":"Open","url":"https://x.test"}}`,
		`{"method":"sampling/createMessage","params":{}}`,
		`{"method":"elicitation/create"}`, `null`, `{}`, `[1]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodeQuestion(json.RawMessage(s))
		if err == nil && p.Mode == "" {
			t.Errorf("decoded a question without a mode: %+v", p)
		}
	})
}

// FuzzScanBody feeds response bodies, which come from the server, through
// the body watcher and the reading of what it kept: every byte passes on
// unchanged, and what is read is valid JSON, never a panic.
func FuzzScanBody(f *testing.F) {
	f.Add("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"task\",\"taskId\":\"t\"}}\n\n", true)
	f.Add("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\ndata: {\"id\":2,\n", true)
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, false)
	f.Add("data:\ndata:\n\n", true)
	f.Fuzz(func(t *testing.T, body string, sse bool) {
		cp := &capture{}
		cp.attach(sse)
		b := &scanBody{ReadCloser: io.NopCloser(bytes.NewReader([]byte(body))), cp: cp}
		got, err := io.ReadAll(&smallReads{b})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != body {
			t.Fatalf("the watcher changed the body")
		}
		if raw, _ := cp.get(); raw != nil && !json.Valid(raw) {
			t.Errorf("captured invalid JSON %q", raw)
		}
	})
}

// smallReads reads in chunks of 3 bytes, to split lines across reads.
type smallReads struct{ r io.Reader }

func (s *smallReads) Read(p []byte) (int, error) {
	if len(p) > 3 {
		p = p[:3]
	}
	return s.r.Read(p)
}

func TestScanBodyCapturesTheResponse(t *testing.T) {
	body := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resultType\":\"task\",\"taskId\":\"abc\"}}\n\n"
	cp := &capture{}
	cp.attach(true)
	b := &scanBody{ReadCloser: io.NopCloser(bytes.NewReader([]byte(body))), cp: cp}
	if _, err := io.ReadAll(&smallReads{b}); err != nil {
		t.Fatal(err)
	}
	raw, ok := cp.get()
	if !ok || string(raw) != `{"resultType":"task","taskId":"abc"}` {
		t.Errorf("captured %q (%v)", raw, ok)
	}
}

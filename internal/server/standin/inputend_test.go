package standin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lines2025 are the JSON-RPC lines of a 2025-11-25 client that
// initializes and sends req: its input ends after them.
func lines2025(req string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
` + req + "\n"
}

// serveLines serves in over stdio to the end of the input, and returns
// what was written and the report.
func serveLines(t *testing.T, s *Standin, in string) (string, Report) {
	t.Helper()
	var out strings.Builder
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	return out.String(), s.Report()
}

// A call read just before the client's input ended is in the report: its
// question's answer can no longer come, in the report's words, from a
// recording of either era.
func TestInputEndsBeforeCallAnswered(t *testing.T) {
	for _, rec := range []string{"deploy-2025.jsonl", "deploy-2026.jsonl"} {
		t.Run(rec, func(t *testing.T) {
			s, log := standin(t, load(t, rec), Options{})
			out, r := serveLines(t, s, lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"}}}`))
			if !strings.Contains(out, `"method":"elicitation/create"`) {
				t.Errorf("the question was not sent: %s", out)
			}
			if r.OK || r.Requests != 1 || len(r.Problems) != 1 {
				t.Fatalf("report: %+v", r)
			}
			p := r.Problems[0]
			want := "the client's input ended before tools/call deploy was answered (it was asked a question, whose answer could no longer come)"
			if p.Kind != ProblemUnanswered || p.Request != "tools/call deploy" || p.Detail != want || p.Line == 0 {
				t.Errorf("problem: %+v, want unanswered: %s", p, want)
			}
			if strings.Contains(log.String(), "canceled") || strings.Contains(log.String(), "multi-round-trip") {
				t.Errorf("the log speaks the toolkit's words: %s", log)
			}
		})
	}
}

// A list read just before the end of the input is answered from the
// recording: nothing was cut short.
func TestInputEndsAfterListAnswered(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	out, r := serveLines(t, s, lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if !strings.Contains(out, `"id":2,"result"`) {
		t.Errorf("tools/list was not answered: %s", out)
	}
	if !r.OK || len(r.Problems) != 0 {
		t.Errorf("report: %+v", r)
	}
}

// A request held by a delay fault is not waited for: the end of the
// input cuts it short.
func TestInputEndsDuringDelay(t *testing.T) {
	f, err := ParseFault("tools/list:delay=10m")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{Faults: []Fault{f}})
	_, r := serveLines(t, s, lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if r.OK || len(r.Problems) != 1 || r.Problems[0].Detail != "the client's input ended before tools/list was answered" {
		t.Errorf("report: %+v", r)
	}
}

// failingWriter is a client's side gone: every write fails.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// An answer that could not be written is cut short too.
func TestInputEndsAnswerUnwritten(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	if err := s.ServeStdio(context.Background(), strings.NewReader(lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)), failingWriter{}); err == nil {
		t.Log("ServeStdio ended without an error")
	}
	r := s.Report()
	if r.OK || len(r.Problems) == 0 || r.Problems[0].Detail != "the client's input ended before initialize was answered" {
		t.Errorf("report: %+v", r)
	}
}

// fakeConn is a connection whose reads are given one at a time (io.EOF
// when none is left) and whose Write runs onWrite first, as the client
// would act while the stand-in's write is under way.
type fakeConn struct {
	reads   []jsonrpc.Message
	onWrite func(jsonrpc.Message)
}

func (f *fakeConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(f.reads) == 0 {
		return nil, io.EOF
	}
	m := f.reads[0]
	f.reads = f.reads[1:]
	return m, nil
}

func (f *fakeConn) Write(_ context.Context, m jsonrpc.Message) error {
	if f.onWrite != nil {
		f.onWrite(m)
	}
	return nil
}

func (f *fakeConn) Close() error      { return nil }
func (f *fakeConn) SessionID() string { return "" }

// The client's answer to a question, read before the stand-in's write of
// the question has returned (a client that answers at once, and closes
// its input with the same write), is an answer: the call it was for is
// waited for, not taken as waiting for the client, so the end of the
// input right after it cuts nothing short.
func TestInputEndsAfterAnswerReadDuringWrite(t *testing.T) {
	callID, err := jsonrpc.MakeID(float64(2))
	if err != nil {
		t.Fatal(err)
	}
	questionID, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeConn{reads: []jsonrpc.Message{
		&jsonrpc.Request{ID: callID, Method: "tools/call", Params: json.RawMessage(`{"name":"deploy"}`)},
		&jsonrpc.Response{ID: questionID, Result: json.RawMessage(`{"action":"accept"}`)},
	}}
	e := newInputEnd(nil)
	c := &endConn{Connection: fake, e: e}
	ctx := context.Background()
	if _, err := c.Read(ctx); err != nil { // the call
		t.Fatal(err)
	}
	fake.onWrite = func(jsonrpc.Message) {
		// The answer is read while the question is being written.
		if _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Write(ctx, &jsonrpc.Request{ID: questionID, Method: "elicitation/create"}); err != nil {
		t.Fatal(err)
	}
	fake.onWrite = nil
	e.mu.Lock()
	settled := e.settledLocked()
	e.mu.Unlock()
	if settled {
		t.Fatal("with its answer read, the call counts as waiting for the client: the end of the input would cut it short")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Read(ctx) // the end of the input: waits for the call's answer
	}()
	if err := c.Write(ctx, &jsonrpc.Response{ID: callID, Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	<-done
	if cut := e.cutShort(); len(cut) != 0 {
		t.Errorf("cut short: %v, want none", cut)
	}
}

// The recorded calls a client never made are problems of the ended
// report, each at its line ("missing"): a client that made part of the
// recording, or none of it, did not do what was recorded. While the
// stand-in serves, the client may still make them.
func TestMissingCalls(t *testing.T) {
	s, log := standin(t, load(t, "deploy-2026.jsonl"), Options{EveryCall: true})
	serveLines(t, s, lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if r := s.Report(); !r.OK {
		t.Errorf("while it serves: %+v", r)
	}
	s.End()
	r := s.Report()
	if r.OK || len(r.Problems) != 2 {
		t.Fatalf("report: %+v", r)
	}
	for i, line := range []int{6, 10} {
		p := r.Problems[i]
		if p.Kind != ProblemMissing || p.Request != "tools/call deploy" || p.Line != line || p.Detail != "the client never made this call" {
			t.Errorf("problem %d: %+v", i, p)
		}
	}
	if !strings.Contains(log.String(), "mcp-tester serve: missing: tools/call deploy (line 10): the client never made this call\n") {
		t.Errorf("log: %s", log)
	}

	// One of the two calls made: the other is missing.
	s, _ = standin(t, load(t, "deploy-2026.jsonl"), Options{EveryCall: true})
	serveLines(t, s, lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"web"}}}`))
	s.End()
	r = s.Report()
	if len(r.Problems) == 0 || r.Problems[len(r.Problems)-1].Kind != ProblemMissing || r.Problems[len(r.Problems)-1].Line != 6 {
		t.Errorf("report: %+v", r)
	}

	// A recording of no call: the client must make one of its requests.
	s, _ = standin(t, script(t, initRecording(`{"tools":{}}`)), Options{EveryCall: true})
	s.End()
	r = s.Report()
	if r.OK || len(r.Problems) != 1 || r.Problems[0].Kind != ProblemMissing ||
		r.Problems[0].Detail != "the recording holds no request of a client, and the client made none: nothing was checked" {
		t.Errorf("report: %+v", r)
	}
}

// signalWriter tells when a line holding mark was written.
type signalWriter struct {
	mark string
	once sync.Once
	seen chan struct{}
	mu   sync.Mutex
	b    strings.Builder
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.b.Write(p)
	w.mu.Unlock()
	if strings.Contains(string(p), w.mark) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// A stdio stand-in interrupted while its client is still connected says
// so: the report is Interrupted, a question the client was being asked is
// unanswered in the interrupt's words (not the client's leaving).
func TestInterruptedStdio(t *testing.T) {
	s, _ := standin(t, load(t, "deploy-2026.jsonl"), Options{})
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &signalWriter{mark: `"method":"elicitation/create"`, seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, pr, out) }()
	go pw.Write([]byte(lines2025(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"}}}`)))
	<-out.seen
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	s.End()
	r := s.Report()
	if !r.Interrupted || r.OK || len(r.Problems) == 0 {
		t.Fatalf("report: %+v", r)
	}
	p := r.Problems[0]
	want := "the stand-in was interrupted before tools/call deploy was answered (it was asked a question, and the client had not answered)"
	if p.Kind != ProblemUnanswered || p.Detail != want {
		t.Errorf("problem: %+v, want %q", p, want)
	}
}

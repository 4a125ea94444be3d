package proxy

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/recording"
)

// stdioRun runs Stdio with the client's lines as input and returns what
// the client got, the result and the recording.
func stdioRun(t *testing.T, cmd *exec.Cmd, in io.Reader) (string, StdioResult, *recording.Recording, string) {
	t.Helper()
	return stdioRunUntil(t, cmd, in, 0, nil)
}

// countingOut closes its input once it has n bytes.
type countingOut struct {
	syncBuffer
	n     int
	input io.Closer
}

func (c *countingOut) Write(p []byte) (int, error) {
	n, err := c.syncBuffer.Write(p)
	if c.input != nil && len(c.String()) >= c.n {
		c.input.Close()
	}
	return n, err
}

// stdioRunUntil is stdioRun whose client closes input once it got n
// bytes.
func stdioRunUntil(t *testing.T, cmd *exec.Cmd, in io.Reader, n int, input io.Closer) (string, StdioResult, *recording.Recording, string) {
	t.Helper()
	file := &syncBuffer{}
	w, err := recording.NewWriter(file, recording.Header{Transport: recording.TransportStdio, Server: "test"}, recording.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var errOut syncBuffer
	out := &countingOut{n: n, input: input}
	res, err := Stdio(context.Background(), StdioOptions{Cmd: cmd, In: in, Out: out, ErrOut: &errOut, Rec: w, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w.Close(res.How)
	rec, err := recording.Read(strings.NewReader(file.String()), recording.ReadOptions{})
	if err != nil {
		t.Fatalf("the recording does not read: %v\n%s", err, file.String())
	}
	return out.String(), res, rec, errOut.String()
}

// Lines pass both ways byte for byte (an echoing server sends each back),
// the server's stderr reaches the proxy's, and each line is recorded once
// each way; a line that is not JSON passes and is recorded as such.
func TestStdioByteForByte(t *testing.T) {
	const last = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" // no final newline
	lines := "{\"jsonrpc\":\"2.0\",\"id\":\"a b\",   \"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"t\":\"\u202e\\u001b\"}}\r\n" +
		"\n" +
		"not json\n" + last
	cmd := target.ShellCommand(`echo "server log" >&2; exec cat`)
	pr, pw := io.Pipe()
	go io.WriteString(pw, lines)
	// A line is forwarded once whole: the last one, at the end.
	out, res, rec, errOut := stdioRunUntil(t, cmd, pr, len(lines)-len(last), pw)
	if out != lines {
		t.Errorf("the client got\n%q\nwant\n%q", out, lines)
	}
	if !strings.Contains(errOut, "server log") {
		t.Errorf("stderr %q", errOut)
	}
	if res.ServerGone || res.ExitCode != 0 || res.How != "the client closed its side" {
		t.Errorf("result %+v", res)
	}
	var c2s, s2c, notJSON int
	for _, e := range rec.Entries {
		switch {
		case e.Event == recording.EventNotJSON:
			notJSON++
		case e.Dir == recording.ClientToServer && e.IsMessage():
			c2s++
		case e.Dir == recording.ServerToClient && e.IsMessage():
			s2c++
		}
	}
	if c2s != 3 || s2c != 3 || notJSON != 2 {
		t.Errorf("c2s %d s2c %d not-json %d:\n%+v", c2s, s2c, notJSON, rec.Entries)
	}
	if last := rec.Entries[len(rec.Entries)-1]; last.Event != recording.EventEnd {
		t.Errorf("last %+v", last)
	}
}

// A message is recorded before its last byte reaches the other side: the
// server's answer can never come first in the recording.
func TestStdioRecordsBeforeForwarding(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
	for range 10 {
		pr, pw := io.Pipe()
		go io.WriteString(pw, in)
		_, _, rec, _ := stdioRunUntil(t, exec.Command("cat"), pr, len(in), pw)
		var dirs []string
		for _, e := range rec.Entries {
			if e.IsMessage() {
				dirs = append(dirs, e.Dir)
			}
		}
		if strings.Join(dirs, " ") != "c2s s2c" {
			t.Fatalf("order: %v", dirs)
		}
	}
}

// A server that dies mid-session: the client gets what it had sent and
// then EOF; the recording ends with the server gone and how.
func TestStdioServerDies(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.WriteString(pw, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
	cmd := target.ShellCommand(`read line; echo '{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}'; kill -9 $$`)
	out, res, rec, _ := stdioRun(t, cmd, pr)
	if !strings.Contains(out, "elicitation/create") {
		t.Errorf("the client got %q", out)
	}
	if !res.ServerGone || res.ExitCode != -1 || !strings.Contains(res.How, "signal (killed)") {
		t.Errorf("result %+v", res)
	}
	var gone *recording.Entry
	for i, e := range rec.Entries {
		if e.Event == recording.EventServerGone {
			gone = &rec.Entries[i]
		}
	}
	if gone == nil || !strings.Contains(gone.Note, "ended by a signal (killed)") {
		t.Errorf("entries %+v", rec.Entries)
	}
}

// A server that exits with a code of its own: the code is the result's.
func TestStdioServerExitCode(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	_, res, _, _ := stdioRun(t, target.ShellCommand("sleep 0; exit 7"), pr)
	if !res.ServerGone || res.ExitCode != 7 || res.How != "the server exited: exit code 7" {
		t.Errorf("result %+v", res)
	}
}

// A client that goes mid-question: the server's input is closed, a server
// that ignores that is terminated (SIGTERM, then SIGKILL to its group),
// and the recording says the client went.
func TestStdioClientGoes(t *testing.T) {
	in := strings.NewReader("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
	cmd := target.ShellCommand(`trap '' TERM; read line; echo '{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}'; while :; do sleep 1; done`)
	start := time.Now()
	_, res, rec, _ := stdioRun(t, cmd, in)
	if res.ServerGone || res.How != "the client closed its side" {
		t.Errorf("result %+v", res)
	}
	if took := time.Since(start); took > time.Minute { // the grace (1 s), then procgroup.TermGrace (10 s): a minute only a failure takes
		t.Errorf("took %v", took)
	}
	found := false
	for _, e := range rec.Entries {
		found = found || e.Event == recording.EventClientGone
	}
	if !found {
		t.Errorf("no client-gone: %+v", rec.Entries)
	}
}

// A server that ignores the end of its input, and once asked to end
// (SIGTERM) takes longer than the grace to write what it writes last, is
// given the time to (procgroup.TermGrace): it exits of itself, and is not
// killed. The proxy used to wait the grace again after SIGTERM, and killed
// it.
func TestStdioServerEndingAfterSIGTERMIsNotKilled(t *testing.T) {
	const ready = "{\"jsonrpc\":\"2.0\",\"method\":\"ready\"}\n"
	cmd := target.ShellCommand(`trap 'sleep 3; echo "last words" >&2; exit 0' TERM; echo '{"jsonrpc":"2.0","method":"ready"}'; while :; do sleep 1; done`)
	// The client closes its side once the server is ready (its trap set).
	pr, pw := io.Pipe()
	_, res, _, errOut := stdioRunUntil(t, cmd, pr, len(ready), pw)
	if res.How != "the client closed its side" || res.ExitCode != 0 {
		t.Errorf("result %+v, want the client gone and the server's exit code 0", res)
	}
	if !strings.Contains(errOut, "last words") {
		t.Errorf("the server's stderr %q, want its last words", errOut)
	}
}

// slowOut is a client that takes its time to read the first line, as a
// busy machine's client may.
type slowOut struct {
	syncBuffer
	first sync.Once
	delay time.Duration
}

func (o *slowOut) Write(p []byte) (int, error) {
	o.first.Do(func() { time.Sleep(o.delay) })
	return o.syncBuffer.Write(p)
}

// What a server wrote before it exited reaches the client whole, however
// long the client takes to read it: the proxy used to stop forwarding the
// grace after the server's exit, and the last line, still in the pipe, was
// lost.
func TestStdioServerExitsWhileTheClientIsSlow(t *testing.T) {
	const want = "{\"jsonrpc\":\"2.0\",\"method\":\"one\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"two\"}\n"
	cmd := target.ShellCommand(`echo '{"jsonrpc":"2.0","method":"one"}'; sleep 0.2; echo '{"jsonrpc":"2.0","method":"two"}'`)
	w, err := recording.NewWriter(&syncBuffer{}, recording.Header{Transport: recording.TransportStdio, Server: "test"}, recording.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe() // the client keeps its side open
	defer pw.Close()
	out := &slowOut{delay: 3 * time.Second} // longer than the grace after the exit
	var errOut syncBuffer
	res, err := Stdio(context.Background(), StdioOptions{Cmd: cmd, In: pr, Out: out, ErrOut: &errOut, Rec: w, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ServerGone || res.ExitCode != 0 {
		t.Errorf("result %+v, want the server gone, exit code 0", res)
	}
	if got := out.String(); got != want {
		t.Errorf("the client got %q, want %q", got, want)
	}
}

// A line over MaxMessage passes whole, and is recorded as a limit.
func TestStdioLongLine(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("z", MaxMessage) + `"}}` + "\n"
	next := "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
	// The client keeps its side open until it has the echo back.
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, long+next)
	}()
	out, _, rec, _ := stdioRunUntil(t, exec.Command("cat"), pr, len(long+next), pw)
	if out != long+next {
		t.Errorf("the client got %d bytes, want %d", len(out), len(long+next))
	}
	var limits, msgs int
	for _, e := range rec.Entries {
		if e.Event == recording.EventLimit {
			limits++
		}
		if e.IsMessage() {
			msgs++
		}
	}
	if limits != 2 || msgs != 2 {
		t.Errorf("%d limits, %d messages", limits, msgs)
	}
}

// A server that cannot start: an error, and a recording that says so.
func TestStdioNoServer(t *testing.T) {
	file := &bytes.Buffer{}
	w, _ := recording.NewWriter(file, recording.Header{Transport: recording.TransportStdio, Server: "x"}, recording.WriterOptions{})
	_, err := Stdio(context.Background(), StdioOptions{Cmd: exec.Command("/no/such/server"), In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard, Rec: w})
	if err == nil || !strings.Contains(file.String(), "server-gone") {
		t.Errorf("err %v, recording %s", err, file.String())
	}
}

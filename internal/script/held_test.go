package script

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// writes is a report's output that counts its writes and tells a waiter
// when a text has been written.
type writes struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	n    int
	seen chan struct{} // closed once the text want is written
	want string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	w.buf.Write(p)
	if w.want != "" && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.want = ""
	}
	return len(p), nil
}

func (w *writes) count() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n, w.buf.String()
}

// nobody is a person who is never asked anything in these tests.
type nobody struct{}

func (nobody) Answer(context.Context, *answer.Question) (*mcp.ElicitResult, error) {
	return nil, answer.ErrNoAnswer
}

// Without a person to ask, the lines of a long run of fast calls go out in
// a few writes, not one a call; with one, every line is written before the
// next call, as a question may come during it, and so with Live. The
// report reads the same either way.
func TestReportHeldAcrossFastCalls(t *testing.T) {
	const pairs = 400
	var b strings.Builder
	for range pairs {
		b.WriteString("call_tool echo text:\"hello\"\nassert_contains \"echo: hello\"\n")
	}
	s := mustParse(t, "held.mcp", b.String())
	conn := newFixedConn("echo: hello")
	run := func(person answer.Answerer, live bool) (int, string) {
		w := &writes{}
		opts := RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }, Progress: w, Fallback: person, Live: live}
		if p, f := Run(context.Background(), s, opts).Counts(); f != 0 || p != 2*pairs {
			t.Fatalf("%d passed, %d failed", p, f)
		}
		return w.count()
	}
	held, heldText := run(nil, false)
	asked, askedText := run(nobody{}, false)
	live, liveText := run(nil, true)
	if held > pairs/8 {
		t.Errorf("without a person, %d writes for %d calls: want the lines held across fast calls", held, pairs)
	}
	if asked < pairs {
		t.Errorf("with a person, %d writes for %d calls: want the lines written before each call", asked, pairs)
	}
	if live < pairs {
		t.Errorf("with Live, %d writes for %d calls: want the lines written before each call", live, pairs)
	}
	strip := func(s string) string { // the durations differ from run to run
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if i := strings.LastIndex(l, " ("); i > 0 {
				l = l[:i]
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if strip(heldText) != strip(askedText) || strip(liveText) != strip(askedText) {
		t.Errorf("the report differs:\nheld:\n%s\nwritten at once:\n%s\nlive:\n%s", heldText, askedText, liveText)
	}
}

// slowConn answers a call to "slow" only once the report shows the line of
// the step before it: the lines held before a call that waits are written
// while it waits, not when it ends.
type slowConn struct {
	*fixedConn
	w *writes
}

func (c slowConn) CallTool(ctx context.Context, name string, args map[string]any, a []answer.Spec) (*Outcome, error) {
	if name != "slow" {
		return c.fixedConn.CallTool(ctx, name, args, a)
	}
	select {
	case <-c.w.seen:
		return c.fixedConn.CallTool(ctx, name, args, a)
	case <-time.After(20 * time.Second):
		_, got := c.w.count()
		return nil, errors.New("the lines before the slow call were not written while it ran; written so far: " + fmt.Sprintf("%q", got))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestReportShownWhileACallWaits(t *testing.T) {
	s := mustParse(t, "slow.mcp", "call_tool echo text:\"one\"\nassert_contains \"echo\"\ncall_tool slow\n")
	w := &writes{seen: make(chan struct{}), want: "assert_contains"}
	conn := slowConn{newFixedConn("echo: hello"), w}
	opts := RunOptions{Connect: func(context.Context) (Conn, error) { return conn, nil }, Progress: w}
	rep := Run(context.Background(), s, opts)
	if p, f := rep.Counts(); f != 0 || p != 3 {
		_, got := w.count()
		t.Fatalf("%d passed, %d failed:\n%s", p, f, got)
	}
}

// A timer that fired while the text was locked, and was armed again before
// its call ran, is stopped by the next flush: nothing of a run's report is
// left pending once it ends.
func TestHeldTextFlushStopsARearmedTimer(t *testing.T) {
	w := &writes{}
	h := &heldText{out: w}
	h.text = append(h.text, "a\n"...)
	h.hold(time.Millisecond)
	h.mu.Lock()
	// The timer fires; its call waits for the lock. (Stop reports a timer
	// that had not fired yet, on a busy machine: it is armed again.)
	for h.timer.Stop() {
		h.timer.Reset(time.Millisecond)
		time.Sleep(time.Millisecond)
	}
	// What hold does once more text is held (its lock is taken here).
	h.text = append(h.text, "b\n"...)
	h.timer.Reset(time.Hour)
	h.armed = true
	h.mu.Unlock()
	// The earlier call runs now: it writes "a\nb\n" and marks the timer
	// disarmed, though it is pending.
	deadline := time.Now().Add(time.Minute) // against a hang
	for {
		if _, got := w.count(); got == "a\nb\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the timer's call did not write what was held")
		}
		time.Sleep(time.Millisecond)
	}
	h.flush()
	if h.timer.Stop() {
		t.Error("the timer was still pending after flush")
	}
	if n, got := w.count(); n != 1 || got != "a\nb\n" {
		t.Errorf("%d writes, %q; want one write of a and b", n, got)
	}
}

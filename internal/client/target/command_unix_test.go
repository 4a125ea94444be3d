//go:build unix

package target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/askback/askback/internal/platform/procgroup"
)

// ready is what the fake servers say on stdout once their traps are set: a
// JSON-RPC notification, which the connection reads as a message.
const ready = `echo '{"jsonrpc":"2.0","method":"ready"}'`

// closeServer starts the target's command server, waits until it says it
// is ready, closes the connection (as a session's end does), and returns
// how the process ended and how long the close took.
func closeServer(t *testing.T, tg *Target) (how string, took time.Duration) {
	t.Helper()
	conn, err := tg.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Cleanup()
	ctx := context.Background()
	c, err := conn.Transport.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(ctx); err != nil {
		t.Fatalf("the server did not say it was ready: %v (stderr %q)", err, conn.StderrTail())
	}
	start := time.Now()
	c.Close()
	took = time.Since(start)
	exited, how := conn.Exited()
	if !exited {
		t.Fatal("the close returned before the server exited")
	}
	return how, took
}

// A server that ignores the end of its input, and once asked to end
// (SIGTERM) takes a second to write what it writes last, is given the time
// to: it exits of itself, its file written, and is not killed. The close
// used to wait as long after SIGTERM as after the end of the input (200
// ms), and killed it.
func TestClosedServerEndingAfterSIGTERMIsNotKilled(t *testing.T) {
	last := filepath.Join(t.TempDir(), "report")
	how, _ := closeServer(t, &Target{Command: fmt.Sprintf(`trap 'sleep 1; echo ended > %s; exit 0' TERM; %s; while :; do sleep 1; done`, last, ready)})
	if how != "exit status 0" {
		t.Errorf("the server ended with %q, want exit status 0 (it was given the time to end)", how)
	}
	if b, err := os.ReadFile(last); err != nil || string(b) != "ended\n" {
		t.Errorf("the server's last file: %q, %v; want it written", b, err)
	}
}

// A server that ignores the end of its input, and exits at once when asked
// to, is closed after the short grace, not the long one it would get to
// end after SIGTERM: a close that waited procgroup.TermGrace after the end
// of the input would take at least that.
func TestClosedServerIgnoringEOFClosesPromptly(t *testing.T) {
	how, took := closeServer(t, &Target{Command: fmt.Sprintf(`trap 'exit 0' TERM; %s; while :; do sleep 1; done`, ready)})
	if how != "exit status 0" {
		t.Errorf("the server ended with %q, want exit status 0 (it ended when asked)", how)
	}
	if took >= procgroup.TermGrace {
		t.Errorf("the close took %v, want the short grace after the end of the input (%v), not %v", took, DefaultGrace, procgroup.TermGrace)
	}
}

// A server that exits at the end of its input is neither asked to end nor
// killed (given a grace that only a failure waits out: a busy machine may
// take longer than the default to run it to its end).
func TestClosedServerExitingAtEOF(t *testing.T) {
	how, _ := closeServer(t, &Target{Command: fmt.Sprintf(`trap 'exit 3' TERM; %s; cat >/dev/null`, ready), Grace: time.Minute})
	if how != "exit status 0" {
		t.Errorf("the server ended with %q, want exit status 0 (it exited at the end of its input)", how)
	}
}

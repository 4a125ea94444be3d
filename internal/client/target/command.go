package target

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/askback/askback/internal/platform/procgroup"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandTransport runs a command server and speaks to it over its stdin
// and stdout, as the go-sdk's CommandTransport does, but closes it as the
// tester must: its input closed, then a short grace (servers that keep
// running at the end of their input are common), then SIGTERM to its
// process group, then a long grace (a server that got the signal is
// ending, and may still be writing what it writes last), then SIGKILL
// (procgroup.End). The go-sdk's transport waits one duration after both,
// which kills a server still ending on a busy machine.
type commandTransport struct {
	proc     *process
	grace    time.Duration // after the input is closed
	endGrace time.Duration // after SIGTERM
	// watch reads what the server writes as the go-sdk reads it.
	watch *stdoutWatch
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := t.proc.cmd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of our own (not StdoutPipe, which Wait closes): what the
	// server wrote before it exited is read to its end whether or not
	// Wait has returned.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	outW.Close()
	go func() {
		t.proc.waitErr = cmd.Wait()
		close(t.proc.done)
	}()
	ends := &serverEnd{t: t, stdin: stdin, stdout: outR}
	// Closing the connection closes the server's input, not its output:
	// whatever it still writes as it ends goes somewhere.
	return (&mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(outR, t.watch)), Writer: ends}).Connect(ctx)
}

// serverEnd is the server's input, whose Close ends the server.
type serverEnd struct {
	t      *commandTransport
	stdin  io.WriteCloser
	stdout *os.File
}

func (e *serverEnd) Write(p []byte) (int, error) { return e.stdin.Write(p) }

// Close closes the server's input and ends it (procgroup.End), then its
// output; it returns what the server's Wait did (an exit status other than
// 0, or the signal that ended it), as the go-sdk's transport does.
func (e *serverEnd) Close() error {
	_ = e.stdin.Close()
	p := e.t.proc
	procgroup.End(p.cmd.Process.Pid, p.done, e.t.grace, e.t.endGrace)
	e.stdout.Close()
	return p.waitErr
}

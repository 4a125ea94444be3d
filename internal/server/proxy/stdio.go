package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/askback/askback/internal/platform/procgroup"
	"github.com/askback/askback/internal/recording"
)

// StdioOptions say which server to run and where the client is.
type StdioOptions struct {
	// Cmd is the server's command, not started: target.ShellCommand for a
	// command line, or a program and its arguments. It is run in a
	// process group of its own (Setpgid is set if not already).
	Cmd *exec.Cmd
	// In is the client's side: the messages it sends.
	In io.Reader
	// Out is where the server's frames go, and nothing else.
	Out io.Writer
	// ErrOut gets the server's stderr as it comes, and the proxy's notes.
	ErrOut io.Writer
	// Rec is the recording.
	Rec *recording.Writer
	// Grace is how long the server may take to exit once its input is
	// closed before it is terminated (SIGTERM to its process group); zero
	// means DefaultGrace. Once terminated it gets procgroup.TermGrace to
	// exit before it is killed.
	Grace time.Duration
}

// DefaultGrace is how long a server may take to exit once the client has
// closed its side, before it is terminated: longer than the tester gives
// its own command servers (target.DefaultGrace), since a client may close
// its side right after its last request (echo … | mcp-tester proxy …), and
// the server, which may still be starting, must get to answer it.
const DefaultGrace = 2 * time.Second

// StdioResult says how a stdio proxy ended.
type StdioResult struct {
	// ServerGone is set when the server ended before the client did
	// (exited, was killed, or closed its stdout).
	ServerGone bool
	// ExitCode is the server's exit code; -1 when a signal ended it.
	ExitCode int
	// How says in words how the session ended, as the recording's last
	// line does.
	How string
}

// Stdio starts the server and forwards newline-delimited JSON-RPC between
// the client (In, Out) and the server (its stdin and stdout) unchanged,
// byte for byte, recording each line as it passes: a line is recorded
// before its last byte is forwarded, so that the recording's order is the
// order in which each side could act on it. The server's stderr goes to
// ErrOut as it comes.
//
// It returns when either side ends: the client's EOF closes the server's
// stdin (then, after Grace, SIGTERM to its process group, and SIGKILL
// after procgroup.TermGrace: procgroup.End), and the server's exit ends
// the proxy, whose Out the caller closes. ctx ending (an interrupt) ends
// the server the same way.
func Stdio(ctx context.Context, o StdioOptions) (StdioResult, error) {
	grace := o.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	rec := &recorder{w: o.Rec, log: o.ErrOut}
	cmd := o.Cmd
	procgroup.Isolate(cmd)
	// Pipes of our own (not StdoutPipe): the server's stdout is read to
	// its end whether or not Wait has returned.
	inR, inW, err := os.Pipe()
	if err != nil {
		return StdioResult{}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return StdioResult{}, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, o.ErrOut
	// Do not let a grandchild holding stderr open stall Wait for long; but
	// long enough that, on a busy machine, what the server wrote to stderr
	// before it exited is copied whole (as target's command servers).
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		rec.event(recording.Entry{Event: recording.EventServerGone, Dir: recording.ServerToClient, Note: "the server could not be started: " + err.Error()})
		return StdioResult{ServerGone: true, ExitCode: -1, How: "the server could not be started"}, fmt.Errorf("start the server: %w", err)
	}
	inR.Close()
	outW.Close()

	run := &serverRun{cmd: cmd, rec: rec, grace: grace, exited: make(chan struct{}), inW: inW}
	go func() {
		run.waitErr = cmd.Wait()
		close(run.exited)
	}()
	serverOut := make(chan error, 1)
	go func() {
		serverOut <- forwardLines(outR, o.Out, recording.ServerToClient, rec)
	}()
	clientIn := make(chan error, 1)
	go func() {
		clientIn <- forwardLines(o.In, inW, recording.ClientToServer, rec)
	}()

	run.wait(ctx, clientIn, serverOut)
	res := run.res
	// Whatever the server wrote before it went is forwarded, to the end,
	// however long a busy machine takes: what it started and left holding
	// its stdout is ended after the grace (its process group), and a
	// process that left the group holds the proxy no longer than
	// procgroup.TermGrace more.
	if !run.outDone {
		select {
		case <-serverOut:
		case <-time.After(grace):
			_ = procgroup.Kill(cmd.Process.Pid)
			select {
			case <-serverOut:
			case <-time.After(procgroup.TermGrace):
				outR.Close()
			}
		}
	}
	inW.Close()
	res.ExitCode = cmd.ProcessState.ExitCode()
	if res.ServerGone {
		res.How = "the server exited: " + describeExit(cmd.ProcessState, run.waitErr)
		rec.event(recording.Entry{Event: recording.EventServerGone, Dir: recording.ServerToClient, Note: res.How})
	}
	return res, nil
}

// serverRun is a server process the proxy forwards to, while it ends.
type serverRun struct {
	cmd     *exec.Cmd
	rec     *recorder
	grace   time.Duration
	exited  chan struct{} // closed once the process's Wait has returned
	inW     *os.File      // the server's stdin
	res     StdioResult
	waitErr error // what Wait returned, once exited is closed
	outDone bool  // the server's output was forwarded to its end
}

// wait waits for a side to end (the client's input, clientIn; the
// server's output, serverOut; the process; ctx) and ends the rest.
func (run *serverRun) wait(ctx context.Context, clientIn, serverOut <-chan error) {
	select {
	case err := <-clientIn:
		var we *writeError
		switch {
		case errors.As(err, &we):
			// The server closed its stdin: it is ending.
			run.serverEnding()
		case err != nil:
			run.clientGone("the client's side broke: " + err.Error())
		default:
			run.clientGone("the client closed its side")
		}
	case err := <-serverOut:
		run.outDone = true
		var we *writeError
		if errors.As(err, &we) {
			run.clientGone("the client stopped reading: " + we.err.Error())
			break
		}
		run.serverEnding()
	case <-run.exited:
		run.res.ServerGone = true
	case <-ctx.Done():
		run.res.How = "the proxy was interrupted"
		run.end()
	}
}

// end ends the server: its input closed, then, after the grace, asked
// (SIGTERM), then, after procgroup.TermGrace, insisted (SIGKILL).
func (run *serverRun) end() {
	run.inW.Close()
	procgroup.End(run.cmd.Process.Pid, run.exited, run.grace, procgroup.TermGrace)
}

// serverEnding waits for a server that closed a side of its own to exit,
// and ends it if it does not.
func (run *serverRun) serverEnding() {
	select {
	case <-run.exited:
	case <-time.After(run.grace):
		run.end()
	}
	run.res.ServerGone = true
}

// clientGone records that the client went (how), and ends the server.
func (run *serverRun) clientGone(how string) {
	run.rec.event(recording.Entry{Event: recording.EventClientGone, Dir: recording.ClientToServer, Note: how})
	run.res.How = how
	run.end()
}

func describeExit(st *os.ProcessState, err error) string {
	if st == nil {
		if err != nil {
			return err.Error()
		}
		return "unknown state"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "ended by a signal (" + ws.Signal().String() + ")"
	}
	return fmt.Sprintf("exit code %d", st.ExitCode())
}

// forwardLines copies src to dst unchanged and records each line (a
// JSON-RPC message, or what else it is) in the direction dir, before the
// line's last byte is written. It holds at most MaxMessage bytes of a
// line: a longer one is forwarded piece by piece, recorded as a limit. It
// returns nil at src's EOF, or the first error of src or dst.
func forwardLines(src io.Reader, dst io.Writer, dir string, rec *recorder) error {
	br := bufio.NewReaderSize(src, 64<<10)
	var line []byte
	size, over := 0, false
	for {
		chunk, err := br.ReadSlice('\n')
		complete := err == nil || (err == io.EOF && size+len(chunk) > 0)
		if len(chunk) > 0 {
			size += len(chunk)
			if !over && len(line)+len(chunk) > MaxMessage+1 {
				over, line = true, nil
			}
			if !over {
				line = append(line, chunk...)
			}
		}
		if complete {
			switch {
			case over:
				rec.event(recording.Entry{Dir: dir, Event: recording.EventLimit,
					Note: fmt.Sprintf("a line of %d bytes, over the %d-byte limit of one recorded message, was forwarded unrecorded", size, MaxMessage)})
			case len(bytes.TrimSpace(line)) > 0:
				rec.messages(dir, line, nil) // a batch as its messages, as over HTTP
			}
			line, size, over = line[:0], 0, false
		}
		if len(chunk) > 0 {
			if _, werr := dst.Write(chunk); werr != nil {
				return &writeError{werr}
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return nil
		default:
			return err
		}
	}
}

// writeError is a failure to write to the receiving side, told apart from
// the sending side's end.
type writeError struct{ err error }

func (e *writeError) Error() string { return "write: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

package scaleout

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Instance is one server process listening on a loopback port.
type Instance struct {
	// Name is a label for messages ("A", "B", ...).
	Name string
	// Addr is the host:port the instance listens on.
	Addr string

	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer
}

// Base is the instance's base URL, "http://Addr".
func (i *Instance) Base() string { return "http://" + i.Addr }

// Endpoint is the instance's MCP endpoint, Base + "/mcp".
func (i *Instance) Endpoint() string { return i.Base() + "/mcp" }

// Output returns what the instance wrote to stdout and stderr so far.
func (i *Instance) Output() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.out.String()
}

type lockedWriter struct{ i *Instance }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.i.mu.Lock()
	defer w.i.mu.Unlock()
	return w.i.out.Write(p)
}

// StartInstance runs bin with args plus "-http 127.0.0.1:0 -addr-file F"
// and env added to the test's environment, waits until it has written its
// address, and stops it when the test ends.
func StartInstance(tb testing.TB, name, bin string, env []string, args ...string) *Instance {
	tb.Helper()
	addrFile := filepath.Join(tb.TempDir(), "addr")
	i := &Instance{Name: name, done: make(chan struct{})}
	cmd := exec.Command(bin, append(args, "-http", "127.0.0.1:0", "-addr-file", addrFile)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = lockedWriter{i}, lockedWriter{i}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start instance %s: %v", name, err)
	}
	i.cmd = cmd
	go func() { cmd.Wait(); close(i.done) }()
	tb.Cleanup(i.Stop)
	// A bound only a failure reaches: a busy machine may take seconds to
	// start the process.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-i.done:
			tb.Fatalf("instance %s exited at start: %s", name, i.Output())
		default:
		}
		if b, err := os.ReadFile(addrFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			i.Addr = strings.TrimSpace(string(b))
			return i
		}
		time.Sleep(10 * time.Millisecond)
	}
	i.Kill()
	tb.Fatalf("instance %s did not write its address within a minute: %s", name, i.Output())
	return nil
}

// StartInstances starts n instances named A, B, C, ...
func StartInstances(tb testing.TB, n int, bin string, env []string, args ...string) []*Instance {
	tb.Helper()
	out := make([]*Instance, n)
	for k := range n {
		out[k] = StartInstance(tb, string(rune('A'+k)), bin, env, args...)
	}
	return out
}

func (i *Instance) signal(sig syscall.Signal) {
	if i.cmd == nil || i.cmd.Process == nil {
		return
	}
	select {
	case <-i.done:
		return
	default:
	}
	end(i.cmd, i.done, sig)
}

// end sends sig to cmd's process and waits for done, closed when the
// process has exited; after 10s it kills the process and waits again.
func end(cmd *exec.Cmd, done <-chan struct{}, sig syscall.Signal) {
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// Stop ends the instance with SIGTERM and waits for it.
func (i *Instance) Stop() { i.signal(syscall.SIGTERM) }

// Kill ends the instance with SIGKILL, as a crash would, and waits for it.
func (i *Instance) Kill() { i.signal(syscall.SIGKILL) }

// Exited reports whether the process has ended.
func (i *Instance) Exited() bool {
	select {
	case <-i.done:
		return true
	default:
		return false
	}
}

// PID is the instance's process id, to read its CPU time (cpuuse.Of).
func (i *Instance) PID() int { return i.cmd.Process.Pid }

//go:build unix

package procgroup

import (
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Kill ends what the command started too: a shell's background child holds
// the pipe's write end, so the pipe reaches its end only once both are gone.
func TestKillEndsWhatTheCommandStarted(t *testing.T) {
	for _, end := range []struct {
		name string
		f    func(int) error
	}{{"Kill", Kill}, {"Terminate", Terminate}} {
		t.Run(end.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := exec.Command("/bin/sh", "-c", "sleep 600 & echo started; wait")
			cmd.Stdout = w
			Isolate(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			buf := make([]byte, len("started\n"))
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatal(err)
			}
			if err := end.f(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			rest := make(chan error, 1)
			go func() { _, err := io.ReadAll(r); rest <- err }()
			select {
			case err := <-rest:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the shell's background child still holds the pipe a minute after the group was ended")
			}
			_ = cmd.Wait()
		})
	}
}

// Isolate makes the command the leader of a process group of its own.
func TestIsolateSetsProcessGroup(t *testing.T) {
	cmd := exec.Command("true")
	Isolate(cmd)
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		t.Fatalf("SysProcAttr = %+v, want Setpgid", cmd.SysProcAttr)
	}
}

// endRun starts the shell line in a group of its own, waits until it says
// it is ready, and ends it with End and the graces given.
func endRun(t *testing.T, line string, grace, termGrace time.Duration) (Ending, *exec.Cmd) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Stdout = w
	Isolate(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := io.ReadFull(r, make([]byte, len("ready\n"))); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return End(cmd.Process.Pid, done, grace, termGrace), cmd
}

// End waits the first grace for a process that exits of itself, then asks
// (SIGTERM) and waits the second for one that exits when asked, and kills
// one that does neither. A grace the process is to use is long (a minute,
// which only a failure waits out); one it is to miss, short.
func TestEnd(t *testing.T) {
	const long, short = time.Minute, 100 * time.Millisecond
	for _, c := range []struct {
		line             string
		grace, termGrace time.Duration
		want             Ending
		how              string
	}{
		{"echo ready; exit 4", long, long, Exited, "exit status 4"},
		{"trap 'sleep 1; exit 5' TERM; echo ready; while :; do sleep 1; done", short, long, Terminated, "exit status 5"},
		{"trap '' TERM; echo ready; while :; do sleep 1; done", short, short, Killed, "signal: killed"},
	} {
		got, cmd := endRun(t, c.line, c.grace, c.termGrace)
		if got != c.want || cmd.ProcessState.String() != c.how {
			t.Errorf("%s: ended %v (%s), want %v (%s)", c.line, got, cmd.ProcessState, c.want, c.how)
		}
	}
}

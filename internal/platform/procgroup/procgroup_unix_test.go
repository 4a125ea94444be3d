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

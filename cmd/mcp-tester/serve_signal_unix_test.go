//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/testbin"
)

// A stand-in asked to end (SIGTERM, as a client that closes it sends after
// a short grace) while its client still holds its input ends at once, its
// report complete ("ended") and its exit code its verdict: a client that
// then gives it a long time before SIGKILL (procgroup.TermGrace) finds its
// report written.
func TestServeEndsItsReportOnSIGTERM(t *testing.T) {
	bin := testbin.Path(t, "./cmd/mcp-tester")
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(bin, "serve", filepath.Join("..", "..", "examples", "deployer", "deploy.jsonl"), "--report", report)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var said []string
	go func() {
		// It says it serves once it handles the signal.
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			said = append(said, sc.Text())
			if !signalled && strings.Contains(sc.Text(), "over stdio") {
				signalled = true
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		// Stopped before the client made the recorded calls: exit 143
		// (SIGTERM's, as every command's), the report says so.
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 143 {
			t.Fatalf("serve ended with %v, want exit status 143; it said %q", err, said)
		}
		if !strings.Contains(strings.Join(said, "\n"), "terminated before the client did what was recorded") {
			t.Errorf("serve did not say it was terminated; it said %q", said)
		}
	case <-time.After(time.Minute): // only a failure waits this long
		_ = cmd.Process.Kill()
		t.Fatalf("serve did not end within a minute of SIGTERM; it said %q", <-done)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Ended       bool `json:"ended"`
		Interrupted bool `json:"interrupted"`
	}
	if err := json.Unmarshal(b, &r); err != nil || !r.Ended || !r.Interrupted {
		t.Errorf("the report (%v) is %s, want it ended and interrupted", err, b)
	}
}

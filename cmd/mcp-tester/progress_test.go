package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/testbin"
)

// Long work shows one progress line on a terminal's stderr, redrawn in
// place ("\r", erase the line, the new text) and erased at the end; on
// stderr that is not a terminal, nothing; on stdout, never.
func TestProgressLineOnlyOnATerminal(t *testing.T) {
	bin := buildServers(t)
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(dir, name+".mcp"), []byte("ping\n"), 0o644)
	}
	deployer := filepath.Join(bin, "deployer")
	runs := []struct {
		name string
		args []string
		// shown is a status line the run draws.
		shown string
	}{
		{"test", []string{"test", dir, "-c", deployer}, "[3/3 scripts] 3 passed, 0 failed"},
		{"audit", []string{"audit", "-c", deployer, "--include", "deploy"}, `auditing tool "deploy" (1 of 1)`},
		{"grade", []string{"grade", "-c", deployer, "--include", "deploy"}, `auditing tool "deploy" (1 of 1)`},
		{"bench", []string{"bench", "deploy", "-c", deployer, "--args", `{"service":"x"}`, "--elicit", `accept:{"environment":"staging","confirm":true}`, "--requests", "5"}, "[##############################] 100%  5 done  0 failed"},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			stdout, stderr := runTester(t, hostileRun{args: r.args, stderrTTY: true})
			if !strings.Contains(stderr, "\r\x1b[K"+r.shown) || !strings.HasSuffix(stderr, "\r\x1b[K") {
				t.Errorf("stderr, a terminal, %q: want the line %q drawn, and erased at the end", stderr, r.shown)
			}
			if strings.Contains(stdout, "\x1b") || strings.Contains(stdout, r.shown) {
				t.Errorf("the progress line reached stdout: %q", stdout)
			}
			stdout2, stderr2 := runTester(t, hostileRun{args: r.args})
			if stderr2 != "" || strings.Contains(stdout2, "\x1b") {
				t.Errorf("stderr, not a terminal, %q; stdout %q: want nothing on stderr", stderr2, stdout2)
			}
		})
	}
}

// In a real terminal (tmux), a person sees the progress line below the
// report while scripts run, and the report alone once they are done; a
// report sent to a file holds no trace of it, and stderr sent to a file
// gets none of it.
func TestProgressLineInATerminal(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer", "./internal/testsupport/fixtures/handbook")
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("1-quick.mcp", "ping\n")
	write("2-slow.mcp", "call_tool progressTest seconds:3\nassert_contains \"Task finished\"\n")
	write("3-quick.mcp", "ping\n")
	tester := filepath.Join(bin, "mcp-tester")
	run := fmt.Sprintf("cd %s && %s test . -c '%s -step 1s'", dir, tester, filepath.Join(bin, "handbook"))

	tm := newScreen(t, run)
	s := tm.waitFor("[1/3 scripts] 1 passed, 0 failed · running 2-slow.mcp")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "[1/3 scripts]") {
		t.Errorf("the progress line is not the last line of the screen:\n%s", s)
	}
	s = tm.waitFor("EXIT=0")
	if strings.Contains(s, "scripts]") {
		t.Errorf("the progress line is left on the screen:\n%s", s)
	}
	for _, want := range []string{"1-quick.mcp: 1 passed, 0 failed", "2-slow.mcp: 2 passed, 0 failed", "total (3 scripts): 4 passed, 0 failed"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}

	// The report in a file: the progress shows on the terminal, the file
	// holds the report alone.
	tm = newScreen(t, run+" > report.txt")
	tm.waitFor("running 2-slow.mcp")
	tm.waitFor("EXIT=0")
	report, err := os.ReadFile(filepath.Join(dir, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(report), "\x1b") || strings.Contains(string(report), "scripts]") || !strings.Contains(string(report), "total (3 scripts)") {
		t.Errorf("the report file:\n%q", report)
	}
	// Stderr in a file: no progress at all.
	tm = newScreen(t, run+" 2> errors.txt")
	tm.waitFor("EXIT=0")
	if errs, _ := os.ReadFile(filepath.Join(dir, "errors.txt")); len(errs) != 0 {
		t.Errorf("stderr, a file, got %q", errs)
	}

	// bench: a bar while it runs, the report once it ends.
	tm = newScreen(t, fmt.Sprintf("%s bench deploy -c %s --args '{\"service\":\"x\"}' --elicit 'accept:{\"environment\":\"staging\",\"confirm\":true}' --duration 3s",
		tester, filepath.Join(bin, "deployer")))
	tm.waitFor("flows/s")
	s = tm.waitFor("EXIT=0")
	if strings.Contains(s, "] ") && strings.Contains(s, "done  ") {
		t.Errorf("the bench's bar is left on the screen:\n%s", s)
	}
	if !strings.Contains(s, "throughput:") {
		t.Errorf("no report on the screen:\n%s", s)
	}
}

// screen is a terminal (tmux, 100x30) running one shell command line, which
// prints EXIT=CODE when it ends.
type screen struct {
	t            *testing.T
	socket, name string
}

func newScreen(t *testing.T, command string) *screen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("tmux is not installed (scripts/ensure-tmux.sh installs it)")
		}
		t.Fatal("tmux is required in CI: run scripts/ensure-tmux.sh")
	}
	s := &screen{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock"), name: "progress"}
	s.tmux("new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", "-e", "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef",
		"sh", "-c", command+`; echo "EXIT=$?"; sleep 600`)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.socket, "kill-server").Run() })
	return s
}

func (s *screen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitFor polls the screen until it shows want, failing after a minute.
func (s *screen) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		shown := s.tmux("capture-pane", "-p", "-J", "-t", s.name)
		if strings.Contains(shown, want) {
			return shown
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", want, shown)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With no person to ask (stdin not a terminal), the report's lines are
// held across fast calls and written a few at a time, but the lines of the
// steps before a slow call still show while it runs: here the line of
// `ping` comes out while a three-second call is under way, through a pipe,
// not at the end.
func TestReportShowsWhileASlowCallRuns(t *testing.T) {
	bin, script := handbookScript(t, "ping\ncall_tool progressTest seconds:3\nassert_contains \"Task finished\"\n")
	cmd := exec.Command(filepath.Join(bin, "mcp-tester"), "test", script, "-c", filepath.Join(bin, "handbook")+" -step 1s")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var shown time.Time
	var report strings.Builder
	buf := make([]byte, 4096)
	for {
		n, rerr := out.Read(buf)
		report.Write(buf[:n])
		if shown.IsZero() && strings.Contains(report.String(), "ping") {
			shown = time.Now()
		}
		if rerr != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mcp-tester test: %v\n%s", err, report.String())
	}
	if left := time.Since(shown); shown.IsZero() || left < time.Second {
		t.Errorf("the line of ping came %v before the end of a run with a three-second call: want it shown while the call ran\n%s", left, report.String())
	}
}

// With --progress, where stdout and stderr are merged (2>&1, a CI log),
// the [PROGRESS] lines of a call come after the report's lines of the steps
// before it, although no person can be asked (stdin is not a terminal).
func TestProgressLinesAfterTheStepsBefore(t *testing.T) {
	bin, script := handbookScript(t, "ping\necho one\ncall_tool progressTest seconds:2\nassert_contains \"Task finished\"\n")
	out, err := exec.Command(filepath.Join(bin, "mcp-tester"), "test", script, "--progress", "-c", filepath.Join(bin, "handbook")+" -step 500ms").CombinedOutput()
	if err != nil {
		t.Fatalf("mcp-tester test: %v\n%s", err, out)
	}
	text := string(out)
	ping, echo, progress := strings.Index(text, "ping (line 1)"), strings.Index(text, "echo one"), strings.Index(text, "[PROGRESS]")
	if ping < 0 || echo < 0 || progress < 0 || progress < ping || progress < echo {
		t.Errorf("want the lines of ping and echo before the first [PROGRESS] line:\n%s", text)
	}
}

// handbookScript builds mcp-tester and the handbook server, and writes
// text as a script of a temporary folder: the folder of the binaries and
// the script's path.
func handbookScript(t *testing.T, text string) (bin, script string) {
	t.Helper()
	bin = testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/handbook")
	script = filepath.Join(t.TempDir(), "slow.mcp")
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, script
}

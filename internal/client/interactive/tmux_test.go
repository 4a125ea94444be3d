package interactive

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// The tests in this file drive the real mcp-tester binary in a real
// terminal (tmux), against the real example servers, as a person would:
// they type keys and read the screen.

const stateKey = "0123456789abcdef0123456789abcdef"

// binaries returns the folder of mcp-tester, the deployer example, the URL
// server and the ask server, built once per go test run.
func binaries(t *testing.T) string {
	t.Helper()
	return testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer", "./internal/client/interactive/testdata/urlserver", "./internal/testsupport/fixtures/askserver")
}

// screenTerm is one tmux session on a private server.
type screenTerm struct {
	t      *testing.T
	socket string
	name   string
}

// newTerm starts command (a shell command line) in a fresh 100x40 terminal
// with the given environment. The shell prints EXIT=<code> when it ends.
func newTerm(t *testing.T, env []string, command string) *screenTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("tmux is not installed (scripts/ensure-tmux.sh installs it)")
		}
		t.Fatal("tmux is required in CI: run scripts/ensure-tmux.sh")
	}
	// A private server whose socket lives (and goes) with the test.
	tm := &screenTerm{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock"), name: "e2e"}
	args := []string{"new-session", "-d", "-s", tm.name, "-x", "100", "-y", "40"}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, "sh", "-c", command+`; echo "EXIT=$?"; sleep 600`)
	tm.tmux(args...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *screenTerm) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the terminal's content, wrapped lines joined.
func (tm *screenTerm) screen() string {
	return tm.tmux("capture-pane", "-p", "-J", "-t", tm.name)
}

// waitFor polls the screen until it shows want, failing after a deadline.
func (tm *screenTerm) waitFor(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// focused waits until the field titled title has the focus (the bar).
func (tm *screenTerm) focused(title string) {
	tm.t.Helper()
	tm.waitFor("┃ " + title)
}

// keys types keys (tmux key names: Down, Enter, Escape, y).
func (tm *screenTerm) keys(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		tm.tmux("send-keys", "-t", tm.name, k)
	}
}

func deployCmd(dir, extra string) string {
	return fmt.Sprintf(`%s/mcp-tester call deploy -c %s/deployer --args '{"service":"auth-service"}'%s`, dir, dir, extra)
}

func TestTerminalDeployAccept(t *testing.T) {
	dir := binaries(t)
	rec := filepath.Join(t.TempDir(), "deploy.mcp")
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey}, deployCmd(dir, " --record "+rec))
	s := tm.waitFor("Target environment (required)")
	for _, want := range []string{"deployer asks:", "Roll out auth-service version 2.4.1 – where to?", "Staging", "Production", "I have reviewed the changes (required)", "Submit", "Decline", "Cancel"} {
		if !strings.Contains(s, want) {
			t.Errorf("the form does not show %q:\n%s", want, s)
		}
	}
	tm.keys("Down")
	tm.waitFor("> Production")
	tm.keys("Enter")
	tm.focused("I have reviewed the changes")
	tm.keys("y")
	tm.focused("Your answer")
	tm.keys("Enter")
	s = tm.waitFor("EXIT=")
	for _, want := range []string{
		`[ELICIT] Roll out auth-service version 2.4.1 – where to? → accept {"confirm":true,"environment":"production"}`,
		"Rolling out auth-service 2.4.1 to production.",
		"EXIT=0",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}

	got, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Recorded by mcp-tester. Replay: mcp-tester test -s FILE -c SERVER
elicit_response accept '{"confirm":true,"environment":"production"}'
call_tool deploy service:"auth-service"
assert_elicited "Roll out auth-service version 2.4.1 – where to?" key=target mode=form
assert_contains "Rolling out auth-service 2.4.1 to production."
`
	if string(got) != want {
		t.Errorf("recorded script:\n%s\nwant:\n%s", got, want)
	}
	if _, err := script.ParseFile(rec, got); err != nil {
		t.Errorf("the recorded script does not parse: %v", err)
	}
	replay(t, dir, rec)
}

// replay runs the recorded script with `mcp-tester test`: it must pass.
func replay(t *testing.T, dir, rec string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "mcp-tester"), "test", "-s", rec, "-c", filepath.Join(dir, "deployer"))
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY="+stateKey)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "4 passed, 0 failed") {
		t.Errorf("replaying the recorded script: %v\n%s", err, out)
	}
}

func TestTerminalDeployDecline(t *testing.T) {
	dir := binaries(t)
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey}, deployCmd(dir, ""))
	tm.waitFor("Target environment (required)")
	tm.keys("Enter")
	tm.focused("I have reviewed the changes")
	tm.keys("Enter")
	tm.focused("Your answer")
	tm.keys("Down")
	tm.waitFor("> Decline")
	tm.keys("Enter")
	s := tm.waitFor("EXIT=")
	for _, want := range []string{"→ decline", "Deployment not started (decline).", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
}

func TestTerminalDeployEscapeCancels(t *testing.T) {
	dir := binaries(t)
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey, "NO_COLOR=1"}, deployCmd(dir, ""))
	tm.waitFor("Target environment (required)")
	tm.keys("Escape")
	s := tm.waitFor("EXIT=")
	for _, want := range []string{"→ cancel", "Deployment not started (cancel).", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
}

// Ctrl-C at a full-screen form interrupts the command, as at a line
// prompt: exit 130, "interrupted", and no answer sent (the form reads the
// keys raw, so the terminal sends no signal: the key itself interrupts).
// Esc is what cancels (above).
func TestTerminalDeployCtrlCInterrupts(t *testing.T) {
	dir := binaries(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey, "NO_COLOR=1"}, deployCmd(dir, " --trace "+trace))
	tm.waitFor("Target environment (required)")
	tm.keys("C-c")
	s := tm.waitFor("EXIT=")
	for _, want := range []string{"mcp-tester: interrupted", "EXIT=130"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	for _, unwanted := range []string{"→ cancel", "→ decline", "Deployment not started"} {
		if strings.Contains(s, unwanted) {
			t.Errorf("the screen shows %q, though nothing was answered:\n%s", unwanted, s)
		}
	}
	sent, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(sent), "\n") {
		if strings.Contains(line, `"dir":"out"`) && strings.Contains(line, `"method":"tools/call"`) {
			n++
		}
	}
	if n != 1 || strings.Contains(string(sent), "inputResponses") {
		t.Errorf("after Ctrl-C at the form the tester sent %d tools/call (want the first alone, no answer):\n%s", n, sent)
	}
}

func TestTerminalURLConsent(t *testing.T) {
	dir := binaries(t)
	for _, c := range []struct {
		key, result string
		opened      bool
	}{
		{"n", "Not connected (decline).", false},
		{"y", "Connected: the link was opened.", true},
	} {
		t.Run(c.key, func(t *testing.T) {
			browser, log := recorder(t)
			link := "http://93.184.216.34/connect/github?session=abc"
			tm := newTerm(t, []string{"MCP_TESTER_BROWSER=" + browser},
				fmt.Sprintf(`%s/mcp-tester call connect -c %s/urlserver --args '{"url":"%s"}'`, dir, dir, link))
			s := tm.waitFor("Open this link in your browser?")
			for _, want := range []string{"urlserver asks you to open a link:", "Connect your GitHub account so I can create issues.",
				link, "Site: 93.184.216.34", "Warning: the host is the raw IP address 93.184.216.34", "Warning: the URL uses plain http"} {
				if !strings.Contains(s, want) {
					t.Errorf("the question does not show %q:\n%s", want, s)
				}
			}
			if _, err := os.Stat(log); err == nil {
				t.Fatal("the browser was started before the person agreed")
			}
			tm.keys(c.key)
			s = tm.waitFor("EXIT=")
			if !strings.Contains(s, c.result) || !strings.Contains(s, "EXIT=0") {
				t.Errorf("the screen lacks %q:\n%s", c.result, s)
			}
			got, _ := os.ReadFile(log)
			if opened := string(got) == link+"\n"; opened != c.opened {
				t.Errorf("browser got %q; want opened=%v", got, c.opened)
			}
		})
	}
}

func TestTerminalAccessibleMode(t *testing.T) {
	dir := binaries(t)
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey, "ACCESSIBLE=1"}, deployCmd(dir, ""))
	tm.waitFor("Enter a number between 1 and 2")
	tm.keys("2", "Enter")
	tm.waitFor("[y/N]")
	tm.keys("y", "Enter")
	tm.waitFor("Enter a number between 1 and 3")
	tm.keys("Enter") // Submit is the default
	s := tm.waitFor("EXIT=")
	if !strings.Contains(s, "Rolling out auth-service 2.4.1 to production.") {
		t.Errorf("the screen lacks the result:\n%s", s)
	}
	if raw := tm.tmux("capture-pane", "-p", "-e", "-J", "-t", tm.name); len(sgrColors(raw)) > 0 || strings.Contains(raw, "\x1b[1m") {
		t.Errorf("accessible mode drew styles %q:\n%q", sgrColors(raw), raw)
	}
}

// sgrColors returns the color parameters of the SGR escape sequences in s.
func sgrColors(s string) []string {
	var found []string
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return found
		}
		s = s[i+2:]
		end := strings.IndexByte(s, 'm')
		if end < 0 || strings.ContainsAny(s[:end], "\x1b?") {
			continue
		}
		params := strings.Split(s[:end], ";")
		for j := 0; j < len(params); j++ {
			var n int
			if _, err := fmt.Sscanf(params[j], "%d", &n); err != nil {
				continue
			}
			if n >= 30 && n <= 49 && n != 39 && n != 49 || n >= 90 && n <= 107 { // 39, 49: default colors
				found = append(found, params[j])
			}
			if n == 38 || n == 48 {
				j += 2 // 38;5;N or 38;2;R;G;B: the rest belongs to the color
			}
		}
		s = s[end:]
	}
}

func TestTerminalNoColor(t *testing.T) {
	dir := binaries(t)
	for _, noColor := range []bool{false, true} {
		t.Run(fmt.Sprintf("NO_COLOR=%v", noColor), func(t *testing.T) {
			env := []string{"TERM=xterm-256color", "COLORTERM=truecolor"}
			if noColor {
				env = append(env, "NO_COLOR=1")
			}
			tm := newTerm(t, env, fmt.Sprintf(`%s/mcp-tester call connect -c %s/urlserver`, dir, dir))
			s := tm.waitFor("Open this link in your browser?")
			if noColor && !strings.Contains(s, "[No]") {
				t.Errorf("without colors the chosen answer is not marked:\n%s", s)
			}
			raw := tm.tmux("capture-pane", "-p", "-e", "-J", "-t", tm.name)
			colors := sgrColors(raw)
			if noColor && len(colors) > 0 {
				t.Errorf("NO_COLOR is set, but the screen has colors %q:\n%q", colors, raw)
			}
			if !noColor && len(colors) == 0 {
				t.Errorf("no colors without NO_COLOR: the check would prove nothing:\n%q", raw)
			}
			tm.keys("Escape")
			if s := tm.waitFor("EXIT="); !strings.Contains(s, "Not connected (cancel).") {
				t.Errorf("Esc did not cancel the URL question:\n%s", s)
			}
		})
	}
}

func TestTerminalResize(t *testing.T) {
	dir := binaries(t)
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey}, deployCmd(dir, ""))
	tm.waitFor("Target environment (required)")
	for _, width := range []string{"44", "120"} {
		tm.tmux("resize-window", "-t", tm.name, "-x", width, "-y", "30")
		// The form is drawn again at the new size, whole.
		s := tm.waitFor("Cancel")
		for _, want := range []string{"Target environment", "Production", "I have reviewed"} {
			if !strings.Contains(s, want) {
				t.Errorf("after resizing to %s columns the form lacks %q:\n%s", width, want, s)
			}
		}
	}
	tm.keys("Down")
	tm.waitFor("> Production")
	tm.keys("Enter")
	tm.focused("I have reviewed the changes")
	tm.keys("y")
	tm.focused("Your answer")
	tm.keys("Enter")
	if s := tm.waitFor("EXIT="); !strings.Contains(s, "Rolling out auth-service 2.4.1 to production.") {
		t.Errorf("the form did not work after resizing:\n%s", s)
	}
}

func TestTerminalTwoQuestionsInARow(t *testing.T) {
	dir := binaries(t)
	tm := newTerm(t, nil, fmt.Sprintf(`%s/mcp-tester call pair -c %s/askserver`, dir, dir))
	tm.waitFor("Question A?")
	tm.focused("OK?")
	tm.keys("Down") // (no answer) → Yes
	tm.waitFor("> Yes")
	tm.keys("Enter")
	tm.focused("Your answer")
	tm.keys("Enter")
	tm.waitFor("Question B?")
	// The very first key of the second form must reach it.
	tm.keys("Escape")
	s := tm.waitFor("EXIT=")
	for _, want := range []string{`[ELICIT] Question A? → accept {"ok":true}`, "[ELICIT] Question B? → cancel", `a=accept {"ok":true}; b=cancel`, "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
}

// TestTerminalOptionalBooleanLeftUntouched: an optional yes/no field the
// person never touched is left out of the answer (it was sent as false);
// one the person answers No is sent as false.
func TestTerminalOptionalBooleanLeftUntouched(t *testing.T) {
	dir := binaries(t)
	tm := newTerm(t, nil, fmt.Sprintf(`%s/mcp-tester call pair -c %s/askserver`, dir, dir))
	tm.waitFor("Question A?")
	tm.focused("OK?")
	tm.waitFor("> (no answer)")
	tm.keys("Enter")
	tm.focused("Your answer")
	tm.keys("Enter")
	tm.waitFor("Question B?")
	tm.focused("OK?")
	tm.keys("Down", "Down")
	tm.waitFor("> No")
	tm.keys("Enter")
	tm.focused("Your answer")
	tm.keys("Enter")
	s := tm.waitFor("EXIT=")
	for _, want := range []string{"[ELICIT] Question A? → accept {}", `[ELICIT] Question B? → accept {"ok":false}`, `a=accept; b=accept {"ok":false}`, "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
}

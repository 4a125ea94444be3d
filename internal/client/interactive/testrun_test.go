package interactive

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests in this file run `mcp-tester test` on a script that leaves a
// question unanswered: a person answers it, and --record saves the run as
// a script that replays without anyone.

// askScript writes a script that calls deploy with no elicit_response.
func askScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ask.mcp")
	src := "call_tool deploy service:\"auth-service\"\nassert_contains \"to production\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const recordedDeploy = `# Recorded by mcp-tester. Replay: mcp-tester test -s FILE -c SERVER
elicit_response accept '{"confirm":true,"environment":"production"}'
call_tool deploy service:"auth-service"
assert_elicited "Roll out auth-service version 2.4.1 – where to?" key=target mode=form
assert_contains "Rolling out auth-service 2.4.1 to production."
`

func checkRecording(t *testing.T, rec string) {
	t.Helper()
	got, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != recordedDeploy {
		t.Errorf("recorded script:\n%s\nwant:\n%s", got, recordedDeploy)
	}
}

// TestScriptRunAnsweredOnPipe answers with accessible line prompts fed on
// stdin, as a screen reader user or a driving program would.
func TestScriptRunAnsweredOnPipe(t *testing.T) {
	dir := binaries(t)
	rec := filepath.Join(t.TempDir(), "out.mcp")
	if err := os.WriteFile(rec, []byte("# an earlier recording, replaced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(dir, "mcp-tester"), "test", "-s", askScript(t), "-c", filepath.Join(dir, "deployer"),
		"--interactive", "--accessible", "--record", rec)
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY="+stateKey)
	// Production (2 of 2), reviewed: yes, then Submit (the default).
	cmd.Stdin = strings.NewReader("2\ny\n\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-tester test: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "2 passed, 0 failed") {
		t.Errorf("the report:\n%s", &stdout)
	}
	if !strings.Contains(stderr.String(), "Target environment") {
		t.Errorf("the person was not shown the question on stderr:\n%s", &stderr)
	}
	checkRecording(t, rec)
	replay(t, dir, rec)
}

// TestScriptRunInputVarAndPersonShareStdin: input_var and the person's
// prompts read one stdin, each taking its own lines.
func TestScriptRunInputVarAndPersonShareStdin(t *testing.T) {
	dir := binaries(t)
	path := filepath.Join(t.TempDir(), "var.mcp")
	src := "input_var svc \"Service?\"\ncall_tool deploy service:$svc\nassert_contains \"to production\"\ninput_var after\necho $after\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "out.mcp")
	cmd := exec.Command(filepath.Join(dir, "mcp-tester"), "test", "-s", path, "-c", filepath.Join(dir, "deployer"),
		"--interactive", "--record", rec)
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY="+stateKey)
	cmd.Stdin = strings.NewReader("auth-service\n2\ny\n\nthe-end\n")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "5 passed, 0 failed") || !strings.Contains(string(out), "the-end") {
		t.Fatalf("mcp-tester test: %v\n%s", err, out)
	}
	checkRecording(t, rec)
}

// TestScriptRunPersonWhoNeverAnswers: the step ends at --step-timeout
// even though the person is still being asked.
func TestScriptRunPersonWhoNeverAnswers(t *testing.T) {
	dir := binaries(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // open, silent: nobody types
	cmd := exec.Command(filepath.Join(dir, "mcp-tester"), "test", "-s", askScript(t), "-c", filepath.Join(dir, "deployer"),
		"--interactive", "--step-timeout", "1s")
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY="+stateKey)
	cmd.Stdin = r
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "0 passed, 2 failed") {
		t.Errorf("want the step failed at its time limit: %v\n%s", err, out)
	}
}

// TestScriptRunWithoutPersonDeclines: on a pipe without --interactive
// nobody is asked, and the question is declined as before.
func TestScriptRunWithoutPersonDeclines(t *testing.T) {
	dir := binaries(t)
	cmd := exec.Command(filepath.Join(dir, "mcp-tester"), "test", "-s", askScript(t), "-c", filepath.Join(dir, "deployer"))
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY="+stateKey)
	cmd.Stdin = strings.NewReader("2\ny\n\n")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not started (decline)") {
		t.Errorf("want the question declined and the check failed: %v\n%s", err, out)
	}
}

func TestScriptRunPersonRefusesJobs(t *testing.T) {
	dir := binaries(t)
	for _, flag := range []string{"--interactive", "--record=" + filepath.Join(t.TempDir(), "x.mcp")} {
		cmd := exec.Command(filepath.Join(dir, "mcp-tester"), "test", "-s", askScript(t), "-c", filepath.Join(dir, "deployer"), "--jobs", "2", flag)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "one script at a time") {
			t.Errorf("%s --jobs 2: want a usage error (exit 2): %v\n%s", flag, err, out)
		}
	}
}

// TestTerminalScriptRunAnswered answers the question in the terminal form.
func TestTerminalScriptRunAnswered(t *testing.T) {
	dir := binaries(t)
	rec := filepath.Join(t.TempDir(), "out.mcp")
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey},
		dir+"/mcp-tester test -s "+askScript(t)+" -c "+dir+"/deployer --record "+rec)
	tm.waitFor("Target environment (required)")
	tm.keys("Down")
	tm.waitFor("> Production")
	tm.keys("Enter")
	tm.focused("I have reviewed the changes")
	tm.keys("y")
	tm.focused("Your answer")
	tm.keys("Enter")
	s := tm.waitFor("EXIT=")
	if !strings.Contains(s, "2 passed, 0 failed") || !strings.Contains(s, "EXIT=0") {
		t.Errorf("the screen lacks a passing run:\n%s", s)
	}
	checkRecording(t, rec)
	replay(t, dir, rec)
}

// TestTerminalScriptRunInputVarAfterForm: after a form, input_var still
// reads the next line typed in the terminal.
func TestTerminalScriptRunInputVarAfterForm(t *testing.T) {
	dir := binaries(t)
	path := filepath.Join(t.TempDir(), "var.mcp")
	src := "call_tool deploy service:\"auth-service\"\ninput_var after \"After?\"\necho got-$after\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := newTerm(t, []string{"DEPLOY_STATE_KEY=" + stateKey, "ACCESSIBLE="}, dir+"/mcp-tester test -s "+path+" -c "+dir+"/deployer")
	tm.waitFor("Target environment (required)")
	tm.keys("Enter")
	tm.focused("I have reviewed the changes")
	tm.keys("y")
	tm.focused("Your answer")
	tm.keys("Enter")
	tm.waitFor("After?")
	tm.keys("the-end", "Enter")
	s := tm.waitFor("EXIT=")
	if !strings.Contains(s, "got-the-end") || !strings.Contains(s, "EXIT=0") {
		t.Errorf("input_var did not read the line typed after the form:\n%s", s)
	}
}

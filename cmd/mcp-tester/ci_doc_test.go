package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/askback/askback/internal/report/sarif/sariftest"
	"github.com/askback/askback/internal/testsupport/docexamples"
	"github.com/askback/askback/internal/testsupport/testbin"
	"go.yaml.in/yaml/v3"
)

// ciRun runs a shell script from root with bin first on PATH and env, and
// returns what it printed and its exit code.
func ciRun(t *testing.T, root, script string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, ".config"))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return string(out), code
}

// knownCommand reports whether this build of mcp-tester has the command a
// line runs (grade comes with the scan).
func knownCommand(t *testing.T, root, line string) bool {
	f := strings.Fields(line)
	if len(f) < 2 {
		return true
	}
	_, code := ciRun(t, root, "mcp-tester "+f[1]+" --help >/dev/null 2>&1")
	return code == 0
}

// actionStep is the bash script of the action's step called name, from
// action.yml.
func actionStep(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Name   string
		Inputs map[string]struct {
			Required bool
			Default  string
		}
		Runs struct {
			Using string
			Steps []struct {
				Name, Run, Shell, Uses string
			}
		}
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" || !action.Inputs["command"].Required || action.Inputs["version"].Default != "latest" {
		t.Fatalf("action.yml: want a composite action with a required command and a version defaulting to latest: %+v", action)
	}
	for _, s := range action.Runs.Steps {
		if s.Name == name {
			if s.Shell != "bash" {
				t.Fatalf("action.yml: step %q runs in %q, want bash", name, s.Shell)
			}
			return s.Run
		}
	}
	t.Fatalf("action.yml has no step %q", name)
	return ""
}

// The action installs mcp-tester with go install, once per job, at the
// version asked, and puts it on PATH.
func TestActionInstalls(t *testing.T) {
	script := actionStep(t, "Install mcp-tester")
	bin := testbin.Need(t, "./cmd/mcp-tester")
	fake := t.TempDir()
	calls := filepath.Join(fake, "calls")
	goScript := "#!/bin/bash\necho \"$*\" >> '" + calls + "'\nmkdir -p \"$GOBIN\" && cp '" + filepath.Join(bin, "mcp-tester") + "' \"$GOBIN/mcp-tester\"\n"
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	runner := t.TempDir()
	ghPath := filepath.Join(runner, "path")
	for range 2 {
		cmd := exec.Command("bash", "-c", script)
		cmd.Env = []string{"PATH=" + fake + ":/usr/bin:/bin", "RUNNER_TEMP=" + runner, "GITHUB_PATH=" + ghPath, "MCP_TESTER_VERSION=v1.2.3"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the install step failed: %v\n%s", err, out)
		}
	}
	got, _ := os.ReadFile(calls)
	if string(got) != "install github.com/askback/askback/cmd/mcp-tester@v1.2.3\n" {
		t.Errorf("go was run as %q, want once: install github.com/askback/askback/cmd/mcp-tester@v1.2.3", got)
	}
	p, _ := os.ReadFile(ghPath)
	if want := filepath.Join(runner, "mcp-tester-v1.2.3") + "\n"; !strings.HasPrefix(string(p), want) {
		t.Errorf("GITHUB_PATH got %q, want %q", p, want)
	}
}

// The action runs the command as bash reads it and hands on its exit code.
func TestActionRunsTheCommand(t *testing.T) {
	script := actionStep(t, "Run mcp-tester")
	root := exampleRoot(t)
	out := filepath.Join(root, "github-output")
	got, code := ciRun(t, root, script, "GITHUB_OUTPUT="+out, `MCP_TESTER_COMMAND=ping -c "$SERVER" --format json > ping.json`, "SERVER=bin/deployer")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "ping.json")); !strings.Contains(string(b), `"ok": true`) {
		t.Errorf("the redirection did not write ping.json: %q", b)
	}
	_, code = ciRun(t, root, script, "GITHUB_OUTPUT="+out, "MCP_TESTER_COMMAND=ping -c false")
	if code != 3 {
		t.Errorf("an unreachable server: exit %d, want 3", code)
	}
	if b, _ := os.ReadFile(out); string(b) != "exit-code=0\nexit-code=3\n" {
		t.Errorf("GITHUB_OUTPUT: %q", b)
	}
}

// docs/ci.md is complete as written: its console commands print what it
// shows (as TestDocExamplesRun checks every document), its workflows parse
// as YAML, and every mcp-tester command in them
// (run by the action, a run step or a GitLab script) passes against the
// example server from the repository root. What only GitHub or GitLab can
// run (checkout, setup-go, upload-sarif, gh, make build) is checked for
// shape.
func TestCIDocRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CI examples")
	}
	action := actionStep(t, "Run mcp-tester")
	src, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, errs := docexamples.Parse("docs/ci.md", string(src))
	for _, e := range errs {
		t.Fatal(e)
	}
	// The console blocks first (they save catalog.json), as the document
	// runs them; then the workflows, in the same folder.
	root := runDocExamples(t, exampleRoot(t), docexamples.Commands(blocks, t.TempDir()))
	workflows := 0
	ran := 0
	run := func(where, line, script string, env []string) {
		t.Helper()
		if !knownCommand(t, root, line) {
			t.Logf("%s: %s: not in this build of mcp-tester yet; not run", where, line)
			return
		}
		got, code := ciRun(t, root, script, env...)
		if code != 0 {
			t.Errorf("%s: %s: exit %d\n%s", where, line, code, got)
		}
		ran++
	}
	for _, b := range blocks {
		if b.Lang != "yaml" {
			continue
		}
		first, _, _ := strings.Cut(b.Text, "\n")
		file := strings.TrimPrefix(first, "# ")
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(b.Text), &doc); err != nil {
			t.Errorf("docs/ci.md:%d: %s does not parse: %v", b.Line, file, err)
			continue
		}
		workflows++
		switch {
		case strings.HasPrefix(file, ".github/workflows/"):
			runGitHubWorkflow(t, file, doc, action, run)
		case file == ".gitlab-ci.yml":
			runGitLabCI(t, doc, run)
		default:
			t.Errorf("docs/ci.md:%d: a YAML block that names no workflow file on its first line: %q", b.Line, first)
		}
	}
	if workflows < 3 {
		t.Errorf("docs/ci.md has %d workflows, want the GitHub one, the plain one and GitLab's", workflows)
	}
	if ran < 8 {
		t.Errorf("only %d commands of docs/ci.md ran", ran)
	}
	// The SARIF the workflow uploads is valid.
	if sariftest.Ready(moduleRoot(t)) || os.Getenv("CI") != "" {
		for _, f := range []string{"audit.sarif", "catalog.sarif"} {
			b, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				t.Errorf("the workflow wrote no %s: %v", f, err)
				continue
			}
			sariftest.Validate(t, b)
		}
	}
}

// stringMap reads a YAML mapping of strings (env, variables).
func stringMap(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k, x := range m {
		if s, ok := x.(string); ok {
			out = append(out, k+"="+s)
		}
	}
	return out
}

var ourAction = regexp.MustCompile(`^askback/askback@`)

func runGitHubWorkflow(t *testing.T, file string, doc map[string]any, action string, run func(where, line, script string, env []string)) {
	t.Helper()
	if doc["on"] == nil || doc["jobs"] == nil {
		t.Errorf("%s: no on or jobs", file)
		return
	}
	env := stringMap(doc["env"])
	jobs, _ := doc["jobs"].(map[string]any)
	for name, j := range jobs {
		job, _ := j.(map[string]any)
		jobEnv := append(env, stringMap(job["env"])...)
		steps, _ := job["steps"].([]any)
		if len(steps) == 0 {
			t.Errorf("%s: job %s has no steps", file, name)
		}
		for i, s := range steps {
			step, _ := s.(map[string]any)
			uses, _ := step["uses"].(string)
			script, _ := step["run"].(string)
			where := fmt.Sprintf("%s: job %s: step %d", file, name, i+1)
			switch {
			case uses == "" && script == "":
				t.Errorf("%s: neither uses nor run", where)
			case ourAction.MatchString(uses):
				with, _ := step["with"].(map[string]any)
				command, _ := with["command"].(string)
				if command == "" {
					t.Errorf("%s: the action without a command", where)
					continue
				}
				run(where, "mcp-tester "+command, action, append(jobEnv, "MCP_TESTER_COMMAND="+command, "GITHUB_OUTPUT="+filepath.Join(t.TempDir(), "out")))
			case strings.HasPrefix(strings.TrimSpace(script), "mcp-tester "):
				run(where, script, script, jobEnv)
			case strings.HasPrefix(strings.TrimSpace(script), "go install"):
				if !strings.Contains(script, "github.com/askback/askback/cmd/mcp-tester@") {
					t.Errorf("%s: installs something else than mcp-tester: %s", where, script)
				}
			}
		}
	}
}

func runGitLabCI(t *testing.T, doc map[string]any, run func(where, line, script string, env []string)) {
	t.Helper()
	env := stringMap(doc["variables"])
	for name, j := range doc {
		job, ok := j.(map[string]any)
		if !ok || name == "variables" {
			continue
		}
		for _, key := range []string{"before_script", "script"} {
			lines, _ := job[key].([]any)
			for _, l := range lines {
				line, _ := l.(string)
				switch {
				case strings.HasPrefix(line, "mcp-tester "):
					run(".gitlab-ci.yml: job "+name, line, line, env)
				case strings.HasPrefix(line, "go install"):
					if !strings.Contains(line, "github.com/askback/askback/cmd/mcp-tester@$MCP_TESTER_VERSION") {
						t.Errorf(".gitlab-ci.yml: job %s installs %q", name, line)
					}
				}
			}
		}
		if strings.HasPrefix(name, "mcp-") && job["extends"] != ".mcp-tester" {
			t.Errorf(".gitlab-ci.yml: job %s does not extend .mcp-tester (where mcp-tester is installed)", name)
		}
	}
}

package audit_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mcpTester builds the tester into bin (once per test binary).
func mcpTester(t *testing.T) string {
	t.Helper()
	needBin(t)
	exe := filepath.Join(bin, "mcp-tester")
	if _, err := os.Stat(exe); err != nil {
		out, err := exec.Command("go", "build", "-o", exe, "github.com/askback/askback/cmd/mcp-tester").CombinedOutput()
		if err != nil {
			t.Fatalf("building mcp-tester: %v\n%s", err, out)
		}
	}
	return exe
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// The exit status says what happened: 0 nothing failed, 1 a rule failed,
// 2 bad flags, 3 the audit could not run.
func TestCLIExitStatus(t *testing.T) {
	exe := mcpTester(t)
	rb := filepath.Join(bin, "rulebreaker")
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"-c", rb + " -variant good"}, 0},
		{[]string{"-c", rb + " -variant secret"}, 1},
		{[]string{"-c", rb, "--format", "yaml"}, 2},
		{[]string{"-c", rb, "--other-header", "Authorization: Bearer bob"}, 2},
		{[]string{"-c", rb, "--args", "quote"}, 2},
		{[]string{"-c", rb, "--protocol", "1999-01-01"}, 2},
		{[]string{"-u", "http://127.0.0.1:1/mcp", "--timeout", "2s"}, 3},
		{[]string{"-c", "exit 1"}, 3},
	}
	for _, c := range cases {
		cmd := exec.Command(exe, append([]string{"audit", "-q"}, c.args...)...)
		out, err := cmd.CombinedOutput()
		if got := exitCode(t, err); got != c.code {
			t.Errorf("audit %s: exit %d, want %d\n%s", strings.Join(c.args, " "), got, c.code, out)
		}
	}
}

// --format json and --junit give machine-readable reports that agree.
func TestCLIReports(t *testing.T) {
	exe := mcpTester(t)
	junit := filepath.Join(t.TempDir(), "audit.xml")
	cmd := exec.Command(exe, "audit", "-q", "-c", filepath.Join(bin, "rulebreaker")+" -variant schema", "--format", "json", "--junit", junit)
	out, err := cmd.Output()
	if code := exitCode(t, err); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var rep struct {
		Server   string `json:"server"`
		Subjects []struct {
			Kind, Name string
			Results    []struct {
				Rule     int
				ID       string
				Status   string
				Evidence []struct{ What, Sent, Got string }
			}
		}
		Score struct{ Passed, Failed, Applicable int }
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	failed := 0
	for _, s := range rep.Subjects {
		for _, r := range s.Results {
			if r.Status == "fail" {
				failed++
				if r.Rule != 6 || r.ID != "form-schema-subset" || len(r.Evidence) == 0 || r.Evidence[0].Got == "" {
					t.Errorf("%s %s: unexpected failure %+v", s.Kind, s.Name, r)
				}
			}
		}
	}
	if failed == 0 || failed != rep.Score.Failed {
		t.Fatalf("%d failures listed, score says %d", failed, rep.Score.Failed)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("JUnit not XML: %v", err)
	}
	if suites.Failures != failed || suites.Tests == 0 {
		t.Fatalf("JUnit: %d tests, %d failures; JSON: %d failures", suites.Tests, suites.Failures, failed)
	}
}

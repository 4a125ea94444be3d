package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
)

// The exit status of audit says what happened: 0 nothing failed, 1 a rule
// failed, 2 bad flags, 3 the audit could not run.
func TestAuditExitStatus(t *testing.T) {
	rb := filepath.Join(buildServers(t), "rulebreaker")
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"-c", rb + " -variant good"}, cli.ExitOK},
		{[]string{"-c", rb + " -variant secret"}, cli.ExitFailed},
		{[]string{"-c", rb, "--format", "yaml"}, cli.ExitUsage},
		{[]string{"-c", rb, "--other-header", "Authorization: Bearer bob"}, cli.ExitUsage},
		{[]string{"-c", rb, "--args", "quote"}, cli.ExitUsage},
		{[]string{"-c", rb, "--protocol", "1999-01-01"}, cli.ExitUsage},
		{[]string{"-u", "http://127.0.0.1:1/mcp", "--timeout", "2s"}, cli.ExitUnreachable},
		{[]string{"-c", "exit 1"}, cli.ExitUnreachable},
	}
	for _, c := range cases {
		io, _, out, errOut := iostreams.Test()
		if got := cli.Main(context.Background(), io, append([]string{"audit", "-q"}, c.args...)); got != c.code {
			t.Errorf("audit %s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), got, c.code, out, errOut)
		}
	}
}

// audit --format json and --junit give machine-readable reports that agree.
func TestAuditReports(t *testing.T) {
	rb := filepath.Join(buildServers(t), "rulebreaker")
	junit := filepath.Join(t.TempDir(), "audit.xml")
	io, _, out, errOut := iostreams.Test()
	code := cli.Main(context.Background(), io, []string{"audit", "-q", "-c", rb + " -variant schema", "--format", "json", "--junit", junit})
	if code != cli.ExitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, cli.ExitFailed, errOut)
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
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
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

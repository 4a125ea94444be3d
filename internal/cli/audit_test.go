package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
)

func TestNewAuditCmd(t *testing.T) {
	conn := connDefaults("./deployer", true)
	traced := connDefaults("x", true)
	traced.TraceFile = "t.jsonl"
	runFlagCases(t, newAuditCmd, []flagCase[AuditOptions]{
		{name: "defaults", args: []string{"-c", "./deployer"},
			want: AuditOptions{Conn: conn, Format: "text", SARIFFile: "catalog.json"}},
		{name: "everything", args: []string{"-u", "http://127.0.0.1:1/mcp", "-H", "Authorization: Bearer a", "--other-header", "Authorization: Bearer b",
			"--args", `search={"q":"x"}`, "--include", "deploy", "--include", "*", "--format", "json", "--junit", "a.xml", "--html", "a.html", "-q", "--max-rounds", "4", "--timeout", "3s"},
			want: AuditOptions{Conn: ConnOptions{URL: "http://127.0.0.1:1/mcp", Headers: []string{"Authorization: Bearer a"}, Transport: "auto", Timeout: 3 * time.Second, MaxRounds: 4},
				auditFlags: auditFlags{OtherHeaders: []string{"Authorization: Bearer b"}, Args: []string{`search={"q":"x"}`}, Include: []string{"deploy", "*"}},
				Format:     "json", SARIFFile: "catalog.json", JUnit: "a.xml", HTML: "a.html", Quiet: true}},
		// Each probe declares its own capabilities and makes its own answers.
		{name: "no --no-url", args: []string{"-c", "x", "--no-url"}, wantErr: "unknown flag: --no-url"},
		{name: "no --no-validate", args: []string{"-c", "x", "--no-validate"}, wantErr: "unknown flag: --no-validate"},
		{name: "the trace", args: []string{"-c", "x", "--trace", "t.jsonl"}, want: AuditOptions{Conn: traced, Format: "text", SARIFFile: "catalog.json"}},
		{name: "no arguments", args: []string{"-c", "x", "extra"}, wantErr: `unknown command "extra"`},
	})
}

// -p takes the server and its settings from a profile, as in every other
// command that connects.
func TestAuditTakesTheProfile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	yml := "profiles:\n  web:\n    url: http://127.0.0.1:1/mcp\n    headers:\n      X-Team: a\n    protocol: 2025-11-25\n    timeout: 7s\n"
	if err := os.WriteFile(filepath.Join(dir, "mcp-tester.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	var got *AuditOptions
	if err := execute(newAuditCmd(ios, capture(&got)), "-p", "web"); err != nil {
		t.Fatal(err)
	}
	aopts, err := got.auditOptions()
	if err != nil {
		t.Fatal(err)
	}
	if aopts.Target.URL != "http://127.0.0.1:1/mcp" || len(aopts.Target.Headers) != 1 || aopts.Protocol != "2025-11-25" || aopts.Timeout != 7*time.Second {
		t.Errorf("audit options after -p web: target %+v, protocol %q, timeout %s", aopts.Target, aopts.Protocol, aopts.Timeout)
	}
}

// The whole audit is bounded by default: 20 × --timeout unless --deadline
// is given (0: no limit).
func TestAuditDeadline(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"-c", "x"}, 20 * 30 * time.Second},
		{[]string{"-c", "x", "--timeout", "2s"}, 40 * time.Second},
		{[]string{"-c", "x", "--deadline", "5s"}, 5 * time.Second},
		{[]string{"-c", "x", "--deadline", "0"}, 0},
	} {
		ios, _, _, _ := iostreams.Test()
		var got *AuditOptions
		if err := execute(newAuditCmd(ios, capture(&got)), c.args...); err != nil {
			t.Fatal(err)
		}
		aopts, err := got.auditOptions()
		if err != nil {
			t.Fatal(err)
		}
		if aopts.Deadline != c.want {
			t.Errorf("%v: deadline %s, want %s", c.args, aopts.Deadline, c.want)
		}
	}
}

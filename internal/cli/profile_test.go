package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/iostreams"
	"github.com/spf13/cobra"
)

func TestMergeHeadersFlagsWin(t *testing.T) {
	got := mergeHeaders([]string{"Authorization: Bearer from-profile", "X-Team: a"}, []string{"authorization: Bearer from-flag"})
	want := "X-Team: a|authorization: Bearer from-flag"
	if strings.Join(got, "|") != want {
		t.Errorf("mergeHeaders = %q, want %q", got, want)
	}
}

// A profile fills what the flags leave out; the flags given win.
func TestApplyProfilePrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("MT_TOKEN", "t0k")
	yml := "profiles:\n  web:\n    url: http://127.0.0.1:1/mcp\n    headers:\n      Authorization: Bearer ${MT_TOKEN}\n    protocol: 2025-11-25\n    timeout: 7s\n"
	if err := os.WriteFile(filepath.Join(dir, "mcp-tester.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := &cobra.Command{Use: "x"}
	opts := &ConnOptions{}
	addConnFlags(cmd, opts)
	if err := cmd.Flags().Parse([]string{"-p", "web", "--timeout", "3s"}); err != nil {
		t.Fatal(err)
	}
	if err := opts.applyProfile(); err != nil {
		t.Fatal(err)
	}
	if opts.URL != "http://127.0.0.1:1/mcp" || opts.Protocol != "2025-11-25" || opts.Timeout.String() != "3s" {
		t.Errorf("after the profile: url %q protocol %q timeout %s", opts.URL, opts.Protocol, opts.Timeout)
	}
	if len(opts.Headers) != 1 || opts.Headers[0] != "Authorization: Bearer t0k" {
		t.Errorf("headers = %q, want the token from the environment", opts.Headers)
	}
}

func TestFormatFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		bad  bool
	}{
		{nil, "text", false},
		{[]string{"--format", "json"}, "json", false},
		{[]string{"--json"}, "json", false},
		{[]string{"--json=false"}, "text", false},
		{[]string{"--format", "xml"}, "", true},
	} {
		ios, _, _, _ := iostreams.Test()
		cmd := newToolsCmd(ios).Commands()[0]
		err := cmd.Flags().Parse(tc.args)
		if tc.bad != (err != nil) {
			t.Errorf("%v: error %v", tc.args, err)
			continue
		}
		if got := cmd.Flags().Lookup("format").Value.String(); !tc.bad && got != tc.want {
			t.Errorf("%v: format %q, want %q", tc.args, got, tc.want)
		}
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/profile"
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

func TestNewProfileCmds(t *testing.T) {
	runFlagCases(t, newProfileAddCmd, []flagCase[ProfileAddOptions]{
		{name: "a command", args: []string{"deployer", "-c", "./bin/deployer", "--local"},
			want: ProfileAddOptions{Name: "deployer", Profile: profile.Profile{Command: "./bin/deployer"}, Local: true}},
		{name: "a URL with everything", args: []string{"staging", "-u", "https://s.example/mcp", "-H", "Authorization: Bearer ${T}", "--transport", "sse", "--protocol", "2025-11-25", "--timeout", "20s", "--global", "--force"},
			want: ProfileAddOptions{Name: "staging", Profile: profile.Profile{URL: "https://s.example/mcp", Transport: "sse", Protocol: "2025-11-25", Timeout: "20s"},
				Headers: []string{"Authorization: Bearer ${T}"}, Timeout: 20 * time.Second, Global: true, Force: true}},
		{name: "no name", args: []string{"-c", "x"}, wantErr: "accepts 1 arg(s), received 0"},
		{name: "no trace", args: []string{"x", "--trace", "t"}, wantErr: "unknown flag: --trace"},
	})
	runFlagCases(t, newProfileListCmd, []flagCase[ProfileListOptions]{
		{name: "text", args: nil, want: ProfileListOptions{Format: "text"}},
		{name: "json", args: []string{"--format", "json"}, want: ProfileListOptions{Format: "json"}},
		{name: "no arguments", args: []string{"x"}, wantErr: `unknown command "x"`},
	})
	runFlagCases(t, newProfileShowCmd, []flagCase[ProfileShowOptions]{
		{name: "text", args: []string{"staging"}, want: ProfileShowOptions{Name: "staging", Format: "text"}},
		{name: "json", args: []string{"staging", "--format", "json"}, want: ProfileShowOptions{Name: "staging", Format: "json"}},
	})
	runFlagCases(t, newProfileRemoveCmd, []flagCase[ProfileRemoveOptions]{
		{name: "a name", args: []string{"staging"}, want: ProfileRemoveOptions{Name: "staging"}},
		{name: "no name", args: nil, wantErr: "accepts 1 arg(s), received 0"},
	})
}

// --connect-timeout as the session takes it: not given, the session's
// default (0); given, its value, and 0 there is none (negative); a
// profile's connect_timeout alike, the flag given winning.
func TestConnectTimeoutFlagAndProfile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	yml := "profiles:\n  slow:\n    command: x\n    connect_timeout: 5m\n  unbounded:\n    command: x\n    connect_timeout: 0s\n  plain:\n    command: x\n"
	if err := os.WriteFile(filepath.Join(dir, "mcp-tester.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"-c", "x"}, 0},
		{[]string{"-c", "x", "--connect-timeout", "2m"}, 2 * time.Minute},
		{[]string{"-c", "x", "--connect-timeout", "0"}, -1},
		{[]string{"-p", "plain"}, 0},
		{[]string{"-p", "slow"}, 5 * time.Minute},
		{[]string{"-p", "unbounded"}, -1},
		{[]string{"-p", "unbounded", "--connect-timeout", "1s"}, time.Second},
		{[]string{"-p", "slow", "--connect-timeout", "0"}, -1},
	} {
		cmd := &cobra.Command{Use: "x"}
		opts := &ConnOptions{}
		addConnFlags(cmd, opts)
		if err := cmd.Flags().Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := opts.applyProfile(); err != nil {
			t.Fatal(err)
		}
		if got := opts.connectTimeout(); got != c.want {
			t.Errorf("%q: connect timeout %v, want %v", c.args, got, c.want)
		}
	}
}

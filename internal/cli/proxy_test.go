package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

// What the proxy is told, from its command line, and what it refuses
// before it starts anything (exit 2).
func TestProxyOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		argv string // the server program and its arguments, when given after --
		err  string
	}{
		{args: []string{"-o", "r.jsonl", "--", "bin/deployer", "-x", "--flag"}, argv: "bin/deployer -x --flag"},
		{args: []string{"-o", "r.jsonl", "-c", "bin/deployer -x"}},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--listen", "[::1]:0"}},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--listen", "localhost:0"}},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--listen", "0.0.0.0:0", "--listen-any"}},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--listen", "0.0.0.0:0"}, err: "--listen 0.0.0.0:0 is not a loopback address"},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--listen", "10.1.2.3:80"}, err: "is not a loopback address"},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--listen", "nohost"}, err: `--listen nohost`},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--transport", "ws"}, err: `--transport "ws": use streamable or sse`},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp?token=ghp_0123456789abcdefghijklmn", "--max-streams", "0"}, err: "--max-streams 0"},
		{args: []string{"-o", "r.jsonl", "-u", "127.0.0.1:1/mcp"}, err: "must start with http:// or https://"},
		{args: []string{"-o", "r.jsonl", "-c", "x", "--addr-file", "a"}, err: "--addr-file applies to a server reached by URL"},
		{args: []string{"-o", "r.jsonl", "x", "--", "y"}, err: `unexpected argument "x" before --`},
		{args: []string{"-c", "x"}, err: "no recording file"},
		{args: []string{"-o", "r.jsonl", "-u", "http://127.0.0.1:1/mcp", "--", "x"}, err: "give one server"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ProxyOptions
			cmd := newProxyCmd(ios, func(_ context.Context, o *ProxyOptions) error {
				got = o
				return o.check()
			})
			cmd.SetArgs(c.args)
			err := cmd.Execute()
			if c.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if strings.Join(got.Argv, " ") != c.argv {
					t.Errorf("argv %q, want %q", got.Argv, c.argv)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) || exitCode(err) != ExitUsage {
				t.Errorf("err %v (exit %d), want %q, exit 2", err, exitCode(err), c.err)
			}
		})
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"bin/deployer", "-http", "a b", "it's", ""})
	if want := `bin/deployer -http 'a b' 'it'\''s' ''`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

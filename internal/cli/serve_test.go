package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/server/standin"
)

// What the stand-in is told, from its command line, and what it refuses
// before it serves anything (exit 2).
func TestServeOptions(t *testing.T) {
	for _, c := range []struct {
		args   []string
		faults int
		err    string
	}{
		{args: []string{"r.jsonl"}},
		{args: []string{"r.jsonl", "--listen", "127.0.0.1:0", "--addr-file", "a", "--max-sessions", "2"}},
		{args: []string{"r.jsonl", "--listen", "[::1]:0"}},
		{args: []string{"r.jsonl", "--listen", "0.0.0.0:0", "--listen-any"}},
		{args: []string{"r.jsonl", "--fault", "tools/call:delay=2s", "--fault", "tools/call deploy:error=-32603:boom", "--fault", "tools/list:drop"}, faults: 3},
		{args: []string{"r.jsonl", "--answers", "schema", "--state-ttl", "1m"}},
		{args: []string{"r.jsonl", "--listen", "0.0.0.0:0"}, err: "--listen 0.0.0.0:0 is not a loopback address"},
		{args: []string{"r.jsonl", "--listen", "nohost"}, err: `--listen nohost`},
		{args: []string{"r.jsonl", "--addr-file", "a"}, err: "--addr-file applies to HTTP (--listen ADDR), not to stdio"},
		{args: []string{"r.jsonl", "--max-sessions", "3"}, err: "--max-sessions applies to HTTP"},
		{args: []string{"r.jsonl", "--listen", "127.0.0.1:0", "--max-sessions", "0"}, err: "--max-sessions 0: give at least 1"},
		{args: []string{"r.jsonl", "--state-ttl", "0s"}, err: "--state-ttl 0s: give a duration above 0"},
		{args: []string{"r.jsonl", "--answers", "fuzzy"}, err: `--answers "fuzzy": use exact`},
		{args: []string{"r.jsonl", "--fault", "tools/call"}, err: `--fault "tools/call": no action`},
		{args: []string{"r.jsonl", "--fault", "tools/call:error=abc"}, err: `--fault "tools/call:error=abc": error=abc: the code "abc" is not an integer`},
		{args: []string{"r.jsonl", "--fault", "tools/call:delay=11m"}, err: "at most 10m0s"},
		{args: []string{"r.jsonl", "--fault", "ping deploy:drop"}, err: "ping requests name no tool"},
		{args: []string{}, err: "give one recording"},
		{args: []string{"a.jsonl", "b.jsonl"}, err: "give one recording"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var faults []standin.Fault
			cmd := newServeCmd(ios, func(_ context.Context, o *ServeOptions) error {
				var err error
				faults, err = o.check()
				return err
			})
			cmd.SetArgs(c.args)
			err := cmd.Execute()
			if c.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(faults) != c.faults {
					t.Errorf("%d faults, want %d", len(faults), c.faults)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) || exitCode(err) != ExitUsage {
				t.Errorf("err %v (exit %d), want %q, exit 2", err, exitCode(err), c.err)
			}
		})
	}
}

// The defaults say what the help says.
func TestServeDefaults(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ServeOptions
	cmd := newServeCmd(ios, func(_ context.Context, o *ServeOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"r.jsonl"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Listen != "" || got.Answers != standin.AnswersExact || got.StateTTL != 10*time.Minute || got.MaxSessions != standin.DefaultMaxSessions || got.Recording != "r.jsonl" {
		t.Errorf("%+v", got)
	}
}

package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/spf13/cobra"
)

// Each entry of the command table builds the command of its name, and
// every command of the tree has its entry: Main builds a command alone by
// that name.
func TestCommandTableNamesEachCommand(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	seen := map[string]bool{}
	for _, c := range commands(io) {
		if got := c.build().Name(); got != c.name {
			t.Errorf("the entry %q builds %q", c.name, got)
		}
		seen[c.name] = true
	}
	for _, c := range NewRootCmd(io).Commands() {
		if !seen[c.Name()] && c.Name() != "help" {
			t.Errorf("%s has no entry in the command table", c.Name())
		}
	}
}

// A command built alone (Main, with its name first) behaves as in the
// whole tree: the same help, every subcommand and flag, the same errors.
func TestCommandAloneIsTheSame(t *testing.T) {
	t.Parallel()
	run := func(build func(*iostreams.IOStreams) *cobra.Command, args []string) string {
		io, _, out, errOut := iostreams.Test()
		root := build(io)
		root.SetArgs(args)
		_, err := root.ExecuteContextC(context.Background())
		return out.String() + errOut.String() + "\nerr: " + errString(err)
	}
	io, _, _, _ := iostreams.Test()
	for _, c := range commands(io) {
		lines := [][]string{{c.name, "--help"}, {c.name, "--no-such-flag"}}
		for _, sub := range c.build().Commands() {
			lines = append(lines, []string{c.name, sub.Name(), "--help"})
		}
		for _, args := range lines {
			whole := run(NewRootCmd, args)
			alone := run(func(io *iostreams.IOStreams) *cobra.Command { return newRoot(io, ownTree(args)) }, args)
			if whole != alone {
				t.Errorf("mcp-tester %s:\nthe whole tree:\n%s\nbuilt alone:\n%s", strings.Join(args, " "), whole, alone)
			}
		}
	}
	// --version alone builds no command; given anything else, the tree.
	for _, args := range [][]string{{"--version"}, {"--version", "tools"}, {"--version", "--lang", "de"}, {"--version=false"}} {
		whole := run(NewRootCmd, args)
		alone := run(func(io *iostreams.IOStreams) *cobra.Command { return newRoot(io, ownTree(args)) }, args)
		if whole != alone {
			t.Errorf("mcp-tester %s:\nthe whole tree:\n%s\nbuilt alone:\n%s", strings.Join(args, " "), whole, alone)
		}
	}
	if got := newRoot(io, ownTree([]string{"--version"})).Commands(); len(got) != 0 {
		t.Errorf("mcp-tester --version builds %d commands; it needs none", len(got))
	}
	if got := ownTree([]string{"completion", "bash"}); got != "" {
		t.Errorf("completion is built alone (%q), but its scripts list every command", got)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

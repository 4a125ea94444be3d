// Package cli holds mcp-tester's commands. Each command is an Options
// struct, a newXCmd function that binds flags to it, and a runX function
// that does the work through injected streams, so tests run commands
// in-process and read what they printed.
package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/session"
	"github.com/spf13/cobra"
)

// Exit codes of mcp-tester.
const (
	ExitOK          = 0 // everything worked; for test: every step passed
	ExitFailed      = 1 // the call failed: isError, a JSON-RPC error, a server that broke the rules; for test: a step failed
	ExitUsage       = 2 // bad flags, arguments, answers or script syntax: nothing was sent
	ExitUnreachable = 3 // the server could not be reached, exited, or did not answer in time
)

// Version is the tester's version, printed by `mcp-tester version`.
const Version = "0.1.0"

// exitError carries an exit code with an error. A nil err exits silently.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// exitCode picks the exit code for err.
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	switch session.KindOf(err) {
	case session.KindAnswer:
		return ExitUsage
	case session.KindUnreachable:
		return ExitUnreachable
	case session.KindServer, session.KindProtocol:
		return ExitFailed
	}
	return ExitFailed
}

// NewRootCmd builds the mcp-tester command tree.
func NewRootCmd(io *iostreams.IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcp-tester",
		Short: "A client for testing MCP servers that ask the human questions",
		Long: `mcp-tester plays the client of an MCP server: it connects (stdio, Streamable
HTTP or SSE), calls tools, prompts and resources, and answers every question
the server asks (form or URL elicitation, protocol 2026-07-28 and older),
from flags, from scripts, or from a person at the terminal.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.AddCommand(
		newCallCmd(io, nil),
		newTestCmd(io, nil),
		newTasksCmd(io),
		newToolsCmd(io),
		newTopListCmd(io, nil),
		newPromptsCmd(io),
		newResourcesCmd(io),
		newPingCmd(io, nil),
		newVersionCmd(io),
		newAuditCmd(io, nil),
		newLoggingCmd(io, nil),
		newCompleteCmd(io, nil),
		newProfileCmd(io),
		newCompletionCmd(io, nil),
		newInspectCmd(io, nil),
		newBenchCmd(io, nil),
		newAuthCmd(io),
	)
	// --lang was the earlier mcp-tester's choice of output language (en,
	// de); this tester speaks English, and says so rather than refusing a
	// command line written for it.
	lang := root.PersistentFlags().String("lang", "en", "output language: en only (the earlier mcp-tester also spoke de)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if *lang != "en" {
			fmt.Fprintf(io.ErrOut, "mcp-tester: note: --lang %s: the output stays English\n", *lang)
		}
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: ExitUsage, err: err}
	})
	return root
}

// Main runs mcp-tester with args and returns the exit code.
func Main(ctx context.Context, io *iostreams.IOStreams, args []string) int {
	root := NewRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return ee.code
	}
	code := exitCode(err)
	if code == ExitFailed && !errors.As(err, &ee) && session.KindOf(err) == 0 {
		// cobra's own errors (unknown command, bad args) are usage errors.
		code = ExitUsage
	}
	fmt.Fprintf(io.ErrOut, "mcp-tester: %v\n", err)
	return code
}

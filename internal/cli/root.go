// Package cli holds mcp-tester's commands. Each command is an Options
// struct, a newXCmd function that binds flags to it, and a runX function
// that does the work through injected streams, so tests run commands
// in-process and read what they printed.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/platform/stopsignal"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

// Exit codes of mcp-tester.
const (
	ExitOK          = 0                          // everything worked; for test: every step passed
	ExitFailed      = 1                          // the call failed: isError, a JSON-RPC error, a server that broke the rules; for test: a step failed
	ExitUsage       = 2                          // bad flags, arguments, answers or script syntax: nothing was sent
	ExitUnreachable = 3                          // the server could not be reached, exited, or did not answer in time (one that answered something else than JSON-RPC failed: 1)
	ExitInterrupted = stopsignal.ExitInterrupted // interrupted (Ctrl-C), as a shell reports a command ended by SIGINT
	ExitTerminated  = stopsignal.ExitTerminated  // terminated (SIGTERM), as a shell reports a command ended by it
)

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
		if session.Sent(err) {
			// Refused by the tester after the call began: the server has
			// seen part of it, so this is no usage error.
			return ExitFailed
		}
		return ExitUsage
	case session.KindUnreachable:
		return ExitUnreachable
	case session.KindServer, session.KindProtocol:
		return ExitFailed
	}
	return ExitFailed
}

// NewRootCmd builds the mcp-tester command tree.
func NewRootCmd(io *iostreams.IOStreams) *cobra.Command { return newRoot(io, "") }

// commandEntry is one of the root's commands: the name it is called by,
// and how it is built.
type commandEntry struct {
	name  string
	build func() *cobra.Command
}

// commands are the root's commands: newRoot builds one of them alone when
// the command line names it.
func commands(io *iostreams.IOStreams) []commandEntry {
	return []commandEntry{
		{"call", func() *cobra.Command { return newCallCmd(io, nil) }},
		{"test", func() *cobra.Command { return newTestCmd(io, nil) }},
		{"script", func() *cobra.Command { return newScriptCmd(io, nil) }},
		{"tasks", func() *cobra.Command { return newTasksCmd(io) }},
		{"tools", func() *cobra.Command { return newToolsCmd(io) }},
		{"list", func() *cobra.Command { return newTopListCmd(io, nil) }},
		{"prompts", func() *cobra.Command { return newPromptsCmd(io) }},
		{"resources", func() *cobra.Command { return newResourcesCmd(io) }},
		{"ping", func() *cobra.Command { return newPingCmd(io, nil) }},
		{"version", func() *cobra.Command { return newVersionCmd(io, nil) }},
		{"audit", func() *cobra.Command { return newAuditCmd(io, nil) }},
		{"logging", func() *cobra.Command { return newLoggingCmd(io, nil) }},
		{"complete", func() *cobra.Command { return newCompleteCmd(io, nil) }},
		{"profile", func() *cobra.Command { return newProfileCmd(io) }},
		{"completion", func() *cobra.Command { return newCompletionCmd(io, nil) }},
		{"inspect", func() *cobra.Command { return newInspectCmd(io, nil) }},
		{"bench", func() *cobra.Command { return newBenchCmd(io, nil) }},
		{"auth", func() *cobra.Command { return newAuthCmd(io) }},
		{"proxy", func() *cobra.Command { return newProxyCmd(io, nil) }},
		{"scan", func() *cobra.Command { return newScanCmd(io, nil) }},
		{"grade", func() *cobra.Command { return newGradeCmd(io, nil) }},
		{"catalog", func() *cobra.Command { return newCatalogCmd(io) }},
		{"serve", func() *cobra.Command { return newServeCmd(io, nil) }},
		{"ui", func() *cobra.Command { return newUICmd(io, nil) }},
	}
}

// ownTree names the command that args run when it can be built alone:
// args start with its name. Anything else (a flag first, help, shell
// completion, the completion scripts, which list every command, or a
// name that is not a command) is "", the whole tree.
//
// mcp-tester builds only the command it runs: the whole tree is some
// 1,200 flags, which the garbage collector would scan again at every
// cycle of a long run, and which take a tenth of the start.
//
// `mcp-tester --version` alone builds no command at all (versionOnly).
func ownTree(args []string) string {
	if len(args) == 0 || args[0] == "completion" {
		return ""
	}
	if len(args) == 1 && args[0] == versionOnly {
		return versionOnly
	}
	if strings.HasPrefix(args[0], "-") {
		return ""
	}
	return args[0]
}

// versionOnly is what ownTree returns for `mcp-tester --version`, which
// prints the version and needs none of the commands.
const versionOnly = "--version"

// newRoot builds the root command with the command named only alone, none
// when only is versionOnly, or every command when only is "" or names none.
func newRoot(io *iostreams.IOStreams, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcp-tester",
		Short: "A client for testing MCP servers that ask the human questions",
		Long: `mcp-tester plays the client of an MCP server: it connects (stdio, Streamable
HTTP or SSE), calls tools, prompts and resources, and answers every question
the server asks (form or URL elicitation, protocol 2026-07-28 and older),
from flags, from scripts, or from a person at the terminal.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       ReadBuildInfo().String(),
	}
	root.SetVersionTemplate("mcp-tester {{.Version}}\n")
	// -v has one meaning, before or after the command: --verbose, the
	// trace on stderr, of the commands that talk to a server. The version
	// is --version alone (cobra would take -v for it on the root).
	root.Flags().Bool("version", false, "print the version")
	// Known to the root (hidden) so that -v before the command is read as
	// the flag it is; the commands that trace define their own, which
	// takes it, and the others refuse it (checkVerbose).
	root.PersistentFlags().BoolP("verbose", "v", false, "write the JSON-RPC trace to stderr")
	_ = root.PersistentFlags().MarkHidden("verbose")
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := checkVerbose(cmd); err != nil {
			return err
		}
		return cmd.Help()
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	all := commands(io)
	if i := slices.IndexFunc(all, func(c commandEntry) bool { return c.name == only }); i >= 0 {
		all = all[i : i+1]
	} else if only == versionOnly {
		all = nil
	}
	for _, c := range all {
		root.AddCommand(c.build())
	}
	// --lang was the earlier mcp-tester's choice of output language (en,
	// de); this tester speaks English, and says so rather than refusing a
	// command line written for it.
	lang := root.PersistentFlags().String("lang", "en", "output language: en only (the earlier mcp-tester also spoke de)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		// Once the flags are read (and so the output format known), what
		// reaches stdout and stderr is neutralised: nothing a server sends
		// can drive the terminal, whichever path it takes.
		io.Neutralize(jsonOutput(cmd))
		if *lang != "en" {
			fmt.Fprintf(io.ErrOut, "mcp-tester: note: --lang %s: the output stays English\n", *lang)
		}
		if err := checkVerbose(cmd); err != nil {
			return err
		}
		return checkFlags(cmd)
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if hint := earlierFlagHint(err); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		return &exitError{code: ExitUsage, err: err}
	})
	return root
}

// verboseHint says what -v is, for a command line that gives it where it
// means nothing.
const verboseHint = "-v is --verbose (the JSON-RPC trace on stderr) of the commands that talk to a server, wherever it is written (mcp-tester -v tools list -c CMD); the version is mcp-tester --version"

// checkVerbose refuses -v on a command that has no trace: only the root's
// hidden flag took it.
func checkVerbose(cmd *cobra.Command) error {
	if f := cmd.Flags().Lookup("verbose"); f != nil && f.Changed && (!cmd.HasParent() || cmd.LocalFlags().Lookup("verbose") == nil) {
		if !cmd.HasParent() {
			return usageErr("-v without a command: %s", verboseHint)
		}
		return usageErr("%s does not talk to a server: %s", cmd.CommandPath(), verboseHint)
	}
	return nil
}

// earlierFlagHint says where a flag that the earlier mcp-tester took on
// every command belongs here, for a flag error about one: empty for others.
func earlierFlagHint(err error) string {
	msg := err.Error()
	switch {
	case strings.HasSuffix(msg, "flag: 'r' in -r"), strings.HasSuffix(msg, "flag: --raw"):
		return "-r/--raw (the result as the server sent it) belongs to call, prompts get and resources read here; for the responses of a test script use -v (every message, in the JSON-RPC trace on stderr)"
	case strings.HasSuffix(msg, "flag: 'v' in -v"):
		return verboseHint
	case strings.HasSuffix(msg, "flag: --check-icons"), strings.HasPrefix(msg, "unknown flag: --download-icons"):
		return "--check-icons and --download-icons DIR belong to list (the tools' icons) and inspect (every icon) here"
	}
	return ""
}

// failureDoc is the JSON document of a command that failed: the questions
// asked before the failure, if the command asks any, and the error.
type failureDoc struct {
	Questions any            `json:"questions,omitempty"`
	Error     map[string]any `json:"error"`
}

// errorDoc is the JSON document of a command that failed before it printed
// its own: the questions it asked before (see askedError), the message,
// the exit code, and what kind of failure it was (with the server's
// JSON-RPC error, when it sent one).
func errorDoc(err error, code int) failureDoc {
	e := map[string]any{"message": err.Error(), "exitCode": code}
	switch session.KindOf(err) {
	case session.KindServer:
		e["kind"] = "server"
	case session.KindProtocol:
		e["kind"] = "protocol"
	case session.KindAnswer:
		e["kind"] = "answer"
	case session.KindUnreachable:
		e["kind"] = "unreachable"
	}
	if w := session.RPCError(err); w != nil && session.KindOf(err) == session.KindServer {
		// Only an error the server sent: the go-sdk words some of its own
		// refusals (a transport that failed) as JSON-RPC errors too.
		rpc := map[string]any{"code": w.Code, "message": w.Message}
		if len(w.Data) > 0 && json.Valid(w.Data) {
			rpc["data"] = json.RawMessage(w.Data)
		}
		e["jsonrpc"] = rpc
	}
	doc := failureDoc{Error: e}
	var ae *askedError
	if errors.As(err, &ae) {
		doc.Questions = ae.questions
	}
	return doc
}

// interruptedDoc is the JSON document of a command stopped by sig (Ctrl-C,
// SIGTERM) before it printed its own: the questions it asked before (see
// askedError), "interrupted" (or "terminated") with the task it leaves
// running, if any, and the signal's exit code (130, 143) and kind
// ("interrupted", "terminated"). err is what the command failed with then,
// the signal's doing.
func interruptedDoc(err error, sig *stopsignal.Signal) failureDoc {
	msg := sig.Word()
	var tl *taskLeftError
	if errors.As(err, &tl) {
		msg += "; " + tl.note()
	}
	doc := failureDoc{Error: map[string]any{"message": msg, "exitCode": sig.ExitCode(), "kind": sig.Word()}}
	var ae *askedError
	if errors.As(err, &ae) {
		doc.Questions = ae.questions
	}
	return doc
}

// jsonOutput reports whether cmd prints JSON on stdout: --format json (or
// --json), --format sarif, or --raw.
func jsonOutput(cmd *cobra.Command) bool {
	if f := cmd.Flags().Lookup("format"); f != nil && (f.Value.String() == report.JSON || f.Value.String() == report.SARIF) {
		return true
	}
	f := cmd.Flags().Lookup("raw")
	return f != nil && f.Value.String() == "true"
}

// sarifOutput reports whether cmd prints a SARIF log on stdout.
func sarifOutput(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("format")
	return f != nil && f.Value.String() == report.SARIF
}

// hasFormat reports whether cmd can print JSON at all.
func hasFormat(cmd *cobra.Command) bool {
	return cmd.Flags().Lookup("format") != nil || cmd.Flags().Lookup("raw") != nil
}

// errCtrlC is the cause of a command interrupted by Ctrl-C typed at a
// full-screen form.
var errCtrlC = errors.New("interrupted with Ctrl-C")

// Main runs mcp-tester with args and returns the exit code.
func Main(ctx context.Context, io *iostreams.IOStreams, args []string) int {
	// Ctrl-C typed at a full-screen form (which reads the terminal's keys
	// raw: no signal comes) interrupts the command as the signal does.
	ctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	io.SetInterrupt(func() { interrupt(errCtrlC) })
	root := newRoot(io, ownTree(args))
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	// Errors met before the flags were read go through the same guard, and
	// when JSON was asked for, stdout gets the error as its document.
	io.Neutralize(cmd != nil && (jsonOutput(cmd) || hasFormat(cmd) && argsWantJSON(args)))
	defer io.Flush()
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil && !endsOnInterrupt(cmd) {
		// What failed then (a server that ended with the tester's own
		// process group, a request cut short) is the interrupt's (or
		// SIGTERM's) doing.
		sig := stopsignal.Of(ctx)
		fmt.Fprintf(io.ErrOut, "mcp-tester: %s\n", sig.Word())
		var tl *taskLeftError
		if errors.As(err, &tl) {
			fmt.Fprintf(io.ErrOut, "mcp-tester: %s\n", tl.note())
		}
		if io.JSONOut() && !io.WroteOut() && !sarifOutput(cmd) {
			// stdout promised one JSON document: a command interrupted
			// before it wrote its own gets the interrupt as that document.
			_ = printer.JSON(io.Out, interruptedDoc(err, sig))
		}
		return sig.ExitCode()
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
	fmt.Fprintf(io.ErrOut, "mcp-tester: %s\n", termsafe.Block(err.Error()))
	if io.JSONOut() && !io.WroteOut() && !sarifOutput(cmd) {
		// stdout promised one JSON document: the failure is that document
		// (a SARIF log is not written when the command could not run).
		_ = printer.JSON(io.Out, errorDoc(err, code))
	}
	return code
}

// endsOnInterrupt reports whether cmd is one that runs until it is
// interrupted (proxy, serve): for it an interrupt is the way to end, and
// its own outcome stands.
func endsOnInterrupt(cmd *cobra.Command) bool {
	return cmd != nil && (cmd.Name() == "proxy" || cmd.Name() == "serve")
}

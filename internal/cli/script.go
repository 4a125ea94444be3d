package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/script/fromrecording"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/spf13/cobra"
)

// ScriptOptions are the options of `mcp-tester script`.
type ScriptOptions struct {
	IO        *iostreams.IOStreams
	Recording string
	Output    string
	Match     string
	Ignore    []string
	Lists     bool
}

func newScriptCmd(io *iostreams.IOStreams, runF func(context.Context, *ScriptOptions) error) *cobra.Command {
	opts := &ScriptOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "script RECORDING.jsonl [-o FILE.mcp]",
		Short: "Turn a recording of a client and a server into a .mcp regression script",
		Long: `Read a recording that mcp-tester proxy wrote and write a .mcp script that
replays the client's side by meaning, not bytes: each call with its arguments,
each question answered by its key with the answer the person gave, a fresh
requestState from the server each time, and checks of what was asked and what
came back. Both protocol eras are read: 2026-07-28 rounds of input_required
and 2025-11-25 elicitation/create requests, and tasks.

Values that change from run to run (timestamps, UUIDs, dates, task ids,
nonces, durations) become placeholders such as {{uuid}} in the checks.
--match shape checks only the shape of results and questions (members,
lengths, kinds of values); --ignore PATH leaves a part of every result out
of the checks (a path such as structuredContent.id or content.*.annotations).
--lists also replays the client's list requests.

What a script cannot replay (a URL the person opened, a call the client
cancelled, a question nobody answered) is written as a comment in the script
and a warning on stderr. A recording cut short is converted up to its last
whole line. The script goes to stdout, or to -o FILE, written whole: a file
that was there is replaced only when the script is complete.

Exit codes: 0 the script was written (warnings or not); 1 it could not be
written; 2 a bad recording (not one, a line that is not what the proxy
writes, a protocol version this tester does not speak, nothing to replay,
such as a recording cut short before its one call was answered) or bad
flags: nothing is written.`,
		Example: `  mcp-tester script examples/deployer/deploy.jsonl
  mcp-tester script examples/deployer/deploy.jsonl -o /tmp/deploy.mcp
  mcp-tester test -s /tmp/deploy.mcp -c bin/deployer
  mcp-tester script examples/deployer/deploy.jsonl --match shape --ignore 'content.*.annotations' -o /tmp/shape.mcp`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("script takes one recording, e.g. mcp-tester script session.jsonl -o session.mcp")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Recording = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runScript(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "write the script to this file (replaced whole) instead of stdout")
	f.StringVar(&opts.Match, "match", "exact", "how results and questions are checked: exact (values, with placeholders for what changes from run to run) or shape (members, lengths and kinds only)")
	stringsVar(f, &opts.Ignore, "ignore", "a path into results that the checks leave out (repeatable): structuredContent.id, content.*.annotations")
	f.BoolVar(&opts.Lists, "lists", false, "also replay the client's list requests (tools/list, prompts/list, resources/list, resources/templates/list)")
	return cmd
}

// maxRecordingEntries bounds the entries a recording may hold.
const maxRecordingEntries = 1_000_000

func runScript(_ context.Context, opts *ScriptOptions) error {
	mode, ok := expect.ParseMode(opts.Match)
	if !ok {
		return usageErr("--match %q: use exact or shape", opts.Match)
	}
	ignore, err := parseIgnore(opts.Ignore)
	if err != nil {
		return err
	}
	if err := opts.checkOutput(); err != nil {
		return err
	}
	rec, err := readRecording(opts.Recording)
	if err != nil {
		return &exitError{code: ExitUsage, err: err}
	}
	name := termsafe.Line(opts.Recording)
	if rec.Truncated {
		// The header, the whole entries, then the line cut short.
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", recording.CutShort(name, len(rec.Entries)+2, fmt.Sprintf("the script replays the %d whole entries before it", len(rec.Entries))))
	}
	conv, err := conversation.Read(rec, conversation.Options{Lists: opts.Lists})
	if err != nil {
		return &exitError{code: ExitUsage, err: recording.InFile(opts.Recording, err)}
	}
	out := opts.Output
	if out == "" {
		out = "SCRIPT.mcp"
	}
	var counts fromrecording.Counts
	src, warnings, err := fromrecording.Write(conv, fromrecording.Options{Source: opts.Recording, Output: out, Match: mode, Ignore: ignore, Counts: &counts, Name: scriptFlagName})
	if err != nil {
		// The warnings say which calls could not be replayed, and why.
		opts.warn(name, warnings)
		return &exitError{code: ExitUsage, err: fmt.Errorf("%s: %w", opts.Recording, err)}
	}
	// What is written must run: a script that does not parse is a fault
	// of this command, and nothing is written.
	if _, err := script.ParseFile(out, src); err != nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("the script made of %s does not parse, so nothing was written: %w", opts.Recording, err)}
	}
	opts.warn(name, warnings)
	return opts.emit(src, counts, scriptSummary(counts, name, rec.Truncated))
}

// warn writes the warnings of the recording name on stderr.
func (opts *ScriptOptions) warn(name string, warnings []fromrecording.Warning) {
	for _, w := range warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s:%d: %s\n", name, w.Line, termsafe.Line(w.Text))
	}
}

// scriptFlagName names an option of the script writer as the flag that
// sets it, for its errors.
func scriptFlagName(o fromrecording.Option) string {
	switch o {
	case fromrecording.OptionLists:
		return "--lists"
	}
	return ""
}

// parseIgnore reads the --ignore paths; the whole result is no path to
// leave out.
func parseIgnore(list []string) ([]expect.Path, error) {
	var ignore []expect.Path
	for _, s := range list {
		p, err := expect.ParsePath(s, true)
		if err != nil || len(p) == 0 {
			if err == nil {
				err = errors.New("the whole result cannot be left out; name a part of it")
			}
			return nil, usageErr("--ignore: %v", err)
		}
		ignore = append(ignore, p)
	}
	return ignore, nil
}

// checkOutput refuses a -o file that is the recording, or one that cannot
// be written.
func (opts *ScriptOptions) checkOutput() error {
	if opts.Output == "" {
		return nil
	}
	if same, err := sameFile(opts.Recording, opts.Output); err == nil && same {
		return usageErr("-o %s is the recording itself: name another file", opts.Output)
	}
	return checkOutPath("-o", opts.Output)
}

// emit writes the script to stdout, or to -o with a summary on stderr. On
// stdout the summary is written (to stderr) only when some calls are not
// replayed, which the script shows only as comments.
func (opts *ScriptOptions) emit(src []byte, counts fromrecording.Counts, summary string) error {
	if opts.Output == "" {
		if _, err := opts.IO.Out.Write(src); err != nil {
			return &exitError{code: ExitFailed, err: err}
		}
		if counts.Commented > 0 || counts.LeftOut > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "mcp-tester: the script replays %s\n", summary)
		}
		return nil
	}
	if err := outfile.Write(opts.Output, src, 0o600); err != nil { // it holds the answers given
		return &exitError{code: ExitFailed, err: err}
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s: %s; run it: mcp-tester test -s %s\n", termsafe.Line(opts.Output), summary, termsafe.Line(opts.Output))
	return nil
}

// scriptSummary says what the script made of the recording name: the
// calls it replays, and those it writes only as comments or leaves out.
func scriptSummary(c fromrecording.Counts, name string, truncated bool) string {
	s := nCalls(c.Replayed) + " from " + name
	if truncated {
		s += ", which was cut short"
	}
	var not []string
	if c.Commented > 0 {
		not = append(not, fmt.Sprintf("%s written only as a comment, not replayed (%s)", nCalls(c.Commented), c.WhyCommented()))
	}
	if c.LeftOut > 0 {
		not = append(not, nCalls(c.LeftOut)+" left out")
	}
	if len(not) > 0 {
		s += "; " + strings.Join(not, ", ")
	}
	return s
}

// nCalls is "1 call" or "N calls".
func nCalls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// readRecording reads a recording file, bounded, naming the file and line
// of what is wrong.
func readRecording(path string) (*recording.Recording, error) {
	return recording.ReadFile(path, recording.ReadOptions{MaxEntries: maxRecordingEntries})
}

// sameFile reports whether a and b name the same file (both existing).
func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	fb, err := os.Stat(b)
	if err != nil {
		return filepath.Clean(a) == filepath.Clean(b), nil
	}
	return os.SameFile(fa, fb), nil
}

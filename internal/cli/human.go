package cli

import (
	"os"
	"runtime"

	"github.com/askback/askback/internal/answer"
	"github.com/askback/askback/internal/exchange"
	"github.com/askback/askback/internal/interactive"
	"github.com/askback/askback/internal/iostreams"
	"github.com/askback/askback/internal/record"
	"github.com/spf13/cobra"
)

// HumanOptions decide whether and how a person at the terminal answers the
// questions no scripted answer covers, and whether the session is recorded
// as a script.
type HumanOptions struct {
	// Interactive asks even when input or output is not a terminal, with
	// line prompts (--interactive).
	Interactive bool
	// Accessible asks with plain line prompts, for screen readers
	// (--accessible, or the ACCESSIBLE environment variable).
	Accessible bool
	// Record is the .mcp script the calls are appended to (--record).
	Record string
	// Open opens the system browser on each URL question a --elicit answer
	// accepts (--open).
	Open bool
	// Getenv reads the environment (NO_COLOR, ACCESSIBLE,
	// MCP_TESTER_BROWSER); nil means the process's.
	Getenv func(string) string
}

// addHumanFlags binds how a person answers: --interactive, --accessible.
func addHumanFlags(cmd *cobra.Command, o *HumanOptions) {
	f := cmd.Flags()
	f.BoolVar(&o.Interactive, "interactive", false, "ask a person for the questions no --elicit answer covers, even when input is not a terminal (line prompts)")
	f.BoolVar(&o.Accessible, "accessible", false, "ask with plain line prompts that screen readers can follow (also: ACCESSIBLE=1)")
}

// addOpenFlag binds --open, for commands with --elicit answers.
func addOpenFlag(cmd *cobra.Command, o *HumanOptions) {
	cmd.Flags().BoolVar(&o.Open, "open", false, "open the system browser on each URL question an --elicit answer accepts (never fetched by the tester)")
}

// recordAppendUsage is the usage of --record for a command that makes one
// call.
const recordAppendUsage = "append the call, the answers given and checks of the result to this .mcp script"

// addRecordFlag binds --record with the given usage.
func addRecordFlag(cmd *cobra.Command, o *HumanOptions, usage string) {
	cmd.Flags().StringVar(&o.Record, "record", "", usage)
}

func (o *HumanOptions) getenv(name string) string {
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.Getenv(name)
}

// answerer returns the answerer for a person, or nil (not a typed nil) when
// nobody can be asked: the session then declines, as it always does when
// no answer is left.
func (o *HumanOptions) answerer(io *iostreams.IOStreams) answer.Answerer {
	if io == nil || io.In == nil {
		return nil
	}
	terminal := io.IsInteractive()
	if !terminal && !o.Interactive {
		return nil
	}
	// Draw where the person looks: stderr when it is a terminal, so that
	// stdout keeps only results.
	out := io.ErrOut
	if terminal && !io.IsStderrTTY() {
		out = io.Out
	}
	return interactive.New(interactive.Options{
		In:         io.In,
		Out:        out,
		Accessible: o.Accessible || o.getenv("ACCESSIBLE") != "" || !terminal,
		NoColor:    o.getenv("NO_COLOR") != "",
		Opener:     interactive.SystemBrowser(o.getenv, runtime.GOOS),
	})
}

// record appends one call to the --record script, when one was asked for.
// args are a tool's arguments (map[string]any) or a prompt's
// (map[string]string); nil for a resource.
func (o *HumanOptions) record(method, name string, args any, questions []exchange.Entry, result any) error {
	if o.Record == "" {
		return nil
	}
	var m map[string]any
	switch a := args.(type) {
	case map[string]any:
		m = a
	case map[string]string:
		m = make(map[string]any, len(a))
		for k, v := range a {
			m[k] = v
		}
	}
	err := record.Append(o.Record, record.Step{Method: method, Name: name, Args: m, Questions: questions, Result: result})
	if err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	return nil
}

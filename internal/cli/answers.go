package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/script/fromcall"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// AnswerOptions say who answers a command's questions: the --elicit
// answers first, then, for what they leave, a person at the terminal; and
// whether the calls are recorded as a script.
type AnswerOptions struct {
	// Elicit are the scripted answers, in order (--elicit).
	Elicit []string
	// Samples answer the server's requests for a model reply, in order
	// (--sample).
	Samples []string
	// Interactive asks even when input or output is not a terminal, with
	// line prompts (--interactive).
	Interactive bool
	// Accessible asks with plain line prompts, for screen readers
	// (--accessible, or the ACCESSIBLE environment variable).
	Accessible bool
	// Record is the .mcp script the calls are appended to (--record).
	Record string
	// Open opens the system browser on each URL question a --elicit answer
	// accepts (--open), unless the URL has a warning.
	Open bool
	// OpenDespiteWarnings opens URLs with warnings too
	// (--open-despite-warnings).
	OpenDespiteWarnings bool
	// Strict makes a question nobody answers an error instead of a
	// decline (--strict).
	Strict bool
	// Getenv reads the environment (NO_COLOR, ACCESSIBLE,
	// MCP_TESTER_BROWSER); nil means the process's.
	Getenv func(string) string

	queue *answer.Queue // the --elicit answers, once answerer made them
	// hide hides the command line's and the login's credentials in what
	// --record writes, as on the output.
	hide func(string) string
	// server is where the server is (ConnOptions.openAnswered sets it):
	// a link to this machine or a private network from a server that is
	// not there is warned about, and --open leaves it alone.
	server urlcheck.Server
}

// addHumanFlags binds how a person answers: --interactive, --accessible.
func addHumanFlags(cmd *cobra.Command, o *AnswerOptions) {
	f := cmd.Flags()
	f.BoolVar(&o.Interactive, "interactive", false, "ask a person for the questions no --elicit answer covers, even when input is not a terminal (line prompts)")
	f.BoolVar(&o.Accessible, "accessible", false, "ask with plain line prompts that screen readers can follow (also: ACCESSIBLE=1)")
}

// addOpenFlag binds --open and --open-despite-warnings, for commands with
// --elicit answers.
func addOpenFlag(cmd *cobra.Command, o *AnswerOptions) {
	cmd.Flags().BoolVar(&o.Open, "open", false, "open the system browser on each URL question an --elicit answer accepts, unless the URL has a warning (never fetched by the tester)")
	cmd.Flags().BoolVar(&o.OpenDespiteWarnings, "open-despite-warnings", false, "with --open, also open URLs that have a warning (look-alike or raw IP host, plain http, user info, credentials in the URL, this machine or a private network from a server elsewhere) without asking anyone")
}

// addStrictFlag binds --strict, for commands that call once and check
// their answers.
func addStrictFlag(cmd *cobra.Command, o *AnswerOptions) {
	cmd.Flags().BoolVar(&o.Strict, "strict", false, "a question that no --elicit answer (and no person) answers is an error, exit 1, instead of being declined")
}

// recordAppendUsage is the usage of --record for a command that makes one
// call.
const recordAppendUsage = "append the call, the answers given and checks of the result to this .mcp script"

// addRecordFlag binds --record with the given usage.
func addRecordFlag(cmd *cobra.Command, o *AnswerOptions, usage string) {
	cmd.Flags().StringVar(&o.Record, "record", "", usage)
}

func (o *AnswerOptions) getenv(name string) string {
	if o.Getenv != nil {
		return o.Getenv(name)
	}
	return os.Getenv(name)
}

// addAnswerFlags binds the flags of a command whose questions are answered
// by the --elicit answers, then a person: what the tester declares it can
// be asked (--no-url, --no-elicitation), --no-validate, --elicit and
// --sample, --root, --interactive, --accessible and --open.
func addAnswerFlags(cmd *cobra.Command, c *ConnOptions, a *AnswerOptions) {
	addCapabilityFlags(cmd, c)
	addValidateFlag(cmd, c)
	addElicitFlag(cmd, a)
	addRootFlag(cmd, c)
	addHumanFlags(cmd, a)
	addOpenFlag(cmd, a)
	addStrictFlag(cmd, a)
}

// addElicitFlag binds --elicit, the scripted answers, and --sample.
func addElicitFlag(cmd *cobra.Command, o *AnswerOptions) {
	stringsVar(cmd.Flags(), &o.Elicit, "elicit",
		"answer the next question: accept, decline, cancel, accept:{json}, or KEY=ANSWER for the question with that key; exact after an accept (accept:{json} exact) sends its content as written, without the schema's defaults, as a script's elicit_response does (repeatable; an answer no question used is an error; questions left over are declined)")
	addSampleFlag(cmd, o, "")
}

// addSampleFlag binds --sample, the scripted model replies; more, when not
// empty, ends its usage.
func addSampleFlag(cmd *cobra.Command, o *AnswerOptions, more string) {
	stringsVar(cmd.Flags(), &o.Samples, "sample",
		`answer the server's next request for a model reply (sampling) with this text, or with {"text": …, "model": …, "stopReason": …, "role": …} (repeatable, used in order`+more+`)`)
}

// addDeclareFlags binds --sample and --root for a command that asks
// nothing itself (the lists, inspect): given, they declare sampling and
// roots, and answer a server that asks for them meanwhile.
func addDeclareFlags(cmd *cobra.Command, c *ConnOptions, samples *[]string) {
	stringsVar(cmd.Flags(), samples, "sample",
		`declare sampling, and answer a request for a model reply with this text or {"text": …, "model": …} (repeatable, used in order)`)
	stringsVar(cmd.Flags(), &c.Roots, "root",
		"declare roots, and answer roots/list with this root, URI or URI=NAME (repeatable)")
}

// declaring is the answerer of a command that asks nothing itself: the
// --sample replies, which declare sampling; nil without them.
func declaring(samples []string) (answer.Answerer, error) {
	if len(samples) == 0 {
		return nil, nil
	}
	parsed, err := (&AnswerOptions{Samples: samples}).samples()
	if err != nil {
		return nil, err
	}
	return answer.Who{Samples: []*answer.Samples{answer.NewSamples(parsed...)}}.Answerer(), nil
}

// samples parses the --sample answers.
func (o *AnswerOptions) samples() ([]answer.Sample, error) {
	var out []answer.Sample
	for _, t := range o.Samples {
		s, err := answer.ParseSample(t)
		if err != nil {
			return nil, usageErr("--sample: %v", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// specs parses the --elicit answers.
func (o *AnswerOptions) specs() ([]answer.Spec, error) {
	var out []answer.Spec
	for _, e := range o.Elicit {
		s, err := answer.ParseSpec(e)
		if err != nil {
			return nil, usageErr("--elicit: %v", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// answerer is the chain that answers a command's questions: the --elicit
// answers in order (with --open, the link of a URL question they accept is
// opened unless it has a warning), then a person when one can be asked. A
// question neither answers is declined by the session; with --strict it
// fails the call instead. Requests for a model reply take the --sample
// replies in order, then the person.
func (o *AnswerOptions) answerer(io *iostreams.IOStreams) (answer.Answerer, error) {
	o.hide = io.Hide
	specs, err := o.specs()
	if err != nil {
		return nil, err
	}
	samples, err := o.samples()
	if err != nil {
		return nil, err
	}
	if o.Record != "" {
		// Found out before anything is sent, not after the call.
		if err := checkOutPath("--record", o.Record); err != nil {
			return nil, err
		}
		if err := fromcall.Check(o.Record); err != nil {
			return nil, usageErr("--record: %v", err)
		}
	}
	o.queue = answer.NewQueue(specs...)
	who := answer.Who{Written: o.scripted(io, o.queue), Person: o.person(io), Spelling: elicitSpelling}
	if len(samples) > 0 {
		who.Samples = []*answer.Samples{answer.NewSamples(samples...)}
	}
	if o.Strict {
		who.Strict = "--strict does not let it be declined: add an --elicit answer for it"
	}
	return who.Answerer(), nil
}

// unused reports the --elicit answers no question used, and why: a
// scripted answer that answered nothing means the run did not test what it
// says, so it fails (exit 1), naming each. asked are the call's questions.
func (o *AnswerOptions) unused(asked []exchange.Entry) error {
	return o.unusedBy(asked, "")
}

// unusedBy is unused with the reason every unused answer shares when the
// command stopped before questions that could have used them: later, when
// not "", says so (--no-wait returned when a task was created, whose
// questions come after).
func (o *AnswerOptions) unusedBy(asked []exchange.Entry, later string) error {
	if o.queue == nil {
		return nil
	}
	left := o.queue.Unused()
	if len(left) == 0 {
		return nil
	}
	var keys []string
	for _, e := range asked {
		if e.IsElicitation() {
			keys = append(keys, e.Key)
		}
	}
	parts := make([]string, len(left))
	for i, s := range left {
		why := answer.NoKeysNote(s, keys)
		switch {
		case later != "":
			why = later
		case why != "":
		case len(keys) == 0:
			why = "the server asked nothing"
		case s.Key != "":
			why = fmt.Sprintf("no question had the key %q", s.Key)
		default:
			why = fmt.Sprintf("the server asked only %d question(s)", len(keys))
		}
		parts[i] = fmt.Sprintf("%s was not used: %s", elicitSpelling.Answer(s), termsafe.Line(why))
	}
	return &exitError{code: ExitFailed, err: errors.New(strings.Join(parts, "; "))}
}

// elicitSpelling names an --elicit answer in messages as it is typed.
var elicitSpelling = answer.Spelling{Answer: func(s answer.Spec) string {
	return "--elicit " + shellWord(termsafe.Line(s.String()))
}}

// printAsked prints what a command that asked questions got: with JSON,
// one document with the questions and result; as text, what text prints
// (the questions were printed as [ELICIT] lines as they came). Then an
// --elicit answer no question used fails the command.
func (o *AnswerOptions) printAsked(w io.Writer, jsonOut bool, asked *session.Call, result any, text func()) error {
	if jsonOut {
		if err := printer.JSON(w, printer.Asked{Questions: printer.QuestionsJSON(asked.Questions), Result: result}); err != nil {
			return err
		}
	} else {
		text()
	}
	return o.unused(asked.Questions)
}

// askedError is the failure of a request that may have asked questions
// before it failed: the JSON document of the failure carries them, in the
// shape of a success ({"questions": [...], "error": {...}}).
type askedError struct {
	err       error
	questions []printer.QuestionJSON
}

func (e *askedError) Error() string { return e.err.Error() }
func (e *askedError) Unwrap() error { return e.err }

// withAsked returns err with the questions asked was asked before it
// failed; nil for nil.
func withAsked(err error, asked *session.Call) error {
	if err == nil || asked == nil {
		return err
	}
	return &askedError{err: err, questions: printer.QuestionsJSON(asked.Questions)}
}

// toolOutcome is the exit of a tool call whose result was printed: a
// result the tool marked isError fails (exit 1).
func toolOutcome(res *mcp.CallToolResult) error {
	if res != nil && res.IsError {
		return &exitError{code: ExitFailed}
	}
	return nil
}

// shellQuote writes s as one shell word in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWord writes s as one shell word: as it is when the shell reads
// nothing into it, in single quotes otherwise, so that what a server sent
// can be pasted into a command line without running anything.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=+,@%-") == "" {
		return s
	}
	return shellQuote(s)
}

// person returns the answerer for a person, or nil (not a typed nil) when
// nobody can be asked: the session then declines, as it always does when
// no answer is left.
func (o *AnswerOptions) person(io *iostreams.IOStreams) answer.Answerer {
	if io == nil || io.In == nil {
		return nil
	}
	terminal := io.IsInteractive()
	if !terminal && !o.Interactive {
		return nil
	}
	// Draw where the person looks: stderr when it is a terminal, so that
	// stdout keeps only results. The forms draw with escape sequences of
	// their own, so they get the streams as they are; the interactive
	// package cleans what the server wrote.
	out := io.TerminalErr()
	if terminal && !io.IsStderrTTY() {
		out = io.TerminalOut()
	}
	return interactive.New(interactive.Options{
		In:         io.In,
		Out:        out,
		Accessible: o.Accessible || o.getenv("ACCESSIBLE") != "" || !terminal,
		NoColor:    o.getenv("NO_COLOR") != "",
		Opener:     interactive.SystemBrowser(o.getenv, runtime.GOOS),
		Hide:       io.Hide,
		Note:       func(note string) { fmt.Fprintf(io.ErrOut, "mcp-tester: %s\n", note) },
		Interrupt:  io.Interrupter(),
		Server:     o.server,
	})
}

// record appends one call to the --record script, when one was asked for.
// args are a tool's arguments (map[string]any) or a prompt's
// (map[string]string); nil for a resource.
func (o *AnswerOptions) record(method, name string, args any, questions []exchange.Entry, result any) error {
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
	err := fromcall.Append(o.Record, o.hide, fromcall.Step{Method: method, Name: name, Args: m, Questions: questions, Result: result})
	if err != nil {
		return &exitError{code: ExitFailed, err: err}
	}
	return nil
}

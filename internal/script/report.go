package script

import (
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/platform/stopsignal"
	"github.com/askback/askback/internal/text/optname"
)

// Exit codes of `mcp-tester test`.
const (
	ExitOK      = 0 // every step of every script passed
	ExitFailed  = 1 // a step failed, or the server answered with something else than MCP
	ExitUsage   = 2 // bad flags, no script found, or a syntax error (nothing ran)
	ExitConnect = 3 // a script could not reach the server
	// ExitInterrupted: the run's context ended (Ctrl-C) before it did, as a
	// shell reports a command ended by SIGINT.
	ExitInterrupted = stopsignal.ExitInterrupted
	// ExitTerminated: the run's context ended by SIGTERM before it did, as
	// a shell reports a command ended by it.
	ExitTerminated = stopsignal.ExitTerminated
)

// ErrInterrupted is the error of a script that did not run, or could not
// connect, because the run's context had ended (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// Report is the outcome of running scripts.
type Report struct {
	Scripts  []*ScriptResult // in the order given, whatever the parallelism
	Duration time.Duration
	// Name names one of the caller's options in its terms, for the help
	// that points at it (a command line's flags); nil, or "", names it as
	// the Go API does ([Option.String]). The caller sets it.
	Name optname.Namer[Option]
	// Interrupted is set when the context the run was given was canceled
	// before the run ended (Ctrl-C): ExitCode is then ExitInterrupted, whatever the
	// steps that ran found.
	Interrupted bool
	// Terminated is set with Interrupted when SIGTERM ended the run's
	// context ([stopsignal.Signal]): ExitCode is then ExitTerminated.
	Terminated bool
}

// Option is one of the caller's choices the report's help points at;
// [Report.Name] words it for the caller.
type Option int

// The options the report's help points at.
const (
	// OptionServer is how a script reaches the server
	// ([RunOptions.Connect], [RunOptions.ConnectScript]).
	OptionServer Option = iota + 1
)

// String names o in the Go API's terms.
func (o Option) String() string {
	switch o {
	case OptionServer:
		return "RunOptions.Connect"
	}
	return fmt.Sprintf("Option(%d)", int(o))
}

// ScriptResult is the outcome of one script.
type ScriptResult struct {
	Name     string
	Steps    []*StepResult // one per step that ran, in line order
	Err      error         // set when the script could not run (no connection)
	Duration time.Duration
}

// NothingChecked is why a script with no step (empty, or comments alone)
// fails: its one result, at line 1, says so.
const NothingChecked = "nothing checked: the script has no step (it is empty or holds comments alone)"

// StepResult is the outcome of one step.
type StepResult struct {
	Line     int    // 1-based line of the command
	Col      int    // 1-based column of the command name
	Command  string // the command name
	Text     string // the command as written
	Passed   bool
	Message  string // why the step failed
	Expected string // what the step expected, when it compares
	Actual   string // what it found
	Response string // an excerpt of the last response, on failure
	// Diff is a unified diff of what a check expected and what came, for
	// the checks that compare texts of several lines or JSON.
	Diff     string
	Output   string // what the step printed (echo, input_var) or noted
	Duration time.Duration
	// Questions are what the server asked during the step, each with the
	// answer it got (or why none was sent), in the order asked.
	Questions []exchange.Entry
	// Interrupted is set on a step that failed because the run's context
	// ended while it waited on the server (Ctrl-C): it says nothing of the
	// server.
	Interrupted bool
	// Update is set on a failed check whose expected value an update
	// rewrote (see [Update] and [ScriptResult.MarkUpdated]): the failure
	// no longer counts in ExitCode.
	Update *UpdateNote
	// fix is how an update rewrites the failed check, nil when it cannot.
	fix *fix
}

// Counts returns the number of passed and failed steps of the script. A
// step the interrupt cut short (Interrupted) is neither: see
// InterruptedSteps.
func (s *ScriptResult) Counts() (passed, failed int) {
	for _, st := range s.Steps {
		switch {
		case st.Passed:
			passed++
		case !st.Interrupted:
			failed++
		}
	}
	return passed, failed
}

// InterruptedSteps returns the number of steps of the script the interrupt
// cut short: they say nothing of the server, passed or failed.
func (s *ScriptResult) InterruptedSteps() int {
	n := 0
	for _, st := range s.Steps {
		if !st.Passed && st.Interrupted {
			n++
		}
	}
	return n
}

// Counts returns the number of passed and failed steps of all scripts.
func (r *Report) Counts() (passed, failed int) {
	for _, s := range r.Scripts {
		p, f := s.Counts()
		passed += p
		failed += f
	}
	return passed, failed
}

// ExitCode is ExitInterrupted when the run was interrupted (ExitTerminated
// by SIGTERM), ExitConnect
// when a script could not run because the server could not be reached,
// ExitFailed when a step failed (but for a check an update rewrote) or the
// server answered its connect with something else than MCP (a web page, no
// JSON-RPC), ExitOK otherwise.
func (r *Report) ExitCode() int {
	if r.Interrupted {
		if r.Terminated {
			return ExitTerminated
		}
		return ExitInterrupted
	}
	code := ExitOK
	for _, s := range r.Scripts {
		if s.Err != nil && session.KindOf(s.Err) == session.KindProtocol {
			code = ExitFailed
			continue
		}
		if s.Err != nil {
			return ExitConnect
		}
		for _, st := range s.Steps {
			if !st.Passed && st.Update == nil {
				code = ExitFailed
			}
		}
	}
	return code
}

// MarkUpdated records on the steps of s the checks notes say an update
// rewrote (once the rewritten script is written): their failures no
// longer count in the report's exit code, and the reports say what each
// expects now.
func (s *ScriptResult) MarkUpdated(notes []UpdateNote) {
	for i := range notes {
		n := &notes[i]
		if !n.Updated {
			continue
		}
		for _, st := range s.Steps {
			if st.Line == n.Line && !st.Passed {
				st.Update = n
			}
		}
	}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/spf13/cobra"
)

// AuditOptions are the options of `mcp-tester audit`.
type AuditOptions struct {
	IO   *iostreams.IOStreams
	Conn ConnOptions
	// What the audit calls and probes, and how long it may take
	// (--other-header, --other-identity, --args, --include, --read-only,
	// --deadline), as grade takes them too.
	auditFlags
	// Samples (--sample) and Conn.Roots (--root) declare sampling and
	// roots on the probes that declare elicitation, and answer them.
	Samples   []string
	Format    string
	SARIFFile string // where code scanning shows the findings (--sarif-file)
	JUnit     string
	HTML      string
	Quiet     bool
	// AllowEmpty lets an audit that checked nothing on any tool, prompt or
	// resource pass (--allow-empty).
	AllowEmpty bool
}

// newAuditCmd builds `mcp-tester audit`.
func newAuditCmd(io *iostreams.IOStreams, runF func(context.Context, *AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "audit [flags]",
		Short: "Check that a server asks within the rules",
		Long: `Check from the outside that a server asks its questions within the rules of
MCP elicitation and multi round-trip requests. The audit lists the server's
tools, prompts and resources, calls each (arguments from --args or made up
from the input schema) and, for each one that asks, probes it: tampered and
replayed requestState, a second identity (--other-identity or
--other-header), clients that
declare no elicitation or forms only, form schemas and secrets, decline and
cancel, missing and unknown answers, endless asking, URL safety, and
input_required on methods that may not carry it.

Destructive tools (destructiveHint true, or absent without readOnlyHint) are
never called unless named with --include. Tools marked neither read-only nor
destructive may change what the server holds, and are called: the audit
names them on stderr before it starts; --read-only calls only the tools
marked read-only (readOnlyHint), and those --include names.

--sample and --root declare sampling and roots (deprecated as of 2026-07-28)
and answer them, so that tools that need them are listed and audited.

The text report has a table for each tool, prompt and resource that asks;
every one that asks nothing is named on one line (the first 20, then how
many more), and the tools skipped are one line per reason. --format json
keeps every one in full.

An --include or --args that names nothing the server offers is a usage
error. An audit in which no rule applied to any tool, prompt or resource
(nothing offered, everything skipped, nothing asked) reports why instead of
a score, and fails unless --allow-empty.

The whole audit is bounded by --deadline (default 20 × --timeout: 10m with
the default 30s; 0 for no limit). When it runs out the audit stops and
reports every check it did not run or finish as "incomplete", never as
passed (the score counts only what passed or failed).

--html FILE writes the report as one self-contained HTML page: the score,
the failed rules first with their evidence (the request sent and the answer
that came), a table of every tool, prompt and resource against every rule,
then each rule with its verdicts. On a terminal, a progress line on stderr
names what is being audited (-q hides it); nothing is written there when
stderr is not a terminal. On a terminal, the text report's long lines are
folded to its width; in a pipe, a file or a CI log each stays one line.

--trace FILE writes every JSON-RPC message of the audit's sessions to one
file, one JSON line each, credentials hidden as in every trace, each line
naming its session ("audit 2: no elicitation") in "session"; -v writes it
to stderr.

Exit status: 0 when no rule fails, 1 when one does or nothing was checked
(or the server answered with something else than MCP), 2 for bad flags, 3
when the audit could not run or not finish (the server could not be reached,
went away, or --deadline ran out).`,
		Example: `  mcp-tester audit -c bin/deployer --include deploy
  mcp-tester audit -c bin/rulebreaker --format json
  mcp-tester audit -c 'bin/rulebreaker -writer' --read-only
  mcp-tester audit -c bin/deployer --allow-empty --junit /tmp/audit.xml
  mcp-tester audit -c bin/rulebreaker --html /tmp/audit.html
  mcp-tester audit -c bin/deployer --include deploy --format sarif > /tmp/audit.sarif`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.noteDeadlineSet(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAudit(cmd.Context(), opts)
		},
	}
	// Each probe declares its own capabilities and makes its own answers:
	// the audit takes only how to reach the server, where the trace goes
	// and --max-rounds.
	addConnFlags(cmd, &opts.Conn)
	addRoundsFlag(cmd, &opts.Conn)
	addAuditFlags(cmd, &opts.auditFlags, "")
	addDeclareFlags(cmd, &opts.Conn, &opts.Samples)
	f := cmd.Flags()
	addFormatChoice(cmd, &opts.Format, "output format: text, json or sarif (code scanning)", report.Text, report.JSON, report.SARIF)
	addSARIFFileFlag(cmd, &opts.SARIFFile)
	f.StringVar(&opts.JUnit, "junit", "", "also write the results as JUnit XML to this file")
	addHTMLFlag(cmd, &opts.HTML)
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "do not show the progress line on a terminal's stderr")
	f.BoolVar(&opts.AllowEmpty, "allow-empty", false, "exit 0 even when no rule applied to any tool, prompt or resource (nothing offered, all skipped, nothing asked)")
	return cmd
}

func runAudit(ctx context.Context, opts *AuditOptions) error {
	for _, p := range [][2]string{{"--html", opts.HTML}, {"--junit", opts.JUnit}} {
		if err := checkOutPath(p[0], p[1]); err != nil {
			return err
		}
	}
	aopts, err := opts.auditOptions()
	if err != nil {
		return err
	}
	rep, err := runAuditShowing(ctx, opts.IO, opts.Quiet, aopts)
	if err != nil {
		return auditNotRun(err)
	}
	if err := writeReportFile("--junit", opts.JUnit, opts.IO.Hide, rep.WriteJUnit); err != nil {
		return err
	}
	if err := writeHTML(opts.HTML, func(w io.Writer) error {
		return htmlreport.WriteAudit(w, htmlMeta(opts.IO, "mcp-tester audit", rep.Target), rep)
	}); err != nil {
		return err
	}
	err = emit(opts.IO, opts.Format, report.Writers{
		// Folded to a terminal's width; whole lines in a pipe or a log.
		Text:  opts.IO.FoldToWidth(rep.WriteText),
		JSON:  rep.WriteJSON,
		SARIF: rep, At: sarif.Anchor{File: opts.SARIFFile},
	})
	if err != nil {
		return err
	}
	switch {
	case rep.Failed():
		return &exitError{code: ExitFailed}
	case !rep.Complete():
		var why []string
		if rep.Stopped != "" {
			why = append(why, fmt.Sprintf("%s (--deadline); %d checks were not run or not finished", rep.Stopped, rep.Unchecked()))
		}
		if n := len(rep.Unprobed); n > 0 {
			why = append(why, fmt.Sprintf("%d probe(s) could not connect (see the end of the report)", n))
		}
		u := rep.Unanswered()
		if len(u) > 0 && rep.Stopped == "" {
			why = append(why, fmt.Sprintf("%s got no answer within --timeout (raise it, or check the server)", strings.Join(u, ", ")))
		}
		code := ExitUnreachable
		if b := rep.Broken(); len(b) > 0 {
			why = append(why, "the server broke the protocol: "+strings.Join(b, "; "))
			if len(u) == 0 && len(rep.Unprobed) == 0 && rep.Stopped == "" {
				code = ExitFailed // it answered, wrongly: as call says
			}
		}
		return &exitError{code: code, err: fmt.Errorf("the audit is incomplete: %s", strings.Join(why, "; "))}
	case rep.NothingChecked() != "" && !opts.AllowEmpty:
		return &exitError{code: ExitFailed, err: fmt.Errorf("nothing was checked: %s (--allow-empty accepts that)", rep.NothingChecked())}
	}
	return nil
}

// auditNotRun is the exit of an audit that could not run (err of
// audit.Run): a server that could not be reached or did not answer in time
// exits 3; one that answered, but wrongly (a JSON-RPC error to a list, what
// is not MCP), exits 1, as every command that met it does; options the
// server cannot honour (audit.UsageError) and bad options exit 2: nothing
// was called.
func auditNotRun(err error) error {
	var ue *audit.UnreachableError
	if !errors.As(err, &ue) {
		return usageErr("%v", err)
	}
	switch session.KindOf(err) {
	case session.KindServer, session.KindProtocol, session.KindAnswer:
		return &exitError{code: ExitFailed, err: err}
	}
	return &exitError{code: ExitUnreachable, err: err}
}

// runAuditShowing runs the audit aopts describe, its progress on a status
// line of a terminal's stderr unless quiet; the line is gone when it returns.
func runAuditShowing(ctx context.Context, ios *iostreams.IOStreams, quiet bool, aopts audit.Options) (*audit.Report, error) {
	if !quiet {
		if status := ios.StartStatus(); status != nil { // nil unless stderr is a terminal
			defer status.Done()
			aopts.Progress = status.Set
		}
	}
	return audit.Run(ctx, aopts)
}

// auditOptions checks the flags and turns them into the engine's options.
func (o *AuditOptions) auditOptions() (audit.Options, error) {
	if o.Conn.traceShared == nil {
		// One trace for the probes' sessions, each line naming its own.
		o.Conn.traceShared = &sharedTrace{start: time.Now()}
	}
	if err := o.Conn.prepare(o.IO); err != nil {
		return audit.Options{}, err
	}
	t, err := o.Conn.withLogin(o.IO)
	if err != nil {
		return audit.Options{}, err
	}
	if err := t.Validate(); err != nil {
		return audit.Options{}, targetUsage(err)
	}
	if err := checkMaxRounds(o.Conn.MaxRounds, true); err != nil {
		return audit.Options{}, err
	}
	if err := checkProtocolFlag(o.Conn.Protocol); err != nil {
		return audit.Options{}, err
	}
	samples, err := (&AnswerOptions{Samples: o.Samples}).samples()
	if err != nil {
		return audit.Options{}, err
	}
	roots, err := o.Conn.roots()
	if err != nil {
		return audit.Options{}, err
	}
	opts := audit.Options{
		Hint:           flagHint,
		Name:           auditFlagName,
		Target:         t,
		Protocol:       o.Conn.Protocol,
		Timeout:        o.Conn.Timeout,
		ConnectTimeout: o.Conn.connectTimeout(),
		MaxRounds:      o.Conn.MaxRounds,
		Samples:        samples,
		Roots:          roots,
		ClientName:     "mcp-tester-audit",
		ClientVersion:  Version(),
		Trace:          o.Conn.sessionTrace,
	}
	if err := o.apply(o.IO, &opts); err != nil {
		return audit.Options{}, err
	}
	// Said even with -q: what the audit may change is not progress.
	opts.Warn = func(line string) { fmt.Fprintf(o.IO.ErrOut, "mcp-tester: warning: %s\n", line) }
	return opts, nil
}

// hasAuthorization reports whether "Name: value" header lines send an
// Authorization header.
func hasAuthorization(lines []string) bool {
	h, _ := target.ParseHeaders(lines)
	return h.Get("Authorization") != ""
}

// auditFlagName names an option of the audit as the flag that sets it, for
// the audit's errors and warnings.
func auditFlagName(o audit.Option) string {
	switch o {
	case audit.OptionInclude:
		return "--include"
	case audit.OptionArgs:
		return "--args"
	case audit.OptionOtherHeaders:
		return "--other-header"
	case audit.OptionReadOnly:
		return "--read-only"
	case audit.OptionURL:
		return "-u URL"
	case audit.OptionOtherLogin:
		return "--other-identity"
	case audit.OptionProtocol:
		return "--protocol"
	case audit.OptionSamples:
		return "--sample"
	case audit.OptionRoots:
		return "--root"
	}
	return o.String()
}

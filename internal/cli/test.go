package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/ghactions"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/internal/text/textdiff"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// TestOptions are the options of `mcp-tester test`.
type TestOptions struct {
	IO          *iostreams.IOStreams
	Conn        ConnOptions
	Scripts     []string
	Jobs        int
	JUnit       string
	HTML        string
	Format      string
	StepTimeout time.Duration
	Verbose     bool
	Answers     AnswerOptions
	// StepTimeoutSet is whether --step-timeout was given: without it, a
	// step a person answers gets personStepTimeout.
	StepTimeoutSet bool
	// Update rewrites the expected values of the checks that failed.
	Update bool
}

// personStepTimeout bounds a step when a person may answer during it and
// --step-timeout was not given: a person reads and types slower than a
// script.
const personStepTimeout = 10 * time.Minute

func newTestCmd(io *iostreams.IOStreams, runF func(context.Context, *TestOptions) error) *cobra.Command {
	opts := &TestOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "test [-s FILE]... [FILE|DIR|GLOB]...",
		Short: "Run .mcp test scripts against a server",
		Long: `Run .mcp scripts: each script gets a fresh session with the server, runs its
steps in order, and prints one line per step, then a summary ending in
"N passed, N failed". Scripts, directories (every *.mcp inside) and globs may
be given with -s/--script or as arguments.

With a person at the terminal (or --interactive), a question that no
elicit_response answers is asked to the person instead of being declined;
--record FILE writes the calls and the answers given as a new script that
replays them. A person answers one script at a time: --interactive and
--record refuse --jobs above 1. A step a person may answer during has 10
minutes unless --step-timeout is given.

--format github prints the text report and, for each failed step, a GitHub
Actions annotation (::error file=deploy.mcp,line=3,col=1::...) that the
workflow run shows on that line of the script; --format sarif writes a SARIF
2.1.0 log for code scanning with each failed step at its file and line.
--junit writes JUnit XML besides any of them, --html one self-contained
HTML page: a summary, the failed steps first (each at its FILE:LINE with
what was expected and what came), then every script with its steps, the
questions asked during each and the answers given.

On a terminal, a progress line on stderr says how many scripts have run
and which are running; it is erased at the end, and never written when
stderr is not a terminal.

--update rewrites the expected values of the checks that failed with what
this run found (snapshots, as golden files are updated): only those values
change, every other byte of the file stays, and the changes are shown as a
diff on stderr. Nothing is written when a script could not reach the
server. It exits 0 when every failure was updated.

Exit codes: 0 every step passed; 1 a step failed, or the server answered
with something else than MCP; 2 usage or syntax error (reported as
FILE:LINE:COL before anything runs); 3 a script could not reach the server.`,
		Example: `  mcp-tester test -s examples/deployer/deploy.mcp -c bin/deployer
  mcp-tester test examples/deployer/ -c bin/deployer --jobs 4 --junit /tmp/report.xml
  mcp-tester test -s examples/deployer/deploy.mcp -c bin/deployer --html /tmp/deploy.html
  bin/deployer -http 127.0.0.1:8080 &
  mcp-tester test 'examples/deployer/*.mcp' -u http://127.0.0.1:8080/mcp --format json
  mcp-tester test -s examples/deployer/deploy.mcp -c bin/deployer --interactive --record /tmp/answered.mcp
  mcp-tester test -s examples/deployer/deploy.mcp -c bin/deployer --update`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Scripts = append(opts.Scripts, args...)
			opts.StepTimeoutSet = cmd.Flags().Changed("step-timeout")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTest(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addRootFlag(cmd, &opts.Conn)
	addProgressFlag(cmd, &opts.Conn)
	addAskFlags(cmd, &opts.Conn)
	addHumanFlags(cmd, &opts.Answers)
	addStrictFlag(cmd, &opts.Answers)
	cmd.Flags().Lookup("strict").Usage = "a question that no elicit_response (and no person) answers fails its step instead of being declined"
	addRecordFlag(cmd, &opts.Answers, "write the calls, the answers given and checks of the results to this .mcp script, replacing it")
	addSampleFlag(cmd, &opts.Answers, "; after the sample_response lines, each script from the first")
	f := cmd.Flags()
	stringsVarP(f, &opts.Scripts, "script", "s", "a script, a directory of scripts or a glob (repeatable)")
	f.IntVarP(&opts.Jobs, "jobs", "j", 1, "run this many scripts at once, each on its own session")
	f.StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to this file")
	addHTMLFlag(cmd, &opts.HTML)
	addFormatChoice(cmd, &opts.Format, "report format on stdout: text, json, sarif (code scanning), or github (the text and a GitHub Actions annotation per failed step)", report.Text, report.JSON, report.SARIF, report.GitHub)
	f.DurationVar(&opts.StepTimeout, "step-timeout", script.DefaultStepTimeout, "time limit for each step (10m when a person may answer, unless given)")
	f.BoolVar(&opts.Verbose, "questions", false, "show the questions and answers of each asking step")
	f.BoolVar(&opts.Update, "update", false, "rewrite the expected values of the checks that failed with what the server answered, and show the changes as a diff on stderr")
	return cmd
}

func runTest(ctx context.Context, opts *TestOptions) error {
	if err := checkTestOptions(opts); err != nil {
		return err
	}
	sopts, err := opts.Conn.sessionOptions(opts.IO)
	if err != nil {
		return err
	}
	sopts.OnTask = nil // the script report notes each task under its step
	samples, err := opts.Answers.samples()
	if err != nil {
		return err
	}
	if len(samples) > 0 {
		sopts.DeclareSampling = true // the replies come from the script's fallback
	}
	scripts, err := loadTestScripts(opts.Scripts)
	if err != nil {
		return err
	}
	ropts := script.RunOptions{
		ConnectScript: script.SessionConnectScript(sopts),
		// The session bounds its connect (--connect-timeout), and its
		// error names the flag.
		ConnectTimeout: -1,
		Jobs:           opts.Jobs,
		StepTimeout:    opts.StepTimeout,
		Stdin:          opts.IO.In,
		Verbose:        opts.Verbose,
		Samples:        samples,
		NoTasks:        "(--no-tasks was given); run without --no-tasks to drive tasks",
	}
	// A progress line on a terminal, out of the way while a person
	// answers there.
	status := opts.IO.StartStatus()
	defer status.Done()
	if status != nil {
		ropts.Status = func(st script.Status) { status.Set(scriptStatus(st)) }
	}
	if opts.Jobs <= 1 {
		addTestPerson(opts, &sopts, &ropts, status)
	}
	if err := setTestOutputs(opts, &ropts); err != nil {
		return err
	}
	rep := script.RunAll(ctx, scripts, ropts)
	rep.Name = testFlagName
	status.Done()
	updated := 0
	if opts.Update && !rep.Interrupted {
		// Before the reports, which say what was rewritten and count the
		// run's outcome after it.
		updated = updateScripts(opts.IO, scripts, rep)
	}
	if err := writeTestReports(opts, sopts, rep); err != nil {
		return err
	}
	code := rep.ExitCode()
	if code == 0 && updated > 0 && (opts.Format == report.Text || opts.Format == "") {
		// The report above shows the checks failing; they were
		// rewritten, and that is the run's outcome.
		fmt.Fprintf(opts.IO.Out, "--update: the %d failed check(s) above now expect what the server answered (see the diff on stderr); run again to see them pass\n", updated)
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// checkTestOptions refuses, before anything runs, the options of test that
// do not go together.
func checkTestOptions(opts *TestOptions) error {
	if len(opts.Scripts) == 0 {
		return usageErr("no script given: use -s FILE (or a directory or glob)")
	}
	if opts.Jobs < 1 {
		return usageErr("--jobs must be at least 1")
	}
	if opts.Jobs > 1 && (opts.Answers.Interactive || opts.Answers.Record != "") {
		return usageErr("--jobs %d: a person answers one script at a time; use --jobs 1 with --interactive or --record", opts.Jobs)
	}
	for _, p := range [][2]string{{"--html", opts.HTML}, {"--junit", opts.JUnit}, {"--record", opts.Answers.Record}} {
		if err := checkOutPath(p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// loadTestScripts reads the scripts test runs. A script with no step
// (empty, or comments alone) is read like the others: it fails on its own
// when its turn comes (nothing checked is a failure, as in audit), and the
// others run.
func loadTestScripts(paths []string) ([]*script.Script, error) {
	scripts, err := script.LoadFiles(paths)
	if err != nil {
		// Syntax errors and missing files: nothing has run.
		return nil, &exitError{code: ExitUsage, err: err}
	}
	return scripts, nil
}

// addTestPerson lets the person at the terminal answer what the scripts
// leave open, when the scripts run one at a time. Parallel scripts in a
// terminal decline, as they always did.
func addTestPerson(opts *TestOptions, sopts *session.Options, ropts *script.RunOptions, status *iostreams.StatusLine) {
	person := opts.Answers.person(opts.IO)
	if p, ok := person.(*interactive.Answerer); ok {
		// input_var reads where the person's answers are read, so
		// that neither takes the other's lines.
		ropts.Stdin = p.Input()
	}
	if person == nil {
		return
	}
	ropts.Fallback = bounded{pausing{person, status}}
	if answer.CanSample(person) && !sopts.DeclareSampling {
		// The person writes the model replies no sample_response gives.
		sopts.DeclareSampling = true
		ropts.ConnectScript = script.SessionConnectScript(*sopts)
	}
	if !opts.StepTimeoutSet {
		ropts.StepTimeout = max(ropts.StepTimeout, personStepTimeout)
	}
}

// setTestOutputs says where a run of test writes as it goes: progress,
// prompts for input_var, and the script --record writes.
func setTestOutputs(opts *TestOptions, ropts *script.RunOptions) error {
	if opts.Answers.Strict {
		ropts.Strict = "--strict does not let it be declined: add an elicit_response for it"
	}
	if opts.Format == report.Text || opts.Format == "github" {
		// Out's guard: no line a server wrote reads as a workflow command.
		ropts.Progress = opts.IO.Out
		// The [PROGRESS] lines of a call come after the lines of the
		// steps before it, where stderr and stdout are merged.
		ropts.Live = opts.Conn.Progress
	}
	if opts.IO.IsInteractive() {
		ropts.Prompts = opts.IO.ErrOut // input_var asks before it waits
	}
	if opts.Answers.Record != "" {
		// A new script: what an earlier run recorded is replaced.
		f, err := outfile.Create(opts.Answers.Record, 0o600) // it holds the answers given
		if err != nil {
			return &exitError{code: ExitUsage, err: fmt.Errorf("--record: %w", err)}
		}
		f.Close()
		opts.Answers.hide = opts.IO.Hide
		ropts.Record = opts.Answers.record
	}
	return nil
}

// testFlagName names an option of the scripts' report as the flags that
// set it, for the report's help.
func testFlagName(o script.Option) string {
	switch o {
	case script.OptionServer:
		return "-c, -u, -p"
	}
	return ""
}

// writeTestReports writes the report of a run of test in the format asked
// on stdout, and the JUnit and HTML files asked for.
func writeTestReports(opts *TestOptions, sopts session.Options, rep *script.Report) error {
	// The text went out as the scripts ran (Progress).
	if err := emit(opts.IO, opts.Format, report.Writers{
		JSON:        func(w io.Writer) error { return script.WriteJSON(w, rep) },
		SARIF:       rep,
		Annotations: func() []ghactions.Annotation { return script.Annotations(rep) },
	}); err != nil {
		return err
	}
	if err := writeReportFile("--junit", opts.JUnit, opts.IO.Hide, func(w io.Writer) error { return script.WriteJUnit(w, rep) }); err != nil {
		return err
	}
	return writeHTML(opts.HTML, func(w io.Writer) error {
		return htmlreport.WriteScripts(w, htmlMeta(opts.IO, "mcp-tester test", sopts.Target.Describe()), rep)
	})
}

// scriptStatus is the progress line of a run of scripts: how many ended,
// the steps so far, and what runs.
func scriptStatus(st script.Status) string {
	line := fmt.Sprintf("[%d/%d scripts] %d passed, %d failed", st.Done, st.Scripts, st.Passed, st.Failed)
	switch len(st.Running) {
	case 0:
	case 1:
		line += " · running " + st.Running[0]
	default:
		line += fmt.Sprintf(" · running %s and %d more", st.Running[0], len(st.Running)-1)
	}
	return line
}

// pausing keeps the progress line off the terminal while a person answers
// a question there.
type pausing struct {
	inner  answer.Answerer
	status *iostreams.StatusLine
}

func (p pausing) Answer(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	p.status.Pause()
	defer p.status.Resume()
	return p.inner.Answer(ctx, q)
}

// updateScripts runs --update: each script's failed checks rewritten with
// what the run found, the changes shown as a diff on stderr, the files
// written whole, and the checks rewritten marked in rep (whose exit code
// then no longer counts them). Nothing is written when a script could not
// reach the server. It returns how many checks were rewritten.
func updateScripts(io *iostreams.IOStreams, scripts []*script.Script, rep *script.Report) (total int) {
	for _, res := range rep.Scripts {
		if res.Err != nil {
			fmt.Fprintf(io.ErrOut, "nothing updated: %s could not run (see the report); no file was written\n", termsafe.Line(res.Name))
			return 0
		}
	}
	type pending struct {
		i     int
		data  []byte
		notes []script.UpdateNote
	}
	var writes []pending
	for i, s := range scripts {
		data, notes, err := script.Update(s, rep.Scripts[i])
		if err != nil {
			fmt.Fprintf(io.ErrOut, "%s: not updated: %v\n", termsafe.Line(s.Name), err)
			continue
		}
		updated := 0
		for _, n := range notes {
			if n.Updated {
				updated++
				continue
			}
			fmt.Fprintf(io.ErrOut, "%s:%d: %s\n", termsafe.Line(s.Name), n.Line, termsafe.Line(strings.TrimPrefix(n.String(), fmt.Sprintf("line %d: ", n.Line))))
		}
		if updated > 0 {
			old := script.Source(s)
			fmt.Fprint(io.ErrOut, termsafe.Block(textdiff.Unified(s.Name, s.Name+" (updated)", string(old), string(data), 3)))
			writes = append(writes, pending{i, data, notes})
		}
		fmt.Fprintf(io.ErrOut, "%s: %d expected value(s) updated\n", termsafe.Line(s.Name), updated)
		total += updated
	}
	for _, w := range writes {
		if err := outfile.Write(scripts[w.i].Name, w.data, 0o644); err != nil {
			fmt.Fprintf(io.ErrOut, "--update: %v\n", err)
			continue // its checks still fail the run
		}
		rep.Scripts[w.i].MarkUpdated(w.notes)
	}
	return total
}

// bounded gives up on a question when its step's time is up, even when the
// answerer does not: line prompts block in a read of stdin that no context
// ends. The abandoned question keeps the person's next line.
type bounded struct{ inner answer.Answerer }

func (b bounded) Answer(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	type reply struct {
		res *mcp.ElicitResult
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		res, err := b.inner.Answer(ctx, q)
		ch <- reply{res, err}
	}()
	select {
	case r := <-ch:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer from the person in time: %w", ctx.Err())
	}
}

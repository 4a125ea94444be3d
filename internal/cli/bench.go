package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askback/askback/internal/bench/cpuuse"
	"github.com/askback/askback/internal/bench/loadgen"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/report"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/script"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// BenchOptions are the options of `mcp-tester bench`.
type BenchOptions struct {
	IO          *iostreams.IOStreams
	Conn        ConnOptions
	Answers     AnswerOptions // --elicit only: nobody answers a load
	Tool        string
	Args        string
	Script      string
	Concurrency int
	Duration    time.Duration
	Requests    int
	Format      string
	HTML        string
	AllowRemote []string

	// cpuTime reads the tester's CPU time (cpuuse.Self when nil).
	cpuTime func() (time.Duration, error)
}

// benchShareWarning is the share of the cores it shares with the server
// above which bench warns that it took the server's CPU.
const benchShareWarning = 0.25

// benchShareMinExcess is how much CPU the tester must have used beyond
// benchShareWarning of the cores for bench to warn: in a run of a few
// flows the share is mostly the session's start and says nothing of what
// the server had (five flows in 30 ms measured 15 ms of CPU, 26 %).
const benchShareMinExcess = 100 * time.Millisecond

// benchRecycle is how many flows a worker runs on one session before it
// opens a fresh one, which bounds the memory of the session's question log.
const benchRecycle = 10_000

func newBenchCmd(io *iostreams.IOStreams, runF func(context.Context, *BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "bench [TOOL] [flags]",
		Short: "Load a server with calls that ask questions and measure them",
		Long: `Run flows against a server from several concurrent workers and report the
throughput (completed flows per second) and the latency percentiles (p50, p90,
p99) of whole flows and of each round. A flow is one call of TOOL with --args,
its questions answered with --elicit as in ` + "`call`" + `, or one run of a .mcp script
(--script). Each worker has its own session and runs one flow at a time.
Round N is the flow's Nth tools/call, prompts/get or resources/read request;
in a script they are counted over the whole script.

The run ends after --requests flows or after --duration (10s when neither is
given), whichever comes first, and never lasts more than an hour, opening
the workers' sessions included (then the flows in flight end within their
own bound); each flow is bounded by --timeout per request. A flow fails when
the call fails, the tool reports an error, or a script step fails.

The run is also kept over time, in slices of 100 ms (doubled as the run
grows, so that there are at most 120): the flows that ended in each, their
throughput and latency percentiles (to within 3%), and the tester's own CPU
time; --format json has them ("timeline") and a latency histogram of the
flows and of each round ("histogram"), and --html FILE draws them on one
self-contained HTML page. On a terminal, a progress line on stderr shows
how far the run is; nothing is written there when stderr is not a terminal.

Only servers on this machine are loaded: a URL must name a loopback address
or localhost unless --allow-remote names its host. Exit codes: 0 every flow
completed; 1 some flows failed, or none ran (a --duration too short for
the first flow: nothing was measured, and no report is printed); 2 usage
error; 3 the server could not be reached.`,
		Example: `  bin/deployer -http 127.0.0.1:8080 &
  mcp-tester bench deploy -u http://127.0.0.1:8080/mcp --args '{"service":"auth-service"}' \
      --elicit 'accept:{"environment":"production","confirm":true}' --concurrency 8 --requests 400 --duration 2s
  mcp-tester bench --script examples/deployer/deploy.mcp -c bin/deployer --requests 20 --format json
  mcp-tester bench --script examples/deployer/deploy.mcp -c bin/deployer --requests 200 --html /tmp/bench.html`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Tool = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runBench(cmd.Context(), opts)
		},
	}
	addConnFlags(cmd, &opts.Conn)
	addAskFlags(cmd, &opts.Conn)
	addElicitFlag(cmd, &opts.Answers)
	addRootFlag(cmd, &opts.Conn)
	f := cmd.Flags()
	f.StringVarP(&opts.Args, "args", "a", "{}", "the tool's arguments as a JSON object")
	f.StringVarP(&opts.Script, "script", "s", "", "run this .mcp script as one flow instead of calling a tool")
	f.IntVar(&opts.Concurrency, "concurrency", 1, fmt.Sprintf("workers running flows at once, each on its own session (at most %d)", loadgen.MaxConcurrency))
	f.DurationVar(&opts.Duration, "duration", 0, "stop starting flows after this long (default 10s when --requests is not given)")
	f.IntVarP(&opts.Requests, "requests", "n", 0, "run this many flows in all")
	f.StringVar(&opts.Format, "format", "text", "report format on stdout: text or json")
	addHTMLFlag(cmd, &opts.HTML)
	stringsVar(f, &opts.AllowRemote, "allow-remote", "allow loading a server on this host, which is not loopback (repeatable)")
	return cmd
}

func runBench(ctx context.Context, opts *BenchOptions) error {
	if err := checkBenchOptions(opts); err != nil {
		return err
	}
	sopts, err := opts.Conn.sessionOptions(opts.IO)
	if err != nil {
		return err
	}
	if err := checkBenchTarget(sopts.Target.URL, opts.AllowRemote); err != nil {
		return err
	}
	flow, err := newBenchFlow(opts, &sopts)
	if err != nil {
		return err
	}
	sopts.Warn = nil // one warning per flow would drown the report
	// A task's status lines are one call's (call, tasks wait): a bench's
	// flows would write each of their tasks' statuses, thousands of lines,
	// where stderr holds one progress line on a terminal and nothing else.
	sopts.OnTask = nil

	lopts := loadgen.Options{
		Concurrency: opts.Concurrency,
		Requests:    opts.Requests,
		Duration:    opts.Duration,
		Open: func(ctx context.Context) (loadgen.Worker, error) {
			w := &benchWorker{flow: flow, opts: sopts}
			return w, w.open(ctx)
		},
		CPUTime: opts.cpuTime,
	}
	status := opts.IO.StartStatus() // nil unless stderr is a terminal
	if status != nil {
		lopts.Progress = func(p loadgen.Progress) { status.Set(p.String()) }
	}
	rep, err := loadgen.Run(ctx, lopts)
	status.Done()
	if err != nil {
		var se *session.Error
		if errors.As(err, &se) {
			return err
		}
		return &exitError{code: ExitUnreachable, err: err}
	}
	if rep.Flows+rep.Failed == 0 {
		// Nothing checked is a failure: no latency, throughput or share of
		// the cores is measured of no flow (nor of the interval it left).
		return &exitError{code: ExitFailed, err: fmt.Errorf("no flow ran in --duration %s: nothing was measured; give a longer --duration or --requests N", opts.Duration)}
	}
	rep.Tester.Cores, rep.Tester.SharesCores = testerCores(sopts.Target)
	warnBenchShare(opts.IO.ErrOut, rep)
	if err := writeBenchReports(opts, sopts, rep); err != nil {
		return err
	}
	if ctx.Err() != nil {
		// Ctrl-C: what ran is reported (the flows it cut short as
		// interrupted), and the command says it was interrupted (exit 130).
		return ctx.Err()
	}
	if rep.Failed > 0 {
		return &exitError{code: ExitFailed}
	}
	return nil
}

// checkBenchOptions refuses, before anything runs, the options of bench
// that do not go together or lie out of bounds.
func checkBenchOptions(opts *BenchOptions) error {
	if (opts.Tool == "") == (opts.Script == "") {
		return usageErr("give either a TOOL to call or --script FILE")
	}
	if opts.Format != "text" && opts.Format != "json" {
		return usageErr("--format %q: use text or json", opts.Format)
	}
	if opts.Concurrency < 1 || opts.Concurrency > loadgen.MaxConcurrency {
		return usageErr("--concurrency must be between 1 and %d", loadgen.MaxConcurrency)
	}
	if opts.Requests < 0 || opts.Requests > loadgen.MaxFlows {
		return usageErr("--requests must be between 1 and %d", loadgen.MaxFlows)
	}
	if opts.Duration < 0 || opts.Duration > loadgen.MaxDuration {
		return usageErr("--duration must be positive and at most %s", loadgen.MaxDuration)
	}
	return checkOutPath("--html", opts.HTML)
}

// newBenchFlow reads what each flow of bench does, a call of TOOL or a
// script, and declares in sopts what it needs.
func newBenchFlow(opts *BenchOptions, sopts *session.Options) (*benchFlow, error) {
	flow := &benchFlow{tool: opts.Tool}
	var err error
	if opts.Tool != "" {
		if flow.args, err = parseArgs(opts.Args); err != nil {
			return nil, err
		}
		if flow.specs, err = opts.Answers.specs(); err != nil {
			return nil, err
		}
		if flow.samples, err = opts.Answers.samples(); err != nil {
			return nil, err
		}
		if len(flow.samples) > 0 {
			// Declared for every session; each call gets the replies anew.
			sopts.DeclareSampling = true
		}
		return flow, nil
	}
	if len(opts.Answers.Elicit) > 0 {
		return nil, usageErr("--elicit answers a TOOL's questions; a script answers with elicit_response")
	}
	if len(opts.Answers.Samples) > 0 {
		return nil, usageErr("--sample answers a TOOL's requests for a model reply; a script answers with sample_response")
	}
	src, err := os.ReadFile(opts.Script)
	if err != nil {
		return nil, usageErr("--script: %v", err)
	}
	if flow.script, err = script.ParseFile(opts.Script, src); err != nil {
		return nil, &exitError{code: ExitUsage, err: err}
	}
	flow.stepTimeout = opts.Conn.Timeout
	// What the script's sample_response and roots lines need declared.
	if flow.script.Sampling {
		sopts.DeclareSampling = true
	}
	sopts.Roots = append(sopts.Roots, flow.script.Roots...)
	return flow, nil
}

// warnBenchShare warns when the tester took a share of the cores it shares
// with the server large enough to have slowed the server down.
func warnBenchShare(w io.Writer, rep *loadgen.Report) {
	excess := rep.Tester.CPU - time.Duration(benchShareWarning*float64(rep.Elapsed)*float64(rep.Tester.Cores))
	if share := rep.Tester.Share(rep.Elapsed); rep.Tester.SharesCores && share > benchShareWarning && excess >= benchShareMinExcess {
		fmt.Fprintf(w, "warning: the tester used %.0f%% of the %d cores it shares with the server (%s of CPU per flow), more than %.0f%%: the server had that much less; to measure the server alone, run the tester on other cores (taskset -c) or on another machine\n",
			100*share, rep.Tester.Cores, rep.Tester.PerFlow(rep.Flows).Round(time.Microsecond), 100*benchShareWarning)
	}
}

// writeBenchReports writes the HTML file asked for and the report of bench
// on stdout, in text or JSON.
func writeBenchReports(opts *BenchOptions, sopts session.Options, rep *loadgen.Report) error {
	what := "tool " + opts.Tool
	if opts.Script != "" {
		what = "script " + opts.Script
	}
	if err := writeHTML(opts.HTML, func(w io.Writer) error {
		return htmlreport.WriteBench(w, htmlMeta(opts.IO, "mcp-tester bench", sopts.Target.Describe()), what, rep)
	}); err != nil {
		return err
	}
	if opts.Format == report.JSON {
		return loadgen.WriteJSON(opts.IO.Out, rep)
	}
	return loadgen.WriteText(opts.IO.Out, fmt.Sprintf("bench %s against %s", what, sopts.Target.Describe()), rep)
}

// testerCores returns how many cores the tester may run on and whether the
// server runs on some of them: a command server does (it inherits them); a
// loopback server does when it may run on one of them, or when the process
// listening on its port cannot be found; another machine's does not.
func testerCores(t *target.Target) (cores int, shared bool) {
	own, err := cpuuse.Allowed(0)
	if err != nil {
		own = nil
	}
	if t.Command != "" {
		return len(own), true
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return len(own), false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return len(own), false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	pid, ok := cpuuse.Listener(port)
	if !ok || own == nil {
		return len(own), true
	}
	theirs, err := cpuuse.Allowed(pid)
	return len(own), err != nil || own.Overlaps(theirs)
}

// checkBenchTarget refuses a URL whose host is not loopback unless allow
// names it.
func checkBenchTarget(raw string, allow []string) error {
	if raw == "" {
		return nil // a command started on this machine
	}
	u, err := url.Parse(raw)
	if err != nil {
		return usageErr("--url: %v", err)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	for _, a := range allow {
		if strings.EqualFold(a, host) {
			return nil
		}
	}
	return usageErr("refusing to load %s: it is not a loopback address; if you own it and mean to load it, add --allow-remote %s", host, host)
}

// benchFlow is what one flow does: a call or a script.
type benchFlow struct {
	tool        string
	args        map[string]any
	specs       []answer.Spec
	samples     []answer.Sample
	script      *script.Script
	stepTimeout time.Duration
}

// benchWorker runs flows on its own session and times each round.
type benchWorker struct {
	flow  *benchFlow
	opts  session.Options
	s     *session.Session
	pool  *target.Pool // the worker's connections to an HTTP server
	cur   *loadgen.Rounds
	flows int
}

func (w *benchWorker) open(ctx context.Context) error {
	o := w.opts
	o.Log = &exchange.Log{}
	if o.Target != nil {
		t := *o.Target
		if t.URL != "" {
			// The worker's requests follow one another: they take turns on
			// one connection, which outlives the sessions it recycles.
			if w.pool == nil {
				w.pool = target.NewPool(0)
			}
			t.Pool = w.pool
		}
		o.Target = &t
	}
	o.Middleware = append(slices.Clone(o.Middleware), w.timing)
	s, err := session.Open(ctx, o)
	if err != nil {
		return err
	}
	w.s, w.flows = s, 0
	return nil
}

// timing is client middleware that reports the duration of each request of
// an asking call as one round.
func (w *benchWorker) timing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call", "prompts/get", "resources/read":
			t0 := time.Now()
			res, err := next(ctx, method, req)
			if r := w.cur; r != nil {
				r.Add(time.Since(t0))
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// Flow implements loadgen.Worker.
func (w *benchWorker) Flow(ctx context.Context, r *loadgen.Rounds) error {
	if w.flows >= benchRecycle {
		w.s.Close()
		if err := w.open(ctx); err != nil {
			return err
		}
	}
	w.flows++
	w.cur = r
	defer func() { w.cur = nil }()
	if w.flow.script != nil {
		return w.runScript(ctx)
	}
	res, _, err := w.s.CallTool(ctx, w.flow.tool, w.flow.args, answer.Who{Written: answer.NewQueue(w.flow.specs...), Samples: []*answer.Samples{answer.NewSamples(w.flow.samples...)}}.Answerer())
	if err != nil {
		return err
	}
	if res.IsError {
		var b strings.Builder
		printer.ToolResult(&b, res)
		return fmt.Errorf("tool %q reported an error: %s", w.flow.tool, strings.TrimSpace(b.String()))
	}
	return nil
}

func (w *benchWorker) runScript(ctx context.Context) error {
	rep := script.Run(ctx, w.flow.script, script.RunOptions{
		Connect:     func(context.Context) (script.Conn, error) { return keepOpen{script.NewSessionConn(w.s)}, nil },
		StepTimeout: w.flow.stepTimeout,
	})
	for _, sr := range rep.Scripts {
		if sr.Err != nil {
			return sr.Err
		}
		for _, st := range sr.Steps {
			if !st.Passed {
				return fmt.Errorf("%s:%d: %s: %s", sr.Name, st.Line, st.Command, st.Message)
			}
		}
	}
	return nil
}

// Close implements loadgen.Worker.
func (w *benchWorker) Close() error {
	if w.pool != nil {
		defer w.pool.Close()
	}
	if w.s == nil {
		return nil
	}
	return w.s.Close()
}

// keepOpen lends the worker's session to one script run: the runner closes
// its Conn at the end of the script, the worker keeps the session.
type keepOpen struct{ *script.SessionConn }

func (keepOpen) Close() error { return nil }

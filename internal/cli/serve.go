package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/platform/stopsignal"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/internal/server/proxy"
	"github.com/askback/askback/internal/server/standin"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ServeOptions are the options of `mcp-tester serve`.
type ServeOptions struct {
	IO *iostreams.IOStreams
	// Recording is the recording's file.
	Recording string
	// Listen serves Streamable HTTP on this address; empty serves stdio.
	Listen string
	// ListenAny allows a Listen address that is not on loopback.
	ListenAny bool
	// AddrFile gets the address listened on, once listening.
	AddrFile string
	// Answers is how answers are checked: exact or schema.
	Answers string
	// Faults are the --fault specs, as written.
	Faults []string
	// Report is the file the JSON report is written to at the end.
	Report string
	// StateTTL is how long a requestState the stand-in seals is valid.
	StateTTL time.Duration
	// MaxSessions bounds the open 2025-11-25 sessions (HTTP).
	MaxSessions int
	given       map[string]bool
}

// httpServeFlags mean something when serving HTTP only.
var httpServeFlags = []string{"listen-any", "addr-file", "max-sessions"}

func newServeCmd(ios *iostreams.IOStreams, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "serve RECORDING.jsonl",
		Short: "Serve a recording as a stand-in server, to test a client",
		Long: `serve plays the server of a recording made by mcp-tester proxy, so that a
client can be tested without the real server (see docs/record.md).

Over stdio (the default) a client launches "mcp-tester serve REC.jsonl" as its
server command: only JSON-RPC goes to stdout, notes and problems to stderr, and
the stand-in ends with the client. With --listen it serves Streamable HTTP at
that address (loopback unless --listen-any), both protocol eras on one
endpoint, until interrupted.

It answers initialize (or server/discover) with the recorded server's name,
capabilities (each it does not serve left out, and named on stderr) and
instructions, the lists with the recorded results (the tools
called, when no list was recorded), and each request with the recorded answer:
requests are matched by method and params (ids, _meta, requestState and
inputResponses aside; arguments compared by value). The same request recorded
several times is answered in the recorded order, then with the last answer
again. A request the recording does not hold gets a JSON-RPC error (-32602)
naming the nearest recorded one.

The recorded questions are asked the way the client's protocol expects,
whatever the recording's: a 2026-07-28 client gets input_required with a
requestState the stand-in seals and checks (a tampered, replayed, expired or
foreign one is refused), a 2025-11-25 client gets elicitation/create requests.
Each answer is checked against the recorded one (--answers exact: the action,
and the content with the form's defaults filled in) or only against the
question's schema (--answers schema); each difference is a line on stderr and
an entry of the --report file.

A call the recorded server ran as a task (of the tasks extension, or of
2025-11-25) runs as a task of the stand-in's own for a client that asks for
one, with the recorded statuses, questions and result, through the tasks
requests the server answered (tasks/get, tasks/update, tasks/cancel; or
tasks/get and tasks/result); a client that asks for none gets the call the
task amounts to: its questions, then its result. A task shows the status
messages the server showed, none of the stand-in's own. A recorded task of
2025-11-25 runs, for a client of 2026-07-28, as a task of the tasks extension,
which the stand-in then offers; a task a client of 2025-11-25 started is kept
in its session, as a server of 2025-11-25 may keep it: another session (a
client of 2026-07-28, or a later command) does not find it, and the error
says why. A call without a task of a tool that runs only as a task (its
execution.taskSupport "required") is refused as the recorded server refused
such a call, when the recording holds one, else with an error (-32600) that
names the tool and says it needs a task.

--fault injects a fault into the requests of a method (and of one tool, prompt
or resource when named): METHOD[ NAME]:delay=DURATION, :error=CODE[:MESSAGE]
or :drop (over HTTP the request's connection is closed unanswered; over stdio
the stand-in closes its output and ends). Faults apply to every request they
name.

"The client did what was recorded" means: it made every call the recording
holds an answer for (tools/call, prompts/get, resources/read), as many times
as recorded, each matched and answered as recorded; the lists, completions,
ping and the handshake are answered when asked, not required. A client that
asked nothing, or skipped a recorded call, did not: each call it never made
is a problem of kind missing. A recorded call the stand-in refused, as the
server refuses it (a tool that runs only as a task called without one, where
the recording's call ran as a task), is a problem of kind refused, its
questions never asked; a task the client cancelled where the recording ran
it to its end, of kind cancelled (and one the recording's client cancelled
that the client did not, of kind missing); a task whose question the client never
came to be asked, of kind unanswered. A request the stand-in refused on
its own (its tasks or requests in progress at their bound, params it
cannot match with the recording) is of kind refused too. Over stdio, a
line of the client's input that is no JSON-RPC message, or a request whose
id is null, is a problem of kind malformed (answered with the JSON-RPC
error; the stand-in reads on); over HTTP, a POST whose body is such (the
go-sdk refuses it: HTTP 400), named by its number and path. While it serves, --report says what
happened so far; the missing calls and tasks are counted once it has ended.

Exit codes: 0 the client did what was recorded; 1 it did not (an answer
differed, a requestState was refused, a request had no recording, a recorded
call was never made, refused or its task cancelled, the stand-in refused a
request on its own, the client wrote a line or POST that is no JSON-RPC
message, or the client asked
nothing, a question's answer was missing or a question never asked, a question needed a capability the client did not declare, the
client's input ended before a request it sent was answered; over HTTP, ended
by an interrupt, also when no client came); 130 over stdio, interrupted
(SIGINT; 143 for SIGTERM) while the client was connected, before it had done
what was recorded (the report says "interrupted": true; interrupted after it
had, the stand-in exits 0); 2 usage: bad flags, a bad --fault, a
recording that cannot be read or served, a --listen address it cannot listen
on (taken, not this machine's) (nothing was served), or a --report file that
could not be written at the end (the client did what was recorded).`,
		Example: `  mcp-tester call deploy -c 'mcp-tester proxy -o /tmp/serve-deploy.jsonl -- bin/deployer' \
      --args '{"service":"auth"}' --elicit 'accept:{"environment":"production","confirm":true}'
  mcp-tester call deploy -c 'mcp-tester serve /tmp/serve-deploy.jsonl --report /tmp/serve-report.json' \
      --protocol 2025-11-25 --args '{"service":"auth"}' --elicit 'accept:{"environment":"production","confirm":true}'
  mcp-tester serve /tmp/serve-deploy.jsonl --listen 127.0.0.1:8094 --fault 'tools/call deploy:delay=2s' &
  mcp-tester call deploy -u http://127.0.0.1:8094/mcp --args '{"service":"auth"}' --elicit decline`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("give one recording: mcp-tester serve RECORDING.jsonl (made by mcp-tester proxy -o RECORDING.jsonl)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Recording = args[0]
			opts.given = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.given[f.Name] = true })
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Listen, "listen", "", "serve Streamable HTTP on this address (127.0.0.1:0 for a free port) instead of stdio")
	f.BoolVar(&opts.ListenAny, "listen-any", false, "HTTP: allow a --listen address that is not on loopback")
	f.StringVar(&opts.AddrFile, "addr-file", "", "HTTP: write the address listened on (host:port) to this file once listening")
	f.StringVar(&opts.Answers, "answers", standin.AnswersExact, "check each answer against the recorded one (exact) or only against its question's schema (schema)")
	stringsVar(f, &opts.Faults, "fault", "inject a fault: METHOD[ NAME]:delay=DURATION, :error=CODE[:MESSAGE] or :drop (repeatable)")
	f.StringVar(&opts.Report, "report", "", "write the report (requests, answers checked, every problem) as JSON to this file at the end")
	f.DurationVar(&opts.StateTTL, "state-ttl", 10*time.Minute, "how long a requestState the stand-in seals stays valid")
	f.IntVar(&opts.MaxSessions, "max-sessions", standin.DefaultMaxSessions, "HTTP: the most open sessions of 2025-11-25 clients (one client address may hold them all: a bench's workers are one); when all are open, a client's new session takes the place of its address's session idle the longest")
	return cmd
}

// check refuses what cannot run, before anything is served, and returns
// the faults.
func (o *ServeOptions) check() ([]standin.Fault, error) {
	var faults []standin.Fault
	for _, spec := range o.Faults {
		f, err := standin.ParseFault(spec)
		if err != nil {
			return nil, usageErr("--fault %q: %v", spec, err)
		}
		faults = append(faults, f)
	}
	switch {
	case o.Answers != standin.AnswersExact && o.Answers != standin.AnswersSchema:
		return nil, usageErr("--answers %q: use exact (the recorded answers) or schema (each question's schema only)", o.Answers)
	case o.StateTTL <= 0:
		return nil, usageErr("--state-ttl %v: give a duration above 0", o.StateTTL)
	case o.MaxSessions <= 0:
		return nil, usageErr("--max-sessions %d: give at least 1", o.MaxSessions)
	}
	if o.Listen == "" {
		for _, name := range httpServeFlags {
			if o.given[name] {
				return nil, usageErr("--%s applies to HTTP (--listen ADDR), not to stdio", name)
			}
		}
		return faults, nil
	}
	if err := checkListenAddr("--listen", o.Listen); err != nil {
		return nil, err
	}
	if err := proxy.CheckListen(o.Listen); errors.Is(err, proxy.ErrNotLoopback) && !o.ListenAny {
		return nil, usageErr("--listen %s is not a loopback address: a stand-in answers whoever reaches it; give 127.0.0.1:PORT, or add --listen-any to listen there anyway", o.Listen)
	}
	return faults, nil
}

func runServe(ctx context.Context, opts *ServeOptions) error {
	faults, err := opts.check()
	if err != nil {
		return err
	}
	warn := func(format string, args ...any) {
		fmt.Fprintf(opts.IO.ErrOut, "mcp-tester serve: "+format+"\n", args...)
	}
	for _, p := range [][2]string{{"--report", opts.Report}, {"--addr-file", opts.AddrFile}} {
		if err := checkOutPath(p[0], p[1]); err != nil {
			return err
		}
	}
	script, err := readScript(opts.Recording, warn)
	if err != nil {
		return err
	}
	// The address is taken before anything is served or reported: a port
	// that is taken ends the command with its error alone. It is told
	// (--addr-file) once the report's first writing is there.
	var ln net.Listener
	if opts.Listen != "" {
		if ln, err = listen.Announce(opts.Listen, ""); err != nil {
			return listenFailed(opts.Listen, opts.AddrFile, err)
		}
		defer ln.Close()
	}
	var s *standin.Standin
	report := &reportFile{path: opts.Report, errOut: opts.IO.ErrOut}
	s, err = standin.New(script, standin.Options{Recording: opts.Recording, Answers: opts.Answers, Faults: faults,
		StateTTL: opts.StateTTL, Log: opts.IO.ErrOut, Changed: func() { report.rewrite(s) }, EveryCall: true})
	if err != nil {
		return usageErr("%s: %v", opts.Recording, err)
	}
	// Written now, so that a report that cannot be written stops the
	// stand-in before it serves, not after.
	if err := report.write(s); err != nil {
		return usageErr("--report: %v", err)
	}
	if ln != nil {
		if err := listen.Tell(ln, opts.AddrFile); err != nil {
			return listenFailed(opts.Listen, opts.AddrFile, err)
		}
	}
	for _, n := range s.Notes() {
		warn("%s", n)
	}
	// An interrupt or a SIGTERM ends ctx (main's stopsignal). A client that leaves closes the pipes: writing to them is then an
	// error the stand-in reports, not a SIGPIPE that ends it before its
	// report is complete.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	if opts.Listen == "" {
		warn("serving %s over stdio (%s)", opts.Recording, script.Summary())
		err = s.ServeStdio(ctx, opts.IO.In, opts.IO.TerminalOut())
	} else {
		err = serveHTTP(ctx, opts, ln, s, script, warn)
	}
	return finishServe(opts, s, report, err, stopsignal.Of(ctx))
}

// readScript reads the recording and makes it a script, or says which
// line is wrong (usage: nothing is served).
func readScript(path string, warn func(string, ...any)) (*standin.Script, error) {
	f, err := recording.Open(path)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	defer f.Close()
	// Read as a stream: the script is kept, not the recording besides.
	rd, err := recording.NewReader(f)
	if err != nil {
		var re *recording.Error
		if errors.As(err, &re) && re.Line == 1 && strings.HasSuffix(path, ".mcp") {
			return nil, usageErr("%s: a .mcp script holds the client's side of a session (what it sends and checks), not the server's (its questions, results and name): serve a recording of the server, made with mcp-tester proxy -o FILE (see docs/record.md)", path)
		}
		return nil, usageErr("%v", recording.InFile(path, err))
	}
	script, err := standin.Read(rd, 0)
	if err != nil {
		return nil, usageErr("%v", recording.InFile(path, err))
	}
	if script.Truncated {
		warn("%s", recording.CutShort(path, rd.Line(), fmt.Sprintf("serving the %d whole entries before it", rd.Line()-2)))
	}
	for _, w := range script.Warnings {
		warn("%v", recording.InFile(path, w))
	}
	return script, nil
}

func serveHTTP(ctx context.Context, opts *ServeOptions, ln net.Listener, s *standin.Standin, script *standin.Script, warn func(string, ...any)) error {
	var err error
	const maxBody = 4 << 20
	h := s.Handler(standin.HTTPOptions{MaxSessions: opts.MaxSessions, MaxBody: maxBody,
		Full: fmt.Sprintf("mcp-tester serve --max-sessions %d: raise it for more clients of 2025-11-25 at once", opts.MaxSessions)})
	srv := httpserve.Server(httpserve.Bodies(h, &httpserve.Options{MaxBody: maxBody}), &httpserve.Options{MaxBody: maxBody})
	warn("serving %s at http://%s/mcp (%s); both protocol eras; interrupt to end", opts.Recording, ln.Addr(), script.Summary())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
		return &exitError{code: ExitFailed, err: err}
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &exitError{code: ExitFailed, err: err}
	}
	return nil
}

// reportFile is the --report file, rewritten whole (beside it, then
// renamed) after a change of the report, at most once every
// reportInterval (a change within it is written at its end), and at the
// end: so that it holds a whole report, as of the stand-in's last events,
// without writing the whole of it again for each event.
type reportFile struct {
	path   string
	errOut io.Writer
	// every is the least time between two writes (reportInterval when
	// zero); now and after are the clock (time.Now, time.AfterFunc when
	// nil).
	every time.Duration
	now   func() time.Time
	after func(time.Duration, func())

	mu      sync.Mutex
	failed  bool      // a write failed, which was said
	last    error     // what the last write came to
	written time.Time // when it was
	pending bool      // a write is due at the end of the interval
	writes  int       // the writes so far
}

// reportInterval is the least time between two writes of the live report.
const reportInterval = time.Second

// write writes the report as it stands.
func (f *reportFile) write(s *standin.Standin) error {
	if f.path == "" || s == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var b bytes.Buffer
	err := s.WriteReport(&b)
	if err == nil {
		err = outfile.Write(f.path, b.Bytes(), 0o600)
	}
	f.written = f.clock()
	f.writes++
	return err
}

func (f *reportFile) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}

// rewrite writes the report after a change, now or, within reportInterval
// of the last write, at its end; it says on stderr the first time it could
// not.
func (f *reportFile) rewrite(s *standin.Standin) {
	if f.path == "" || s == nil {
		return
	}
	every := cmp.Or(f.every, reportInterval)
	f.mu.Lock()
	if f.pending {
		f.mu.Unlock()
		return
	}
	if wait := every - f.clock().Sub(f.written); wait > 0 {
		f.pending = true
		after := f.after
		if after == nil {
			after = func(d time.Duration, fn func()) { time.AfterFunc(d, fn) }
		}
		f.mu.Unlock()
		after(wait, func() {
			f.mu.Lock()
			f.pending = false
			f.mu.Unlock()
			f.rewrite(s)
		})
		return
	}
	f.mu.Unlock()
	f.flush(s)
}

// flush writes the report now, and notes what came of it.
func (f *reportFile) flush(s *standin.Standin) {
	err := f.write(s)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last = err
	if err != nil && !f.failed {
		f.failed = true
		fmt.Fprintf(f.errOut, "mcp-tester serve: --report: %v\n", err)
	}
}

// unwritten is the error of the report's last write (the one at the end),
// nil when it was written or none was asked for; said tells whether a
// failed write was already said on stderr.
func (f *reportFile) unwritten() (said bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed, f.last
}

// finishServe says how the client did and whether the report was written:
// exit 0 when the client did what was recorded (every recorded call made,
// each as recorded), 1 when it did not, 130 when a stdio stand-in was
// interrupted before it had (143 when SIGTERM stopped it: stopped, nil
// while not stopped), else 2 when the report could not be written at the
// end.
func finishServe(opts *ServeOptions, s *standin.Standin, report *reportFile, serveErr error, stopped *stopsignal.Signal) error {
	s.End() // (it says the questions still unanswered)
	if stopped == nil {
		stopped = stopsignal.Interrupt()
	}
	r := s.Report()
	report.flush(s) // complete, whatever is pending
	verdict := "ok"
	if !r.OK {
		verdict = fmt.Sprintf("%d problem(s)", len(r.Problems)+r.Dropped)
		if r.Interrupted {
			// Stopped before the client was done: what it had not done
			// is in the problems, but it did not fail them.
			verdict = stopped.Word() + " before the client did what was recorded: " + verdict
		}
	}
	said, unwritten := report.unwritten()
	if unwritten != nil {
		if r.OK {
			verdict = "the client did as recorded"
		}
		verdict += ", but the report was not written to " + opts.Report
		if !said {
			verdict += fmt.Sprintf(" (%v)", unwritten)
		}
	}
	fmt.Fprintf(opts.IO.ErrOut, "mcp-tester serve: %d request(s) answered from the recording, %d of %d answer(s) as recorded; %s\n",
		r.Requests, r.Matched, r.Checked, verdict)
	if serveErr != nil {
		var ee *exitError
		if errors.As(serveErr, &ee) {
			return serveErr
		}
		return &exitError{code: ExitFailed, err: serveErr}
	}
	if !r.OK && r.Interrupted {
		return &exitError{code: stopped.ExitCode()}
	}
	if !r.OK {
		return &exitError{code: ExitFailed}
	}
	if unwritten != nil {
		// The --report file could not be written, as when it cannot be
		// at the start: a usage error (exit 2), said above.
		return &exitError{code: ExitUsage}
	}
	return nil
}

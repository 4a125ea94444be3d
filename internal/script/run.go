package script

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/platform/stopsignal"
)

// DefaultStepTimeout bounds each step unless RunOptions.StepTimeout or the
// timeout command says otherwise.
const DefaultStepTimeout = 30 * time.Second

// DefaultConnectTimeout bounds opening a session unless
// RunOptions.ConnectTimeout says otherwise: the session's own default
// (session.DefaultConnectTimeout), since starting a server may take
// longer than a step.
const DefaultConnectTimeout = session.DefaultConnectTimeout

// RunOptions configures a run.
type RunOptions struct {
	// Connect opens a fresh session for one script. It is called once per
	// script, possibly from several goroutines when Jobs > 1. Required.
	Connect func(ctx context.Context) (Conn, error)
	// ConnectScript, when set, is used instead of Connect: it also sees the
	// script, whose sample_response and roots lines say what its session
	// declares (see SessionConnectScript).
	ConnectScript func(ctx context.Context, s *Script) (Conn, error)
	// Jobs is how many scripts run at once, each on its own session; <= 1
	// runs them one after the other.
	Jobs int
	// StepTimeout bounds each step (DefaultStepTimeout when zero).
	StepTimeout time.Duration
	// ConnectTimeout bounds opening a script's session
	// (DefaultConnectTimeout when zero); negative leaves the bound to
	// Connect (a session's Options.ConnectTimeout, whose error names its
	// setting).
	ConnectTimeout time.Duration
	// Stdin is where input_var reads its lines. Shared by all scripts.
	Stdin io.Reader
	// Prompts, when set, receives the prompt of input_var before it reads
	// (set it to the terminal when Stdin is one).
	Prompts io.Writer
	// Progress, when set, receives the text report while the scripts run:
	// each script's lines in the order of the scripts, whatever the
	// parallelism, then the summary. Without a Fallback or Live, a script's
	// lines may be held across the calls for up to 100 ms (see
	// runner.beforeWait).
	Progress io.Writer
	// Live writes each step's lines before the next call starts, as when
	// a Fallback may ask a person, instead of holding them across fast
	// calls: for a run whose other output during a call (progress lines on
	// stderr) must not come before them where the streams are merged.
	Live bool
	// Verbose adds to each asking step the questions asked and their answers.
	Verbose bool
	// Fallback, when set, is asked for a question that the answers queued
	// by elicit_response do not cover, instead of declining it: a person at
	// the terminal, say. Its answers are reported like queued ones. Only a
	// Conn that implements FallbackConn (SessionConn does) asks it. It is
	// shared by all scripts: with Jobs > 1 it must be safe for concurrent
	// use.
	Fallback answer.Answerer
	// Strict, when set, makes a question that neither the queued answers
	// nor the Fallback answer fail its step instead of being declined; it
	// ends the error message (answer.Who.Strict).
	Strict string
	// NoTasks ends the error of a task command (get_task, cancel_task,
	// wait_task) in a session without the tasks extension (ErrNoTasks):
	// why it has none and the way on, in the caller's terms (a command
	// line's flag); empty, in the Go API's (session.Options.Tasks).
	NoTasks string
	// Samples are model replies (mcp-tester test --sample) for the requests
	// that the replies queued by sample_response do not cover, used in
	// order before Fallback; each script takes them from the first.
	Samples []answer.Sample
	// Record, when set, is called after every call_tool, get_prompt and
	// read_resource that got a result (one that failed is left out, so
	// that what is recorded replays), with what it sent and what came of
	// it: method is "tools/call", "prompts/get" or "resources/read"; name
	// the tool or prompt name or the resource URI; args a tool's arguments
	// (map[string]any), a prompt's (map[string]string) or nil; questions
	// the questions asked, each with the answer given; result the final
	// result. An error fails the step. With Jobs > 1 it is called from
	// several goroutines.
	Record func(method, name string, args any, questions []exchange.Entry, result any) error
	// Status, when set, is told how far the run is whenever a script
	// starts, a step's outcome is known and a script ends: for a progress
	// line. Its calls never overlap, whatever the parallelism.
	Status func(Status)
}

// Status is how far a run of scripts is.
type Status struct {
	// Scripts is the number of scripts of the run, Done how many ended.
	Scripts, Done int
	// Passed and Failed count the steps whose outcome is known so far.
	Passed, Failed int
	// Running names the scripts running, in the order given.
	Running []string
}

// tracker keeps the run's Status and tells RunOptions.Status of it.
type tracker struct {
	mu      sync.Mutex
	f       func(Status)
	st      Status
	running []string // by script index; "" when not running
}

func newTracker(f func(Status), n int) *tracker {
	return &tracker{f: f, st: Status{Scripts: n}, running: make([]string, n)}
}

func (t *tracker) update(change func()) {
	if t == nil || t.f == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	change()
	st := t.st
	st.Running = nil
	for _, name := range t.running {
		if name != "" {
			st.Running = append(st.Running, name)
		}
	}
	t.f(st)
}

func (t *tracker) start(i int, name string) { t.update(func() { t.running[i] = name }) }

func (t *tracker) end(i int) {
	t.update(func() { t.running[i] = ""; t.st.Done++ })
}

func (t *tracker) step(passed bool) {
	t.update(func() {
		if passed {
			t.st.Passed++
		} else {
			t.st.Failed++
		}
	})
}

// Run runs one script. It is RunAll with a single script.
func Run(ctx context.Context, s *Script, opts RunOptions) *Report {
	return RunAll(ctx, []*Script{s}, opts)
}

// RunAll runs scripts, opts.Jobs at a time, each on its own Conn, and
// returns their results in the order given.
func RunAll(ctx context.Context, scripts []*Script, opts RunOptions) *Report {
	start := time.Now()
	if opts.StepTimeout <= 0 {
		opts.StepTimeout = DefaultStepTimeout
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	jobs := min(max(opts.Jobs, 1), max(len(scripts), 1))
	in := &lineReader{}
	if opts.Stdin != nil {
		in.r = bufio.NewReaderSize(opts.Stdin, 4096)
	}
	out := newOrderedWriter(opts.Progress, len(scripts))
	rep := &Report{Scripts: make([]*ScriptResult, len(scripts))}
	status := newTracker(opts.Status, len(scripts))

	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				status.start(i, scripts[i].Name)
				r := &runner{opts: &opts, in: in, out: out.script(i), vars: map[string]string{}, status: status}
				rep.Scripts[i] = r.run(ctx, scripts[i])
				out.finish(i)
				status.end(i)
			}
		}()
	}
	for i := range scripts {
		next <- i
	}
	close(next)
	wg.Wait()
	rep.Duration = time.Since(start)
	rep.Interrupted = errors.Is(ctx.Err(), context.Canceled)
	rep.Terminated = rep.Interrupted && stopsignal.Of(ctx).ExitCode() == ExitTerminated
	if opts.Progress != nil {
		writeTotal(opts.Progress, rep)
	}
	return rep
}

// lineReader hands lines of the shared stdin to input_var, one at a time.
type lineReader struct {
	mu sync.Mutex
	r  *bufio.Reader
}

// maxInputLine bounds a line read by input_var.
const maxInputLine = 64 << 10

// readLine shows prompt on w (when both are set) and reads one line; the
// two happen together, whatever other scripts do.
func (l *lineReader) readLine(prompt string, w io.Writer) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prompt != "" && w != nil {
		fmt.Fprintf(w, "%s ", prompt)
	}
	if l.r == nil {
		return "", errors.New("no input: the runner has no stdin")
	}
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxInputLine {
			return "", fmt.Errorf("input line longer than %d bytes", maxInputLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			break
		}
		if err != nil {
			if err == io.EOF {
				return "", errors.New("no input: stdin ended")
			}
			return "", err
		}
		break
	}
	s := string(line)
	s = trimEOL(s)
	return s, nil
}

func trimEOL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// orderedWriter lets scripts that run in parallel write their text in the
// order of the scripts: the earliest unfinished script writes through, the
// others are buffered until their turn.
type orderedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	next int
	bufs [][]byte
	done []bool
}

func newOrderedWriter(w io.Writer, n int) *orderedWriter {
	return &orderedWriter{w: w, bufs: make([][]byte, n), done: make([]bool, n)}
}

// scriptWriter is the writer of script i.
type scriptWriter struct {
	o *orderedWriter
	i int
}

func (o *orderedWriter) script(i int) io.Writer {
	if o.w == nil {
		return io.Discard
	}
	return scriptWriter{o, i}
}

func (s scriptWriter) Write(p []byte) (int, error) {
	o := s.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if s.i == o.next {
		return o.w.Write(p)
	}
	o.bufs[s.i] = append(o.bufs[s.i], p...)
	return len(p), nil
}

func (o *orderedWriter) finish(i int) {
	if o.w == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done[i] = true
	for o.next < len(o.done) && o.done[o.next] {
		o.next++
		if o.next < len(o.bufs) {
			_, _ = o.w.Write(o.bufs[o.next])
			o.bufs[o.next] = nil
		}
	}
}

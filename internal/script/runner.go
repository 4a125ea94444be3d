package script

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/report/printer"
	"github.com/askback/askback/internal/script/cmdname"
	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/text/runecut"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runner runs one script on one Conn.
type runner struct {
	opts *RunOptions
	in   *lineReader
	out  io.Writer
	conn Conn
	vars map[string]string

	res     *ScriptResult
	script  *Script                 // the script running
	steps   []stepRecord            // the steps that ran, in line order; res.Steps at the end
	full    []*StepResult           // the results the records of steps keep whole
	spare   *StepResult             // a result no record holds, for the next step
	emitted int                     // steps written to out
	pending []pendingReply          // answers queued for the next asking command
	samples []pendingSample         // model replies queued for the next asking command
	last    *last                   // the last command that reached the server
	tools   map[string]*inputSchema // input schemas by tool name, from tools/list
	task    *taskRef                // the task get_task, cancel_task and wait_task act on
	limit   time.Duration           // the time limit of the step running
	notes   []string                // what the step running should say besides its verdict
	held    heldText                // the lines of the steps not yet written (see flush and hold)
	status  *tracker                // how far the run is, told each step's outcome
	parser  parser                  // each step's line is parsed again into its room (see Script.command)
	argv    []string                // the values of a check's arguments, its room reused (see values)
}

// flush writes the lines of the steps that ran since the last write, now.
// The runner flushes before a step that reads stdin, before a step that
// waits on the server when a person may be asked during the wait (see
// beforeWait), and at the end.
func (r *runner) flush() { r.held.flush() }

// heldTextWindow is how long the runner may hold a report line across
// steps that wait on the server when no person is asked (see beforeWait).
const heldTextWindow = 100 * time.Millisecond

// beforeWait makes the lines held so far visible in time for a step that
// waits on the server. When a person may be asked during the wait
// (RunOptions.Fallback), they are written now, so that no question comes
// before the lines of the steps that led to it; so they are with
// RunOptions.Live, for the other output of a call. Otherwise they are written
// at most heldTextWindow later, together with the lines of the steps that
// run meanwhile: a script of a thousand fast calls makes a few writes to
// its output, not a thousand (each write to a pipe wakes its reader; they
// were a twentieth of such a run's CPU), and a slow call still shows the
// lines before it while it runs.
func (r *runner) beforeWait() {
	if r.opts.Fallback != nil || r.opts.Live {
		r.held.flush()
		return
	}
	r.held.hold(heldTextWindow)
}

// heldText is the text of a runner's steps not yet written, and the timer
// that writes it when the runner holds it across a wait (see hold). Its
// lock is the runner's and the timer's: the text is written whole, in
// order, once.
type heldText struct {
	mu    sync.Mutex
	out   io.Writer
	text  []byte      // its room reused
	timer *time.Timer // made at the first hold, reset at the next
	armed bool        // the timer is to write what is held
}

// flush writes what is held, now, and stops the timer. It stops it
// whether or not it is armed: a timer that fired while flush held the
// lock, and was then armed again by hold, is pending while its earlier
// call, run later, has marked it disarmed.
func (h *heldText) flush() {
	h.mu.Lock()
	if h.timer != nil {
		h.timer.Stop()
	}
	h.armed = false
	h.writeLocked()
	h.mu.Unlock()
}

// hold makes sure what is held is written within window: it arms the
// timer, unless it is armed already or nothing is held.
func (h *heldText) hold(window time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.armed || len(h.text) == 0 {
		return
	}
	if h.timer == nil {
		h.timer = time.AfterFunc(window, h.timerFlush)
	} else {
		h.timer.Reset(window)
	}
	h.armed = true
}

// timerFlush is the timer's: it writes what is held. One that fired while
// flush held the lock finds the text written, and writes nothing.
func (h *heldText) timerFlush() {
	h.mu.Lock()
	h.armed = false
	h.writeLocked()
	h.mu.Unlock()
}

func (h *heldText) writeLocked() {
	if len(h.text) > 0 {
		_, _ = h.out.Write(h.text)
		h.text = h.text[:0]
	}
}

// stepRecord is a step that ran, as the runner keeps it until the run
// ends: a passed step with nothing more to say (most of a long script) as
// its index in the script and its duration; any other step whole, in the
// runner's full. A record holds no pointer, so the collector need not look
// into the records of a long run.
type stepRecord struct {
	took  time.Duration
	index int32 // the step's index in the script
	full  int32 // 1 + the result's index in runner.full; 0: a passed step
}

// pendingReply is an answer queued by an elicit_response step whose
// outcome is known only once the next asking command has run.
type pendingReply struct {
	answer answer.Spec
	step   *StepResult
}

// last is what the last command that reached the server produced.
type last struct {
	cmd         *cmd // what the command was
	line        int
	outcome     *Outcome
	err         error
	raw         string // the result's JSON, see rawJSON
	decoded     any    // the result's JSON decoded, see decodedJSON
	rawDone     bool
	decodedDone bool
	orderedDone bool
	orderedVal  expect.Value // the result's JSON in order, see ordered
	orderedErr  error
	// caught is the error's message when expect_error expected the
	// failure: the checks then read it as the last response.
	caught string
}

// failure is a failed step's explanation.
type failure struct {
	msg, expected, actual string
	diff                  string // a unified diff of what was expected and what came
	response              bool   // attach an excerpt of the last response
	// fix is how `mcp-tester test --update` rewrites the check so that it
	// passes; nil: it cannot.
	fix *fix
	// said is the failure in the earlier mcp-tester's words ("assertion
	// failed: …"), which becomes the last response when expect_error
	// expected it; empty: msg.
	said string
	// interrupted: the run's context ended while the step waited.
	interrupted bool
}

func fail(format string, args ...any) *failure { return &failure{msg: fmt.Sprintf(format, args...)} }

// scriptError is a mistake in the script found while running it (an
// unknown argument, a variable holding invalid JSON): expect_error does not
// hide it.
type scriptError struct{ err error }

func (e *scriptError) Error() string { return e.err.Error() }

func (r *runner) run(ctx context.Context, s *Script) *ScriptResult {
	start := time.Now()
	r.res = &ScriptResult{Name: s.Name}
	r.script = s
	r.steps = make([]stepRecord, 0, s.NumSteps()) // one for each step that runs
	r.held.out = r.out
	fmt.Fprintf(r.out, "%s\n", termsafe.Line(s.Name))
	if errors.Is(ctx.Err(), context.Canceled) {
		// The run was interrupted before this script's turn came.
		r.res.Err = fmt.Errorf("not run: %w", ErrInterrupted)
		writeScriptSummary(r.out, r.res)
		return r.res
	}
	if s.NumSteps() == 0 {
		// Nothing checked is a failure of this script (as in audit), and
		// the others run: no server is started for it.
		st := &StepResult{Line: 1, Col: 1, Text: "(no step)", Message: NothingChecked}
		r.res.Steps = []*StepResult{st}
		_, _ = r.out.Write(appendStep(nil, st))
		r.res.Duration = time.Since(start)
		writeScriptSummary(r.out, r.res)
		return r.res
	}
	conn, err := r.connect(ctx, s)
	if err != nil {
		r.res.Err = fmt.Errorf("could not connect: %w", err)
		if errors.Is(ctx.Err(), context.Canceled) {
			r.res.Err = fmt.Errorf("could not connect: %w", ErrInterrupted)
		}
		r.res.Duration = time.Since(start)
		writeScriptSummary(r.out, r.res)
		return r.res
	}
	r.conn = conn
	defer conn.Close()
	if fc, ok := conn.(FallbackConn); ok {
		f := Fallback{Person: r.opts.Fallback, Strict: r.opts.Strict}
		if len(r.opts.Samples) > 0 {
			// Each script takes the run's replies from the first.
			f.Samples = answer.NewSamples(r.opts.Samples...)
		}
		fc.SetFallback(f)
	}
	for i := range s.NumSteps() {
		if ctx.Err() != nil {
			break
		}
		r.step(ctx, s, i)
		r.emit()
	}
	for _, p := range r.pending {
		p.step.Passed = false
		p.step.Message = "the answer was never used: no " + commandsWhere(asks, "or") + " follows it"
	}
	r.pending = nil
	for _, p := range r.samples {
		p.step.Passed = false
		p.step.Message = "the reply was never used: no " + commandsWhere(asks, "or") + " follows it"
	}
	r.samples = nil
	r.emit()
	r.flush()
	r.res.Steps = r.results()
	if err := conn.Close(); err != nil && r.res.Err == nil {
		// What the server sent that only its end showed (a second
		// answer to a request) fails the script.
		r.res.Err = err
	}
	r.res.Duration = time.Since(start)
	writeScriptSummary(r.out, r.res)
	return r.res
}

func (r *runner) connect(ctx context.Context, s *Script) (Conn, error) {
	if r.opts.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.ConnectTimeout)
		defer cancel()
	}
	if r.opts.ConnectScript != nil {
		return r.opts.ConnectScript(ctx, s)
	}
	if r.opts.Connect == nil {
		return nil, errors.New("no server: RunOptions.Connect is nil")
	}
	return r.opts.Connect(ctx)
}

// emit writes the steps whose outcome is known, in line order; an
// elicit_response step waits for the command that uses its answer.
func (r *runner) emit() {
	r.held.mu.Lock() // the timer may be writing what was held before
	defer r.held.mu.Unlock()
	for r.emitted < len(r.steps) {
		rec := r.steps[r.emitted]
		passed := true
		if rec.full > 0 {
			st := r.full[rec.full-1]
			if r.isPending(st) {
				return
			}
			if r.out != io.Discard {
				r.held.text = appendStep(r.held.text, st)
			}
			passed = st.Passed
		} else if r.out != io.Discard {
			st := r.script.Step(int(rec.index))
			r.held.text = appendStepLine(r.held.text, true, st.Text, st.Line)
		}
		r.status.step(passed)
		r.emitted++
	}
}

// keep records the result of step i of the script. A passed step with
// nothing more to say than its line is kept as its index and duration,
// and res is free for the next step.
func (r *runner) keep(i int, res *StepResult) {
	if res.Passed && res.Output == "" && res.Message == "" && res.Expected == "" && res.Actual == "" &&
		res.Response == "" && res.Diff == "" && len(res.Questions) == 0 && res.fix == nil && !r.isPending(res) {
		r.steps = append(r.steps, stepRecord{index: int32(i), took: res.Duration})
		r.spare = res
		return
	}
	r.full = append(r.full, res)
	r.steps = append(r.steps, stepRecord{index: int32(i), full: int32(len(r.full))})
}

// results are the steps that ran, each whole: ScriptResult.Steps. The
// passed ones kept as an index share one allocation.
func (r *runner) results() []*StepResult {
	if len(r.steps) == 0 {
		return nil
	}
	passed := make([]StepResult, len(r.steps)-len(r.full))
	steps := make([]*StepResult, len(r.steps))
	for i, rec := range r.steps {
		if rec.full > 0 {
			steps[i] = r.full[rec.full-1]
			continue
		}
		st := r.script.Step(int(rec.index))
		p := &passed[0]
		passed = passed[1:]
		*p = StepResult{Line: st.Line, Col: st.Col, Command: st.Command, Text: st.Text, Passed: true, Duration: rec.took}
		steps[i] = p
	}
	return steps
}

func (r *runner) isPending(st *StepResult) bool {
	for _, p := range r.pending {
		if p.step == st {
			return true
		}
	}
	for _, p := range r.samples {
		if p.step == st {
			return true
		}
	}
	return false
}

// timeoutOf is the time bound of a step: the first timeout command in its
// wrapper chain, or the default.
func (r *runner) timeoutOf(c *command) time.Duration {
	for ; c != nil; c = c.sub {
		if c.limit > 0 {
			return c.limit
		}
	}
	return r.opts.StepTimeout
}

// step runs step i of s and keeps its result.
func (r *runner) step(ctx context.Context, s *Script, i int) {
	st := s.Step(i)
	res := r.spare
	if res == nil {
		res = new(StepResult)
	}
	r.spare = nil
	*res = StepResult{Line: st.Line, Col: st.Col, Command: st.Command, Text: st.Text}
	r.runStep(ctx, s, st, res)
	r.keep(i, res)
}

// runStep runs st, its result in res.
func (r *runner) runStep(ctx context.Context, s *Script, st Step, res *StepResult) {
	start := time.Now()
	c, err := s.command(&r.parser, st)
	if err != nil {
		res.Message = err.Error()
		return
	}
	r.limit = r.timeoutOf(c)
	if c.def.readsStdin {
		r.flush()
	} else if c.def.waitsOnServer() {
		r.beforeWait()
	}
	if c.def.waitsOnServer() {
		// Only a step that waits on the server needs its time limit: a
		// check or an echo does not wait, and a timer per step is work a
		// loop of calls does not do.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.limit)
		defer cancel()
	}
	f := r.exec(ctx, c, res)
	res.Duration = time.Since(start)
	if f == nil {
		res.Passed = true // an elicit_response step is settled later
		return
	}
	res.Passed = false
	res.Message, res.Expected, res.Actual, res.Diff, res.fix = f.msg, f.expected, f.actual, f.diff, f.fix
	res.Interrupted = f.interrupted
	if f.response && r.last != nil {
		res.Response = r.last.excerpt()
	}
}

// exec runs one command and explains a failure.
func (r *runner) exec(ctx context.Context, c *command, res *StepResult) *failure {
	return c.def.run(r, ctx, c, res)
}

// asks reports whether the server may ask during c: the commands the
// answers of elicit_response go to.
func asks(c *cmd) bool { return c.asks }

// reachesServer reports whether c is sent to the server: the commands
// the checks read.
func reachesServer(c *cmd) bool { return c.send != nil }

// queueAnswer runs elicit_response: the answer waits for the next asking
// command, which settles the step.
func queueAnswer(r *runner, _ context.Context, c *command, res *StepResult) *failure {
	a, err := r.answerOf(c)
	if err != nil {
		return fail("%v", err)
	}
	r.pending = append(r.pending, pendingReply{answer: a, step: res})
	return nil
}

// answerOf builds the answer of an elicit_response step.
func (r *runner) answerOf(c *command) (answer.Spec, error) {
	a := answer.Spec{Key: c.answer.key, Action: c.answer.action, Content: c.answer.content, Origin: c.answer.origin, Exact: c.answer.exact}
	if c.answer.tmpl != nil {
		s, err := c.answer.tmpl.value(r.vars)
		if err != nil {
			return a, err
		}
		m, err := parseContent(s)
		if err != nil {
			return a, err
		}
		a.Content = m
	}
	return a, nil
}

// runRemote runs a command that reaches the server, as a step of its own.
func runRemote(r *runner, ctx context.Context, c *command, res *StepResult) *failure {
	err := r.act(ctx, c, res)
	if se, ok := errors.AsType[*scriptError](err); ok {
		return fail("%v", se)
	}
	notes := r.takeNotes()
	if tr, ok := r.last.outcome.Result.(*mcp.CallToolResult); ok && tr.IsError && err == nil {
		notes = append([]string{"the result has isError: true"}, notes...)
	}
	if n := r.last.taskNote(); n != "" {
		notes = append(notes, n)
	}
	if r.opts.Verbose {
		notes = append(notes, r.last.describe())
	}
	if len(notes) > 0 {
		res.Output = joinNotes(notes)
	}
	if err != nil {
		if f := interruptedStep(ctx, c); f != nil {
			return f
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return &failure{msg: fmt.Sprintf("%s failed: timed out after %s (the step's time limit): %v", c.def.name, r.limit, err)}
		}
		return &failure{msg: fmt.Sprintf("%s failed: %v", c.def.name, err)}
	}
	return nil
}

// expectError runs expect_error: the wrapped command must fail.
func expectError(r *runner, ctx context.Context, c *command, res *StepResult) *failure {
	if inner := innermost(c.sub); inner.def.assertion {
		f := r.exec(ctx, inner, res)
		if f == nil {
			return &failure{msg: fmt.Sprintf("expected %s to fail, but it passed (expected error but command succeeded)", inner.def.name)}
		}
		said := f.said
		if said == "" {
			said = "assertion failed: " + f.msg
		}
		said = fmt.Sprintf("line %d: %s", c.line, said)
		r.last = &last{cmd: inner.def, line: c.line, outcome: &Outcome{}, err: errors.New(said), caught: said}
		res.Output = "failed as expected: " + said
		return nil
	}
	err := r.act(ctx, c.sub, res)
	if se, ok := errors.AsType[*scriptError](err); ok {
		return fail("%v", se)
	}
	if session.OwnMistake(err) {
		// The script's answer does not fit, or a question has none
		// (--strict): no error of the server's, which is what is expected.
		return fail("%s failed: %v; expect_error expects an error of the server's, not the script's own", innermost(c.sub).def.name, err)
	}
	if err != nil {
		if f := interruptedStep(ctx, c.sub); f != nil {
			return f // no failure the script expected: the run's end
		}
		said := errorSaid(err, r.limit)
		res.Output = joinNotes(append(r.takeNotes(), "failed as expected: "+said))
		r.last.caught = said
		r.last.rawDone, r.last.decodedDone, r.last.orderedDone = false, false, false
		return nil
	}
	if tr, ok := r.last.outcome.Result.(*mcp.CallToolResult); ok && tr.IsError {
		res.Output = joinNotes(append(r.takeNotes(), "failed as expected: the result has isError: true"))
		return nil
	}
	return &failure{msg: "expected the command to fail, but it succeeded", expected: "an error", actual: "a result", response: true}
}

// interruptedStep is the failure of a step that waited on the server when
// the run's context ended (Ctrl-C), nil when it did not end: the step's
// own limit ends its context with DeadlineExceeded, only the run's with
// Canceled. What the command then failed with (the connection cut, "the
// server's answer could not be read") is the interrupt's doing, not the
// server's.
func interruptedStep(ctx context.Context, c *command) *failure {
	if !errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return &failure{msg: fmt.Sprintf("%s: %v before the server answered", innermost(c).def.name, ErrInterrupted), interrupted: true}
}

// takeNotes returns and forgets the notes of the step running.
func (r *runner) takeNotes() []string {
	n := r.notes
	r.notes = nil
	return n
}

// innermost is the command inside the timeout commands that wrap c.
func innermost(c *command) *command {
	for c.def.wraps != nil && c.sub != nil && c.def.name == cmdname.Timeout {
		c = c.sub
	}
	return c
}

// errorSaid is the message of a failed command as the checks read it after
// expect_error: a JSON-RPC error as "RPC error (CODE): MESSAGE", a time
// limit that ran out with the limit and "context deadline exceeded", as
// the earlier mcp-tester's scripts expect.
func errorSaid(err error, limit time.Duration) string {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		return fmt.Sprintf("RPC error (%d): %s", we.Code, we.Message)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timed out after %s: %v", limit, err)
	}
	return err.Error()
}

// runWrapped runs timeout: the wrapped command, under the time limit the
// step took from it (see timeoutOf).
func runWrapped(r *runner, ctx context.Context, c *command, res *StepResult) *failure {
	return r.exec(ctx, c.sub, res)
}

// noTasksHint ends the error of a task command in a session without the
// tasks extension when RunOptions.NoTasks does not.
const noTasksHint = "(session.Options.Tasks was false); set session.Options.Tasks to drive tasks"

// act sends a command that reaches the server, records it as the last
// command, and settles the answers queued for it. The error is a
// *scriptError when the command could not be sent as written.
func (r *runner) act(ctx context.Context, c *command, res *StepResult) error {
	if c.def.send == nil { // expect_error timeout MS COMMAND…
		return r.act(ctx, c.sub, res)
	}
	var answers []answer.Spec
	var samples *answer.Samples
	if c.def.asks {
		answers = r.takeAnswers()
		samples = r.handSamples()
	}
	out, err := c.def.send(r, ctx, c, answers)
	if errors.Is(err, ErrNoTasks) {
		err = fmt.Errorf("%w %s", err, cmp.Or(r.opts.NoTasks, noTasksHint))
	}
	if c.def.asks {
		r.settleSamples(c, samples)
	}
	if _, ok := errors.AsType[*scriptError](err); ok && !c.def.asks {
		return err // nothing was sent and nothing was asked: the last command stays
	}
	if c.def.asks {
		r.settle(c, answers, out, err, interruptedStep(ctx, c))
	}
	if errors.Is(err, ErrNoTasks) {
		err = &scriptError{err}
	}
	r.last = newLast(r.last, c.def, c.line, out, err)
	if out != nil && len(out.Questions) > 0 {
		res.Questions = append(res.Questions, out.Questions...)
	}
	r.remember(c, out)
	return err
}

func (r *runner) takeAnswers() []answer.Spec {
	answers := make([]answer.Spec, len(r.pending))
	for i, p := range r.pending {
		answers[i] = p.answer
	}
	return answers
}

// toolCall is the tool name and arguments of call_tool and start_tool.
func (r *runner) toolCall(ctx context.Context, c *command) (string, map[string]any, error) {
	name, err := c.args[0].value(r.vars)
	if err != nil {
		return "", nil, &scriptError{err}
	}
	args, err := r.toolArgs(ctx, name, c.args[1:])
	if err != nil && c.expected && errors.Is(err, errNotListed) {
		// expect_error call_tool NO_SUCH_TOOL 1 2: what is expected is the
		// server's refusal, as the earlier mcp-tester sent it (without the
		// values it could not place).
		r.notes = append(r.notes, fmt.Sprintf("tool %s is not in tools/list: sent without its positional values", name))
		args, err = namedOnly(c.args[1:], r.vars)
	}
	if err != nil {
		return "", nil, &scriptError{err}
	}
	return name, args, nil
}

func sendCallTool(r *runner, ctx context.Context, c *command, answers []answer.Spec) (*Outcome, error) {
	name, args, err := r.toolCall(ctx, c)
	if err != nil {
		return nil, err
	}
	out, err := r.conn.CallTool(ctx, name, args, answers)
	return out, r.record("tools/call", name, args, out, err)
}

func sendStartTool(r *runner, ctx context.Context, c *command, answers []answer.Spec) (*Outcome, error) {
	name, args, err := r.toolCall(ctx, c)
	if err != nil {
		return nil, err
	}
	tc, err := r.taskConn(c)
	if err != nil {
		return nil, err
	}
	return tc.StartTool(ctx, name, args, answers)
}

func sendGetPrompt(r *runner, ctx context.Context, c *command, answers []answer.Spec) (*Outcome, error) {
	name, err := c.args[0].value(r.vars)
	if err != nil {
		return nil, &scriptError{err}
	}
	args := map[string]string{}
	for _, t := range c.args[1:] {
		v, err := t.value(r.vars)
		if err != nil {
			return nil, &scriptError{err}
		}
		args[t.key] = v
	}
	out, err := r.conn.GetPrompt(ctx, name, args, answers)
	return out, r.record("prompts/get", name, args, out, err)
}

func sendReadResource(r *runner, ctx context.Context, c *command, answers []answer.Spec) (*Outcome, error) {
	uri, err := c.args[0].value(r.vars)
	if err != nil {
		return nil, &scriptError{err}
	}
	out, err := r.conn.ReadResource(ctx, uri, answers)
	return out, r.record("resources/read", uri, nil, out, err)
}

// sendPing pings; ping counts as a command with an empty result.
func sendPing(r *runner, ctx context.Context, _ *command, _ []answer.Spec) (*Outcome, error) {
	return &Outcome{Raw: json.RawMessage("{}")}, r.conn.Ping(ctx)
}

// record hands a command that got a result to RunOptions.Record and
// returns err, or the recording's error as a mistake of the run.
func (r *runner) record(method, name string, args any, out *Outcome, err error) error {
	if r.opts.Record == nil || out == nil || err != nil {
		return err
	}
	if rerr := r.opts.Record(method, name, args, out.Questions, out.Result); rerr != nil {
		return &scriptError{fmt.Errorf("record %s %s: %w", method, name, rerr)}
	}
	return err
}

// settle decides the elicit_response steps whose answers were handed to c:
// an answer the command did not use (the Conn gives it back, with the
// Origin it was queued with) fails its step, unless the run was
// interrupted during c (interrupted, the command's own failure): then
// nothing tells what the server would have asked, and the step is
// interrupted, as c is, not failed.
func (r *runner) settle(c *command, answers []answer.Spec, out *Outcome, err error, interrupted *failure) {
	pending := r.pending
	r.pending = nil
	if len(pending) == 0 {
		return
	}
	unused := answers
	if out != nil {
		unused = out.Unused
	}
	notUsed := make(map[answer.Origin]bool, len(unused))
	for _, u := range unused {
		notUsed[u.Origin] = true
	}
	for _, p := range pending {
		if !notUsed[p.answer.Origin] {
			p.step.Passed = true
			continue
		}
		p.step.Passed = false
		if interrupted != nil {
			p.step.Interrupted = true
			p.step.Message = fmt.Sprintf("not used: the run was %v during %s (line %d)", ErrInterrupted, c.def.name, c.line)
			continue
		}
		msg, actual := unusedAnswer(c, p.answer, out, err)
		p.step.Message = msg
		if actual != "" {
			p.step.Actual = actual
		}
	}
}

// unusedAnswer says why the answer a, handed to c, was never used: what c
// met (out, err), and what it asked. actual is "" unless the questions'
// keys tell.
func unusedAnswer(c *command, a answer.Spec, out *Outcome, err error) (message, actual string) {
	where := fmt.Sprintf("%s (line %d)", c.def.name, c.line)
	switch {
	case out == nil && err != nil:
		return fmt.Sprintf("the answer was never used: %s failed before any question: %v", where, err), ""
	case out != nil && out.Task != nil && c.def.callsTool && !c.def.waits && len(out.Questions) == 0:
		return fmt.Sprintf("the answer was never used: %s started task %s, whose questions come later; write the answer after %s, for wait_task", where, out.Task.ID, c.def.name), ""
	case out == nil || len(out.Questions) == 0:
		return fmt.Sprintf("the answer was never used: the server asked nothing during %s", where), ""
	case a.Key != "" && noKeysNote(a, out.Questions) != "":
		return fmt.Sprintf("the answer was never used: no question of %s had the key %q: %s", where, a.Key, noKeysNote(a, out.Questions)), ""
	case a.Key != "":
		return fmt.Sprintf("the answer was never used: no question of %s had the key %q", where, a.Key), questionKeys(out.Questions)
	default:
		return fmt.Sprintf("the answer was never used: the server asked only %d question(s) during %s", len(out.Questions), where), ""
	}
}

// noKeysNote explains a keyed answer that met only questions without keys.
func noKeysNote(a answer.Spec, qs []exchange.Entry) string {
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = q.Key
	}
	return answer.NoKeysNote(a, keys)
}

func questionKeys(qs []exchange.Entry) string {
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = strconv.Quote(q.Key)
	}
	return "questions asked with keys " + strings.Join(keys, ", ")
}

// newLast makes the last command in l, the room of the one before (which
// nothing reads once a command has replaced it), or a new one when l is nil.
func newLast(l *last, def *cmd, line int, out *Outcome, err error) *last {
	if l == nil {
		l = new(last)
	}
	*l = last{cmd: def, line: line, outcome: out, err: err}
	if out == nil {
		l.outcome = &Outcome{}
	}
	return l
}

// rawJSON is the result's JSON, encoded on first use. After an expected
// failure it is {"code": CODE, "error": MESSAGE}.
func (l *last) rawJSON() string {
	if !l.rawDone {
		l.rawDone = true
		if l.caught != "" {
			code, _ := errorCode(l.err)
			b, _ := json.Marshal(map[string]any{"code": code, "error": l.caught})
			l.raw = string(b)
			return l.raw
		}
		raw := l.outcome.Raw
		if len(raw) == 0 && l.outcome.Result != nil {
			raw, _ = json.Marshal(l.outcome.Result)
		}
		l.raw = string(raw)
	}
	return l.raw
}

// decodedJSON is the result's JSON decoded (numbers as json.Number), on
// first use.
func (l *last) decodedJSON() any {
	if !l.decodedDone {
		l.decodedDone = true
		if raw := l.rawJSON(); raw != "" {
			dec := json.NewDecoder(strings.NewReader(raw))
			dec.UseNumber()
			_ = dec.Decode(&l.decoded)
		}
	}
	return l.decoded
}

// ordered is the result's JSON decoded in order (expect), on first use.
func (l *last) ordered() (expect.Value, error) {
	if !l.orderedDone {
		l.orderedDone = true
		l.orderedVal, l.orderedErr = expect.Decode([]byte(l.rawJSON()))
	}
	return l.orderedVal, l.orderedErr
}

// maxExcerpt bounds the excerpt of a response shown with a failure.
const maxExcerpt = 400

func (l *last) excerpt() string {
	s := l.rawJSON()
	if l.err != nil {
		s = "error: " + l.err.Error()
	}
	return truncate(s, maxExcerpt)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return runecut.Prefix(s, n) + "…"
}

// text is the text of the last result: its text contents joined by
// newlines, or its JSON when it has none.
func (l *last) text() string {
	if l.caught != "" {
		return l.caught
	}
	var parts []string
	switch res := l.outcome.Result.(type) {
	case *mcp.CallToolResult:
		if len(res.Content) == 1 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				return t.Text // the common answer: one text, as it is
			}
		}
		parts = printer.Texts(res.Content)
	case *mcp.GetPromptResult:
		for _, m := range res.Messages {
			if m != nil {
				parts = append(parts, printer.Texts([]mcp.Content{m.Content})...)
			}
		}
	case *mcp.ReadResourceResult:
		for _, c := range res.Contents {
			if c != nil && c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
	}
	if len(parts) == 0 {
		return l.rawJSON()
	}
	return strings.Join(parts, "\n")
}

// responses are the forms of the last response that assert_contains and
// assert_equals TEXT compare with, as the earlier mcp-tester did: the text,
// the text contents run together, the JSON, and the JSON indented. They
// come one at a time, each made only when the one before did not do: a
// check that the text settles never encodes the JSON.
func (l *last) responses(yield func(string) bool) {
	if !yield(l.text()) {
		return
	}
	if tr, ok := l.outcome.Result.(*mcp.CallToolResult); ok && l.caught == "" && len(tr.Content) > 1 {
		// With one content or none, the text contents run together are
		// the text itself.
		if !yield(strings.Join(printer.Texts(tr.Content), "")) {
			return
		}
	}
	raw := l.rawJSON()
	if !yield(raw) {
		return
	}
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(raw), "", "  ") == nil {
		yield(buf.String())
	}
}

// describe lists the questions of the last command with their answers.
func (l *last) describe() string {
	var b strings.Builder
	for _, q := range l.outcome.Questions {
		fmt.Fprintf(&b, "[ELICIT] %s\n", describeQuestion(q))
	}
	return strings.TrimRight(b.String(), "\n")
}

func describeQuestion(q exchange.Entry) string {
	var b strings.Builder
	if q.Key != "" {
		fmt.Fprintf(&b, "%s: ", termsafe.Line(q.Key))
	}
	b.WriteString(termsafe.Line(q.Message()))
	if u := q.URL(); u != "" {
		fmt.Fprintf(&b, " <%s>", termsafe.Line(u))
	}
	if q.Answer != nil {
		fmt.Fprintf(&b, " → %s", termsafe.Line(q.Answer.Action))
		if q.Answer.Content != nil {
			c, _ := json.Marshal(q.Answer.Content)
			fmt.Fprintf(&b, " %s", termsafe.JSON(c))
		}
	}
	return b.String()
}

// errorCode extracts a JSON-RPC error code.
func errorCode(err error) (int64, bool) {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code, true
	}
	return 0, false
}

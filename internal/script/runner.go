package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askback/askback/internal/exchange"
	"github.com/askback/askback/internal/printer"
	"github.com/askback/askback/internal/termsafe"
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
	emitted int                     // steps of res written to out
	pending []pendingReply          // answers queued for the next asking command
	last    *last                   // the last command that reached the server
	tools   map[string]*inputSchema // input schemas by tool name, from tools/list
	task    *taskRef                // the task get_task, cancel_task and wait_task act on
}

// pendingReply is an answer queued by an elicit_response step whose
// outcome is known only once the next asking command has run.
type pendingReply struct {
	answer Answer
	step   *StepResult
}

// last is what the last asking command (or ping) produced.
type last struct {
	name        string
	line        int
	outcome     *Outcome
	err         error
	raw         string // the result's JSON, see rawJSON
	decoded     any    // the result's JSON decoded, see decodedJSON
	rawDone     bool
	decodedDone bool
}

// failure is a failed step's explanation.
type failure struct {
	msg, expected, actual string
	response              bool // attach an excerpt of the last response
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
	fmt.Fprintf(r.out, "%s\n", termsafe.Line(s.Name))
	conn, err := r.connect(ctx)
	if err != nil {
		r.res.Err = fmt.Errorf("could not connect: %w", err)
		r.res.Duration = time.Since(start)
		writeScriptSummary(r.out, r.res)
		return r.res
	}
	r.conn = conn
	defer conn.Close()
	if fc, ok := conn.(FallbackConn); ok && r.opts.Fallback != nil {
		fc.SetFallback(r.opts.Fallback)
	}
	for _, st := range s.Steps {
		if ctx.Err() != nil {
			break
		}
		r.step(ctx, st)
		r.emit()
	}
	for _, p := range r.pending {
		p.step.Passed = false
		p.step.Message = "the answer was never used: no call_tool, get_prompt or read_resource follows it, nor a start_tool or wait_task"
	}
	r.pending = nil
	r.emit()
	r.res.Duration = time.Since(start)
	writeScriptSummary(r.out, r.res)
	return r.res
}

func (r *runner) connect(ctx context.Context) (Conn, error) {
	if r.opts.Connect == nil {
		return nil, errors.New("no server: RunOptions.Connect is nil")
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.ConnectTimeout)
	defer cancel()
	return r.opts.Connect(ctx)
}

// emit writes the steps whose outcome is known, in line order; an
// elicit_response step waits for the command that uses its answer.
func (r *runner) emit() {
	for r.emitted < len(r.res.Steps) {
		st := r.res.Steps[r.emitted]
		if r.isPending(st) {
			return
		}
		if r.out != io.Discard {
			writeStep(r.out, st)
		}
		r.emitted++
	}
}

func (r *runner) isPending(st *StepResult) bool {
	for _, p := range r.pending {
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
		if c.name == "timeout" {
			return time.Duration(c.n) * time.Millisecond
		}
	}
	return r.opts.StepTimeout
}

func (r *runner) step(ctx context.Context, st *Step) {
	res := &StepResult{Line: st.Line, Col: st.Col, Command: st.Command, Text: st.Text}
	r.res.Steps = append(r.res.Steps, res)
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.timeoutOf(st.cmd))
	defer cancel()
	f := r.exec(ctx, st.cmd, res)
	res.Duration = time.Since(start)
	if f == nil {
		res.Passed = true // an elicit_response step is settled later
		return
	}
	res.Passed = false
	res.Message, res.Expected, res.Actual = f.msg, f.expected, f.actual
	if f.response && r.last != nil {
		res.Response = r.last.excerpt()
	}
}

// exec runs one command and explains a failure.
func (r *runner) exec(ctx context.Context, c *command, res *StepResult) *failure {
	switch c.name {
	case "elicit_response":
		a, err := r.answerOf(c)
		if err != nil {
			return fail("%v", err)
		}
		a.Line = res.Line
		r.pending = append(r.pending, pendingReply{answer: a, step: res})
		return nil
	case "call_tool", "get_prompt", "read_resource", "ping", "start_tool", "get_task", "cancel_task", "wait_task":
		err := r.act(ctx, c, res)
		var se *scriptError
		if errors.As(err, &se) {
			return fail("%v", se)
		}
		var notes []string
		if tr, ok := r.last.outcome.Result.(*mcp.CallToolResult); ok && tr.IsError && err == nil {
			notes = append(notes, "the result has isError: true")
		}
		notes = append(notes, r.last.taskNote())
		if r.opts.Verbose {
			notes = append(notes, r.last.describe())
		}
		res.Output = joinNotes(notes)
		if err != nil {
			return &failure{msg: fmt.Sprintf("%s failed: %v", c.name, err)}
		}
		return nil
	case "expect_error":
		err := r.act(ctx, c.sub, res)
		var se *scriptError
		if errors.As(err, &se) {
			return fail("%v", se)
		}
		if err != nil {
			res.Output = "failed as expected: " + err.Error()
			return nil
		}
		if tr, ok := r.last.outcome.Result.(*mcp.CallToolResult); ok && tr.IsError {
			res.Output = "failed as expected: the result has isError: true"
			return nil
		}
		return &failure{msg: "expected the command to fail, but it succeeded", expected: "an error", actual: "a result", response: true}
	case "timeout":
		return r.exec(ctx, c.sub, res)
	}
	return r.check(c, res)
}

// answerOf builds the answer of an elicit_response step.
func (r *runner) answerOf(c *command) (Answer, error) {
	a := Answer{Key: c.answer.key, Action: c.answer.action, Content: c.answer.content}
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

// act runs an asking command or ping, records it as the last command, and
// settles the queued answers. The error is a *scriptError when the command
// could not be sent as written.
func (r *runner) act(ctx context.Context, c *command, res *StepResult) error {
	if c.name == "timeout" { // expect_error timeout MS COMMAND…
		return r.act(ctx, c.sub, res)
	}
	var out *Outcome
	var err error
	switch c.name {
	case "ping":
		err = r.conn.Ping(ctx)
		out = &Outcome{Raw: json.RawMessage("{}")}
	case "get_task", "cancel_task":
		out, err = r.taskOp(ctx, c)
		var se *scriptError
		if errors.As(err, &se) {
			return err
		}
	default:
		answers := r.takeAnswers()
		out, err = r.send(ctx, c, answers)
		r.settle(c, res.Line, answers, out, err)
	}
	if errors.Is(err, ErrNoTasks) {
		err = &scriptError{err}
	}
	r.last = newLast(c.name, res.Line, out, err)
	r.remember(c.name, res.Line, out)
	return err
}

func (r *runner) takeAnswers() []Answer {
	answers := make([]Answer, len(r.pending))
	for i, p := range r.pending {
		answers[i] = p.answer
	}
	return answers
}

// send sends an asking command with its arguments.
func (r *runner) send(ctx context.Context, c *command, answers []Answer) (*Outcome, error) {
	var name string
	var err error
	if c.name == "wait_task" {
		name, err = r.taskID(c)
	} else {
		name, err = c.args[0].value(r.vars)
	}
	if err != nil {
		return nil, &scriptError{err}
	}
	switch c.name {
	case "call_tool", "start_tool":
		args, err := r.toolArgs(ctx, name, c.args[1:])
		if err != nil {
			return nil, &scriptError{err}
		}
		if c.name == "call_tool" {
			out, err := r.conn.CallTool(ctx, name, args, answers)
			return out, r.record("tools/call", name, args, out, err)
		}
		tc, err := r.taskConn(c)
		if err != nil {
			return nil, err
		}
		return tc.StartTool(ctx, name, args, answers)
	case "wait_task":
		tc, err := r.taskConn(c)
		if err != nil {
			return nil, err
		}
		return tc.WaitTask(ctx, name, answers)
	case "get_prompt":
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
	default:
		out, err := r.conn.ReadResource(ctx, name, answers)
		return out, r.record("resources/read", name, nil, out, err)
	}
}

// record hands a command that got a result to RunOptions.Record and
// returns err, or the recording's error as a mistake of the run.
func (r *runner) record(method, name string, args any, out *Outcome, err error) error {
	if r.opts.Record == nil || out == nil || err != nil {
		return err
	}
	qs := make([]exchange.Entry, len(out.Questions))
	for i, q := range out.Questions {
		qs[i] = exchange.Entry{Method: method, Name: name, Key: q.Key, Round: q.Round, Answer: q.Answer,
			Params: &mcp.ElicitParams{Mode: q.Mode, Message: q.Message, URL: q.URL, RequestedSchema: q.Schema}}
	}
	if rerr := r.opts.Record(method, name, args, qs, out.Result); rerr != nil {
		return &scriptError{fmt.Errorf("record %s %s: %w", method, name, rerr)}
	}
	return err
}

// settle decides the elicit_response steps whose answers were handed to a
// command: an answer the command did not use fails its step.
func (r *runner) settle(c *command, line int, answers []Answer, out *Outcome, err error) {
	pending := r.pending
	r.pending = nil
	if len(pending) == 0 {
		return
	}
	var unused []Answer
	if out != nil {
		unused = out.Unused
	} else {
		unused = answers
	}
	taken := make([]bool, len(pending))
	for _, u := range unused {
		for i, p := range pending {
			if !taken[i] && sameAnswer(u, p.answer) {
				taken[i] = true
				break
			}
		}
	}
	where := fmt.Sprintf("%s (line %d)", c.name, line)
	for i, p := range pending {
		if !taken[i] {
			p.step.Passed = true
			continue
		}
		p.step.Passed = false
		switch {
		case out == nil && err != nil:
			p.step.Message = fmt.Sprintf("the answer was never used: %s failed before any question: %v", where, err)
		case out != nil && out.Task != nil && c.name == "start_tool" && len(out.Questions) == 0:
			p.step.Message = fmt.Sprintf("the answer was never used: %s started task %s, whose questions come later; write the answer after start_tool, for wait_task", where, out.Task.ID)
		case out == nil || len(out.Questions) == 0:
			p.step.Message = fmt.Sprintf("the answer was never used: the server asked nothing during %s", where)
		case p.answer.Key != "":
			p.step.Message = fmt.Sprintf("the answer was never used: no question of %s had the key %q", where, p.answer.Key)
			p.step.Actual = questionKeys(out.Questions)
		default:
			p.step.Message = fmt.Sprintf("the answer was never used: the server asked only %d question(s) during %s", len(out.Questions), where)
		}
	}
}

func sameAnswer(a, b Answer) bool {
	if a.Line != 0 && b.Line != 0 {
		return a.Line == b.Line
	}
	if a.Key != b.Key || a.Action != b.Action || len(a.Content) != len(b.Content) {
		return false
	}
	x, _ := json.Marshal(a.Content)
	y, _ := json.Marshal(b.Content)
	return bytes.Equal(x, y)
}

func questionKeys(qs []Question) string {
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = strconv.Quote(q.Key)
	}
	return "questions asked with keys " + strings.Join(keys, ", ")
}

func newLast(name string, line int, out *Outcome, err error) *last {
	l := &last{name: name, line: line, outcome: out, err: err}
	if out == nil {
		l.outcome = &Outcome{}
	}
	return l
}

// rawJSON is the result's JSON, encoded on first use.
func (l *last) rawJSON() string {
	if !l.rawDone {
		l.rawDone = true
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
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// text is the text of the last result: its text contents joined by
// newlines, or its JSON when it has none.
func (l *last) text() string {
	var parts []string
	switch res := l.outcome.Result.(type) {
	case *mcp.CallToolResult:
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

// describe lists the questions of the last command with their answers.
func (l *last) describe() string {
	var b strings.Builder
	for _, q := range l.outcome.Questions {
		fmt.Fprintf(&b, "[ELICIT] %s\n", describeQuestion(q))
	}
	return strings.TrimRight(b.String(), "\n")
}

func describeQuestion(q Question) string {
	var b strings.Builder
	if q.Key != "" {
		fmt.Fprintf(&b, "%s: ", termsafe.Line(q.Key))
	}
	b.WriteString(termsafe.Line(q.Message))
	if q.URL != "" {
		fmt.Fprintf(&b, " <%s>", termsafe.Line(q.URL))
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

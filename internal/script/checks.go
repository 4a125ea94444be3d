package script

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script/expect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runFunc runs a command as a step; see cmd.run.
type runFunc = func(r *runner, ctx context.Context, c *command, res *StepResult) *failure

// values are the values of c's arguments, variables replaced. The commands
// with a filter (assert_elicited, assert_not_elicited) read their text
// themselves.
// The slice is the runner's room, reused by the next step's check: a
// check keeps none of it.
func (r *runner) values(c *command) ([]string, *failure) {
	args := r.argv[:0]
	for _, t := range c.args {
		v := ""
		if c.filter == nil {
			var err error
			if v, err = t.value(r.vars); err != nil {
				return nil, fail("%v", err)
			}
		}
		args = append(args, v)
	}
	r.argv = args
	return args, nil
}

// readsArgs makes the run of a command that reads only its arguments.
func readsArgs(f func(r *runner, c *command, args []string, res *StepResult) *failure) runFunc {
	return func(r *runner, _ context.Context, c *command, res *StepResult) *failure {
		args, fl := r.values(c)
		if fl != nil {
			return fl
		}
		return f(r, c, args, res)
	}
}

// readsLast makes the run of a command that reads the last command that
// reached the server, whether it failed or not.
func readsLast(f func(r *runner, c *command, args []string, l *last) *failure) runFunc {
	return func(r *runner, _ context.Context, c *command, res *StepResult) *failure {
		args, fl := r.values(c)
		if fl != nil {
			return fl
		}
		if r.last == nil {
			return fail("%s needs a command before it: no %s has run", c.def.name, commandsWhere(reachesServer, "or"))
		}
		return f(r, c, args, r.last)
	}
}

// readsResult makes the run of a command that reads the last command's
// result: it fails when that command failed.
func readsResult(f func(r *runner, c *command, args []string, l *last) *failure) runFunc {
	return readsLast(func(r *runner, c *command, args []string, l *last) *failure {
		if l.err != nil && l.caught == "" {
			return &failure{msg: fmt.Sprintf("%s (line %d) failed, so there is no result to check", l.cmd.name, l.line)}
		}
		return f(r, c, args, l)
	})
}

// oneOrTwo runs one with one argument and two with two: assert_contains
// and assert_equals read the last response, or compare two values.
func oneOrTwo(one, two runFunc) runFunc {
	return func(r *runner, ctx context.Context, c *command, res *StepResult) *failure {
		if len(c.args) == 1 {
			return one(r, ctx, c, res)
		}
		return two(r, ctx, c, res)
	}
}

func echo(_ *runner, _ *command, args []string, res *StepResult) *failure {
	res.Output = strings.Join(args, " ")
	return nil
}

func inputVar(r *runner, _ *command, args []string, res *StepResult) *failure {
	prompt := ""
	if len(args) > 1 {
		prompt = args[1]
	}
	if len(args) > 2 { // input_var NAME Several words of prompt
		prompt = strings.Join(args[1:], " ")
	}
	line, err := r.in.readLine(prompt, r.opts.Prompts)
	if err != nil {
		return fail("input_var %s: %v", args[0], err)
	}
	r.vars[args[0]] = line
	res.Output = prompt
	return nil
}

func assertEquals(_ *runner, _ *command, args []string, _ *StepResult) *failure {
	if args[0] != args[1] {
		return &failure{msg: "the values differ", expected: strconv.Quote(truncate(args[1], maxExcerpt)), actual: strconv.Quote(truncate(args[0], maxExcerpt)),
			fix:  &fix{arg: 1, text: args[0]},
			said: fmt.Sprintf("assertion failed: %q != %q", args[0], args[1])}
	}
	return nil
}

// assertResultEquals runs assert_equals EXPECTED: the last response is
// exactly EXPECTED (its text, or its JSON).
func assertResultEquals(_ *runner, c *command, args []string, l *last) *failure {
	for s := range l.responses {
		if s == args[0] {
			return nil
		}
	}
	text := l.text()
	return &failure{msg: "the last response is not exactly the text", expected: strconv.Quote(truncate(args[0], maxExcerpt)), actual: strconv.Quote(truncate(text, maxExcerpt)), response: true,
		diff: textDiff(expect.Escape(args[0]), text, c.line), fix: &fix{arg: 0, text: text},
		said: fmt.Sprintf("assertion failed: expected exactly %q, but got %q", args[0], text)}
}

// assertValueContains runs assert_contains VALUE TEXT.
func assertValueContains(_ *runner, _ *command, args []string, _ *StepResult) *failure {
	if !strings.Contains(args[0], args[1]) {
		return &failure{msg: "the value does not contain the text", expected: "text containing " + strconv.Quote(args[1]), actual: strconv.Quote(truncate(args[0], maxExcerpt)),
			said: fmt.Sprintf("assertion failed: %q does not contain %q", args[0], args[1])}
	}
	return nil
}

// setLogLevel runs logging LEVEL: logging/setLevel, as mcp-tester logging
// does.
func setLogLevel(r *runner, ctx context.Context, c *command, _ *StepResult) *failure {
	lc, ok := r.conn.(LogLevelConn)
	if !ok {
		return fail("logging: this connection cannot set the server's log level")
	}
	if err := lc.SetLogLevel(ctx, c.args[0].segs[0].text); err != nil {
		return &failure{msg: fmt.Sprintf("logging failed: %v", err)}
	}
	return nil
}

func assertNumber(_ *runner, _ *command, args []string, _ *StepResult) *failure {
	if _, err := strconv.ParseFloat(strings.TrimSpace(args[0]), 64); err != nil {
		return &failure{msg: "not a number", expected: "a number", actual: strconv.Quote(args[0]), said: fmt.Sprintf("assertion failed: %q is not a number", args[0])}
	}
	return nil
}

func assertGreater(_ *runner, _ *command, args []string, _ *StepResult) *failure {
	a, err1 := strconv.ParseFloat(strings.TrimSpace(args[0]), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(args[1]), 64)
	if err1 != nil || err2 != nil {
		return &failure{msg: "assert_gt compares numbers", expected: "two numbers", actual: strconv.Quote(args[0]) + " and " + strconv.Quote(args[1]), said: "assert_gt arguments must be numbers"}
	}
	if !(a > b) {
		return &failure{msg: "the value is not greater", expected: "a number greater than " + args[1], actual: args[0], said: fmt.Sprintf("assertion failed: %f is not greater than %f", a, b)}
	}
	return nil
}

func assertStringLength(_ *runner, _ *command, args []string, _ *StepResult) *failure {
	lo, _ := strconv.Atoi(args[1])
	hi, _ := strconv.Atoi(args[2])
	n := utf8.RuneCountInString(args[0])
	if n < lo || n > hi {
		return &failure{msg: "the length is out of range", expected: fmt.Sprintf("%d to %d characters", lo, hi), actual: fmt.Sprintf("%d characters: %s", n, strconv.Quote(truncate(args[0], 200))),
			said: fmt.Sprintf("assertion failed: string length %d is not between %d and %d", n, lo, hi)}
	}
	return nil
}

func assertErrorCode(_ *runner, c *command, _ []string, l *last) *failure {
	if l.err == nil {
		return &failure{msg: fmt.Sprintf("%s (line %d) did not fail", l.cmd.name, l.line), expected: fmt.Sprintf("error code %d", c.n), actual: "a result", response: true}
	}
	code, ok := errorCode(l.err)
	if !ok {
		return &failure{msg: "the error has no JSON-RPC code", expected: fmt.Sprintf("error code %d", c.n), actual: l.err.Error()}
	}
	if code != c.n {
		return &failure{msg: "wrong error code", expected: strconv.FormatInt(c.n, 10), actual: fmt.Sprintf("%d (%v)", code, l.err),
			fix:  &fix{arg: 0, text: strconv.FormatInt(code, 10)},
			said: fmt.Sprintf("assertion failed: expected error code %d, got %d", c.n, code)}
	}
	return nil
}

func assertTaskStatus(r *runner, _ *command, args []string, l *last) *failure {
	return r.checkTask(args[0], l)
}

func assertContains(_ *runner, _ *command, args []string, l *last) *failure {
	for s := range l.responses {
		if strings.Contains(s, args[0]) {
			return nil
		}
	}
	text := l.text()
	var fx *fix
	if line := expect.CheckText(text); line != "" {
		fx = &fix{arg: 0, text: line}
	}
	return &failure{msg: "the result does not contain the text", expected: "text containing " + strconv.Quote(args[0]), actual: strconv.Quote(truncate(text, maxExcerpt)), response: true, fix: fx,
		said: fmt.Sprintf("assertion failed: last response does not contain %q", args[0])}
}

// assertIsError runs assert_is_error (want true) and assert_not_error.
func assertIsError(want bool) func(r *runner, c *command, args []string, l *last) *failure {
	return func(_ *runner, _ *command, _ []string, l *last) *failure {
		got := false
		if tr, ok := l.outcome.Result.(*mcp.CallToolResult); ok {
			got = tr.IsError
		}
		if got != want {
			return &failure{msg: fmt.Sprintf("the result of %s (line %d) has isError: %t", l.cmd.name, l.line, got), expected: fmt.Sprintf("isError: %t", want), actual: fmt.Sprintf("isError: %t", got), response: true}
		}
		return nil
	}
}

func setVar(r *runner, c *command, args []string, l *last) *failure {
	if c.raw {
		r.vars[args[0]] = l.rawJSON()
		return nil
	}
	decoded := l.decodedJSON()
	if decoded == nil {
		return &failure{msg: fmt.Sprintf("%s (line %d) has no JSON result", l.cmd.name, l.line), response: true}
	}
	v, err := lookupPath(decoded, c.path)
	if err != nil {
		// As the earlier mcp-tester: $.a (and a) also reads
		// structuredContent.a, and structuredContent.a also reads a.
		alt := append([]string{"structuredContent"}, c.path...)
		if len(c.path) > 0 && c.path[0] == "structuredContent" {
			alt = c.path[1:]
		}
		if v2, err2 := lookupPath(decoded, alt); err2 == nil {
			v, err = v2, nil
		}
	}
	if err != nil {
		return &failure{msg: fmt.Sprintf("set_var %s: %v", args[0], err), response: true}
	}
	r.vars[args[0]] = varString(v)
	return nil
}

func assertElicitedCount(_ *runner, c *command, _ []string, l *last) *failure {
	qs := l.outcome.Questions
	if int64(len(qs)) != c.n {
		return &failure{msg: fmt.Sprintf("%s (line %d) asked %d question(s)", l.cmd.name, l.line, len(qs)), expected: strconv.FormatInt(c.n, 10), actual: strconv.Itoa(len(qs)) + askedList(qs),
			fix: &fix{arg: 0, text: strconv.Itoa(len(qs))}}
	}
	return nil
}

// assertElicited passes when a question of the last command matches the
// filter.
func assertElicited(r *runner, c *command, _ []string, l *last) *failure {
	want, matched, fl := r.matching(c, l)
	if fl != nil {
		return fl
	}
	qs := l.outcome.Questions
	if len(qs) == 0 && l.err != nil {
		return &failure{msg: fmt.Sprintf("%s (line %d) failed before the server asked anything", l.cmd.name, l.line), expected: want, actual: "no question"}
	}
	if len(matched) == 0 {
		if f := otherText(c, l); f != nil {
			return f
		}
		return &failure{msg: fmt.Sprintf("%s (line %d) asked no such question", l.cmd.name, l.line), expected: want, actual: fmt.Sprintf("%d question(s)", len(qs)) + askedList(qs)}
	}
	return nil
}

// otherText explains an assert_elicited whose filters select one question
// whose message is not the text: what it asks instead, and how an update
// writes it.
func otherText(c *command, l *last) *failure {
	f := c.filter
	if f.text == nil {
		return nil
	}
	g := *f
	g.text = nil
	var same []exchange.Entry
	for _, q := range l.outcome.Questions {
		if matches(q, &g, "") {
			same = append(same, q)
		}
	}
	if len(same) != 1 {
		return nil
	}
	q := same[0]
	want, _ := f.text.literal()
	what := "the question"
	if q.Key != "" {
		what = fmt.Sprintf("the question %q", q.Key)
	}
	got := q.Message()
	if q.Mode() == "url" && got == "" {
		got = q.URL()
	}
	var fx *fix
	for i := range c.args {
		if &c.args[i] == f.text {
			fx = &fix{arg: i, text: elicitedText(got)}
		}
	}
	return &failure{msg: fmt.Sprintf("%s of %s (line %d) asks something else", what, l.cmd.name, l.line),
		expected: "a message containing " + strconv.Quote(truncate(want, maxExcerpt)), actual: strconv.Quote(truncate(got, maxExcerpt)),
		diff: textDiff(expect.Escape(want), got, c.line), fix: fx}
}

// elicitedText is the text assert_elicited looks for in a message: the
// whole message, or, when parts of it change from run to run, its longest
// part that does not.
func elicitedText(msg string) string {
	p := expect.Generalize(msg)
	if p == expect.Escape(msg) {
		return msg
	}
	longest := ""
	for _, part := range expect.LiteralParts(p) {
		if len(part) > len(longest) {
			longest = part
		}
	}
	return strings.TrimSpace(longest)
}

// assertNotElicited passes when no question of the last command matches
// the filter.
func assertNotElicited(r *runner, c *command, _ []string, l *last) *failure {
	want, matched, fl := r.matching(c, l)
	if fl != nil {
		return fl
	}
	if len(matched) > 0 {
		return &failure{msg: fmt.Sprintf("%s (line %d) asked a question it should not have", l.cmd.name, l.line), expected: "no " + strings.TrimPrefix(want, "a "), actual: askedList(matched)}
	}
	return nil
}

// matching returns the questions of the last command that match c's
// filter, and the filter described.
func (r *runner) matching(c *command, l *last) (string, []exchange.Entry, *failure) {
	f := c.filter
	text := ""
	if f.text != nil {
		v, err := f.text.value(r.vars)
		if err != nil {
			return "", nil, fail("%v", err)
		}
		text = v
	}
	var matched []exchange.Entry
	for _, q := range l.outcome.Questions {
		if matches(q, f, text) {
			matched = append(matched, q)
		}
	}
	return describeFilter(f, text), matched, nil
}

func describeFilter(f *filter, text string) string {
	g := *f
	g.text = nil
	s := g.String()
	if f.text != nil {
		if s == "any question" {
			s = "a question"
		}
		s += " containing " + strconv.Quote(text)
	}
	return s
}

func askedList(qs []exchange.Entry) string {
	if len(qs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(":")
	for _, q := range qs {
		b.WriteString("\n  ")
		fmt.Fprintf(&b, "[%s] ", q.Mode())
		b.WriteString(describeQuestion(q))
		if fs := fields(q.Schema()); len(fs) > 0 {
			fmt.Fprintf(&b, " (fields: %s)", strings.Join(fs, ", "))
		}
	}
	return b.String()
}

// matches reports whether q satisfies every condition of f.
func matches(q exchange.Entry, f *filter, text string) bool {
	switch {
	case f.key != "" && q.Key != f.key,
		f.mode != "" && q.Mode() != f.mode,
		f.action != "" && (q.Answer == nil || q.Answer.Action != f.action),
		f.field != "" && !slices.Contains(fields(q.Schema()), f.field),
		f.text != nil && !strings.Contains(q.Message(), text) && !strings.Contains(q.URL(), text):
		return false
	}
	return true
}

// fields lists the property names of a requested schema, sorted.
func fields(schema any) []string {
	if schema == nil {
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

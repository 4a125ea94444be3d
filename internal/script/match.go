package script

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script/expect"
	"github.com/askback/askback/internal/text/textdiff"
)

// The checks that compare with placeholders (docs/scripts.md, "Values that
// change from run to run"): assert_match, assert_json and assert_question.

// expectation is what assert_json and assert_question expect, parsed when
// it is written without variables.
type expectation struct {
	arg  int          // the argument that holds it
	want expect.Value // nil until the step runs when it uses variables
	// question selector of assert_question: key=K, index=N (1-based).
	key   string
	index int64
}

// checkPattern checks the pattern of assert_match (its last argument).
func checkPattern(p *parser, c *command, outers []*cmd) {
	t := c.args[len(c.args)-1]
	if s, ok := t.literal(); ok {
		if _, err := expect.ParsePattern(s); err != nil {
			p.errorf(t.col, "%v", err)
		}
	}
}

// checkJSONArg checks an expected JSON value: one JSON value, whose strings
// are patterns.
func checkJSONArg(p *parser, c *command, i int) expect.Value {
	t := c.args[i]
	s, ok := t.literal()
	if !ok {
		return nil
	}
	v, err := parseExpected(s)
	if err != nil {
		p.errorf(t.col, "%s: %v", c.def.name, err)
		return nil
	}
	return v
}

// parseExpected reads the expected value of assert_json and
// assert_question, and checks its patterns.
func parseExpected(s string) (expect.Value, error) {
	v, err := expect.Decode([]byte(s))
	if err != nil {
		hint := ""
		if !strings.ContainsAny(strings.TrimSpace(s), `{["`) {
			hint = fmt.Sprintf("; to expect the text %s write '%s'", s, expect.Compact(s))
		}
		return nil, fmt.Errorf("the expected value is not JSON: %v%s", err, hint)
	}
	if err := checkPatterns(v, expect.Path{}); err != nil {
		return nil, err
	}
	return v, nil
}

func checkPatterns(v expect.Value, at expect.Path) error {
	switch x := v.(type) {
	case string:
		if _, err := expect.ParsePattern(x); err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
	case []any:
		for i, e := range x {
			if err := checkPatterns(e, append(at, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	case *expect.Object:
		for _, k := range x.Keys {
			if err := checkPatterns(x.Values[k], append(at, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkAssertJSON(p *parser, c *command, outers []*cmd) {
	e := &expectation{arg: len(c.args) - 1}
	if len(c.args) == 2 {
		s, ok := p.literalArg(c, 0, "the path")
		if !ok {
			return
		}
		path, err := expect.ParsePath(s, false)
		if err != nil {
			p.errorf(c.args[0].col, "%v", err)
			return
		}
		c.path = path
	}
	e.want = checkJSONArg(p, c, e.arg)
	c.expect = e
}

func checkAssertQuestion(p *parser, c *command, outers []*cmd) {
	e := &expectation{arg: len(c.args) - 1}
	for i := 0; i < e.arg; i++ {
		t := c.args[i]
		s, ok := p.literalArg(c, i, "the selector")
		if !ok {
			return
		}
		k, v, found := strings.Cut(s, "=")
		switch {
		case t.kind == bareToken && found && k == "key" && v != "" && e.key == "":
			e.key = v
		case t.kind == bareToken && found && k == "index" && e.index == 0:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 1 {
				p.errorf(t.col, "index= takes the position of the question, from 1, not %q", v)
				return
			}
			e.index = n
		default:
			p.errorf(t.col, "assert_question selects its question with key=K or index=N (given once each), then takes the expected JSON; usage: %s", c.def.usage)
			return
		}
	}
	e.want = checkJSONArg(p, c, e.arg)
	c.expect = e
}

// expected is the expected value of c, variables replaced.
func (r *runner) expected(c *command) (expect.Value, *failure) {
	if c.expect.want != nil {
		return c.expect.want, nil
	}
	s, err := c.args[c.expect.arg].value(r.vars)
	if err != nil {
		return nil, fail("%v", err)
	}
	v, err := parseExpected(s)
	if err != nil {
		return nil, fail("%v", err)
	}
	return v, nil
}

// assertResultMatches runs assert_match PATTERN: the last response is a
// text the pattern describes.
func assertResultMatches(_ *runner, c *command, args []string, l *last) *failure {
	p, err := expect.ParsePattern(args[0])
	if err != nil {
		return fail("%v", err)
	}
	for s := range l.responses {
		if p.Match(s) {
			return nil
		}
	}
	text := l.text()
	return &failure{msg: "the last response does not match the pattern", expected: strconv.Quote(truncate(args[0], maxExcerpt)), actual: strconv.Quote(truncate(text, maxExcerpt)),
		diff: textDiff(args[0], text, c.line), response: true, fix: &fix{arg: 0, text: expect.Generalize(text)},
		said: fmt.Sprintf("assertion failed: %q does not match %q", text, args[0])}
}

// assertValueMatches runs assert_match VALUE PATTERN.
func assertValueMatches(_ *runner, c *command, args []string, _ *StepResult) *failure {
	p, err := expect.ParsePattern(args[1])
	if err != nil {
		return fail("%v", err)
	}
	if p.Match(args[0]) {
		return nil
	}
	return &failure{msg: "the value does not match the pattern", expected: strconv.Quote(truncate(args[1], maxExcerpt)), actual: strconv.Quote(truncate(args[0], maxExcerpt)),
		diff: textDiff(args[1], args[0], c.line), fix: &fix{arg: 1, text: expect.Generalize(args[0])},
		said: fmt.Sprintf("assertion failed: %q does not match %q", args[0], args[1])}
}

// textDiff is the line diff of a pattern and a text of several lines, each
// line that its pattern line describes written as the pattern; "" for
// texts of one line (expected and actual say it all).
func textDiff(pattern, text string, line int) string {
	if !strings.Contains(pattern, "\n") && !strings.Contains(text, "\n") {
		return ""
	}
	pl, tl := strings.Split(pattern, "\n"), strings.Split(text, "\n")
	if len(pl) == len(tl) {
		for i := range pl {
			if p, err := expect.ParsePattern(pl[i]); err == nil && p.Match(tl[i]) {
				tl[i] = pl[i]
			}
		}
	}
	return textdiff.Unified(fmt.Sprintf("expected (line %d)", line), "actual", pattern+"\n", strings.Join(tl, "\n")+"\n", 3)
}

// assertJSON runs assert_json [PATH] EXPECTED.
func assertJSON(r *runner, c *command, _ []string, l *last) *failure {
	want, fl := r.expected(c)
	if fl != nil {
		return fl
	}
	got, err := l.ordered()
	if err != nil {
		return &failure{msg: fmt.Sprintf("%s (line %d) has no JSON result: %v", l.cmd.name, l.line, err), response: true}
	}
	what := "the result"
	if c.path != nil {
		what = expect.Path(c.path).String()
		got, err = expect.Lookup(got, c.path)
		if err != nil {
			return &failure{msg: fmt.Sprintf("the result has nothing at %s: %v", what, err), response: true}
		}
	}
	return compareJSON(what, want, got, c)
}

// compareJSON is the verdict of a JSON check: the differences as a
// message, and a diff of the expected value and what came, written where
// it matches as expected.
func compareJSON(what string, want, got expect.Value, c *command) *failure {
	diffs := expect.Match(want, got)
	if len(diffs) == 0 {
		return nil
	}
	var paths []string
	for i, d := range diffs {
		if i == 3 {
			paths = append(paths, fmt.Sprintf("and %d more", len(diffs)-3))
			break
		}
		paths = append(paths, d.Path.String())
	}
	msg := fmt.Sprintf("%s differs from the expected value at %s", what, strings.Join(paths, ", "))
	diff := textdiff.Unified(fmt.Sprintf("expected (line %d)", c.line), "actual",
		expect.Indent(want, "  ")+"\n", expect.Indent(expect.Project(want, got), "  ")+"\n", 3)
	first := diffs[0]
	actual := first.Actual
	if actual == "" {
		actual = "(missing)"
	}
	return &failure{msg: msg, expected: first.Path.String() + ": " + truncate(first.Expected, maxExcerpt), actual: first.Path.String() + ": " + truncate(actual, maxExcerpt),
		diff: diff, fix: &fix{arg: c.expect.arg, json: expect.Update(want, got), isJSON: true},
		said: "assertion failed: " + msg}
}

// assertQuestion runs assert_question: a question of the last command
// (the one with key K, the Nth, or any) matches the expected JSON.
func assertQuestion(r *runner, c *command, _ []string, l *last) *failure {
	want, fl := r.expected(c)
	if fl != nil {
		return fl
	}
	e := c.expect
	qs := l.outcome.Questions
	candidates := e.selected(qs)
	where := fmt.Sprintf("%s (line %d)", l.cmd.name, l.line)
	if len(candidates) == 0 {
		return &failure{msg: fmt.Sprintf("%s asked no such question", where), expected: e.selection(), actual: fmt.Sprintf("%d question(s)", len(qs)) + askedList(qs)}
	}
	best, ok := closest(want, candidates)
	if ok {
		return nil
	}
	what := "the question"
	if e.key != "" {
		what = fmt.Sprintf("the question %q", e.key)
	}
	return compareJSON(what+" of "+where, want, best, c)
}

// selected are the questions of qs that assert_question's selectors
// (key=K, index=N) choose.
func (e *expectation) selected(qs []exchange.Entry) []exchange.Entry {
	var out []exchange.Entry
	for i, q := range qs {
		if (e.key == "" || q.Key == e.key) && (e.index == 0 || int64(i+1) == e.index) {
			out = append(out, q)
		}
	}
	return out
}

// selection says which question assert_question's selectors choose.
func (e *expectation) selection() string {
	switch {
	case e.key != "" && e.index > 0:
		return fmt.Sprintf("a question %d with the key %q", e.index, e.key)
	case e.key != "":
		return fmt.Sprintf("a question with the key %q", e.key)
	case e.index > 0:
		return fmt.Sprintf("a question %d", e.index)
	}
	return "any question"
}

// closest is the question of candidates, as JSON, with the fewest
// differences from want (the last of equals, a question asked again being
// the later); ok when one matches it.
func closest(want expect.Value, candidates []exchange.Entry) (best expect.Value, ok bool) {
	bestN := -1
	for _, q := range candidates {
		got := questionJSON(q)
		n := len(expect.Match(want, got))
		if n == 0 {
			return got, true
		}
		if bestN < 0 || n <= bestN {
			best, bestN = got, n
		}
	}
	return best, false
}

// questionJSON is what a question asked, as JSON: the parameters of the
// elicitation or of the request for a model reply; {} for a request for
// the roots.
func questionJSON(q exchange.Entry) expect.Value {
	var v any = struct{}{}
	switch {
	case q.IsElicitation() && q.Params != nil:
		v = q.Params
	case q.Asks == exchange.AsksSampling && q.Sample != nil:
		v = q.Sample
	}
	b, err := json.Marshal(v)
	if err != nil {
		return expect.NewObject()
	}
	out, err := expect.Decode(b)
	if err != nil {
		return expect.NewObject()
	}
	return out
}

// fix is how `mcp-tester test --update` rewrites a failed check so that it
// passes: the argument whose value changes, and its new value.
type fix struct {
	arg    int
	text   string       // the new text
	json   expect.Value // the new JSON, when isJSON
	isJSON bool
}

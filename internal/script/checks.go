package script

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// check runs the commands that neither queue answers nor reach the server.
func (r *runner) check(c *command, res *StepResult) *failure {
	args := make([]string, len(c.args))
	if c.name != "assert_elicited" && c.name != "assert_not_elicited" {
		for i, t := range c.args {
			v, err := t.value(r.vars)
			if err != nil {
				return fail("%v", err)
			}
			args[i] = v
		}
	}
	switch c.name {
	case "echo":
		res.Output = strings.Join(args, " ")
		return nil
	case "input_var":
		prompt := ""
		if len(args) > 1 {
			prompt = args[1]
		}
		line, err := r.in.readLine(prompt, r.opts.Prompts)
		if err != nil {
			return fail("input_var %s: %v", args[0], err)
		}
		r.vars[args[0]] = line
		if len(args) > 1 {
			res.Output = args[1]
		}
		return nil
	case "assert_equals":
		if args[0] != args[1] {
			return &failure{msg: "the values differ", expected: strconv.Quote(truncate(args[1], maxExcerpt)), actual: strconv.Quote(truncate(args[0], maxExcerpt))}
		}
		return nil
	case "assert_number":
		if _, err := strconv.ParseFloat(strings.TrimSpace(args[0]), 64); err != nil {
			return &failure{msg: "not a number", expected: "a number", actual: strconv.Quote(args[0])}
		}
		return nil
	case "assert_gt":
		a, err1 := strconv.ParseFloat(strings.TrimSpace(args[0]), 64)
		b, err2 := strconv.ParseFloat(strings.TrimSpace(args[1]), 64)
		if err1 != nil || err2 != nil {
			return &failure{msg: "assert_gt compares numbers", expected: "two numbers", actual: strconv.Quote(args[0]) + " and " + strconv.Quote(args[1])}
		}
		if !(a > b) {
			return &failure{msg: "the value is not greater", expected: "a number greater than " + args[1], actual: args[0]}
		}
		return nil
	case "assert_string_length":
		lo, _ := strconv.Atoi(args[1])
		hi, _ := strconv.Atoi(args[2])
		n := utf8.RuneCountInString(args[0])
		if n < lo || n > hi {
			return &failure{msg: "the length is out of range", expected: fmt.Sprintf("%d to %d characters", lo, hi), actual: fmt.Sprintf("%d characters: %s", n, strconv.Quote(truncate(args[0], 200)))}
		}
		return nil
	}

	// The rest reads the last command.
	if r.last == nil {
		return fail("%s needs a command before it: no call_tool, get_prompt, read_resource or ping has run", c.name)
	}
	l := r.last
	switch c.name {
	case "assert_error_code":
		if l.err == nil {
			return &failure{msg: fmt.Sprintf("%s (line %d) did not fail", l.name, l.line), expected: fmt.Sprintf("error code %d", c.n), actual: "a result", response: true}
		}
		code, ok := errorCode(l.err)
		if !ok {
			return &failure{msg: "the error has no JSON-RPC code", expected: fmt.Sprintf("error code %d", c.n), actual: l.err.Error()}
		}
		if code != c.n {
			return &failure{msg: "wrong error code", expected: strconv.FormatInt(c.n, 10), actual: fmt.Sprintf("%d (%v)", code, l.err)}
		}
		return nil
	case "assert_elicited", "assert_not_elicited", "assert_elicited_count":
		return r.checkQuestions(c, l)
	case "assert_task_status":
		return r.checkTask(args[0], l)
	}

	if l.err != nil {
		return &failure{msg: fmt.Sprintf("%s (line %d) failed, so there is no result to check", l.name, l.line)}
	}
	switch c.name {
	case "assert_contains":
		text := l.text()
		if !strings.Contains(text, args[0]) {
			return &failure{msg: "the result does not contain the text", expected: "text containing " + strconv.Quote(args[0]), actual: strconv.Quote(truncate(text, maxExcerpt)), response: true}
		}
		return nil
	case "assert_is_error", "assert_not_error":
		want := c.name == "assert_is_error"
		got := false
		if tr, ok := l.outcome.Result.(*mcp.CallToolResult); ok {
			got = tr.IsError
		}
		if got != want {
			return &failure{msg: fmt.Sprintf("the result of %s (line %d) has isError: %t", l.name, l.line, got), expected: fmt.Sprintf("isError: %t", want), actual: fmt.Sprintf("isError: %t", got), response: true}
		}
		return nil
	case "set_var":
		if c.raw {
			r.vars[args[0]] = l.rawJSON()
			return nil
		}
		decoded := l.decodedJSON()
		if decoded == nil {
			return &failure{msg: fmt.Sprintf("%s (line %d) has no JSON result", l.name, l.line), response: true}
		}
		v, err := lookupPath(decoded, c.path)
		if err != nil {
			return &failure{msg: fmt.Sprintf("set_var %s: %v", args[0], err), response: true}
		}
		r.vars[args[0]] = varString(v)
		return nil
	}
	return fail("internal error: no implementation of %s", c.name)
}

// checkQuestions runs assert_elicited, assert_not_elicited and
// assert_elicited_count against the questions of the last command.
func (r *runner) checkQuestions(c *command, l *last) *failure {
	qs := l.outcome.Questions
	if c.name == "assert_elicited_count" {
		if int64(len(qs)) != c.n {
			return &failure{msg: fmt.Sprintf("%s (line %d) asked %d question(s)", l.name, l.line, len(qs)), expected: strconv.FormatInt(c.n, 10), actual: strconv.Itoa(len(qs)) + askedList(qs)}
		}
		return nil
	}
	f := c.filter
	text := ""
	if f.text != nil {
		v, err := f.text.value(r.vars)
		if err != nil {
			return fail("%v", err)
		}
		text = v
	}
	var matched []Question
	for _, q := range qs {
		if matches(q, f, text) {
			matched = append(matched, q)
		}
	}
	want := describeFilter(f, text)
	if c.name == "assert_elicited" && len(qs) == 0 && l.err != nil {
		return &failure{msg: fmt.Sprintf("%s (line %d) failed before the server asked anything", l.name, l.line), expected: want, actual: "no question"}
	}
	if c.name == "assert_elicited" && len(matched) == 0 {
		return &failure{msg: fmt.Sprintf("%s (line %d) asked no such question", l.name, l.line), expected: want, actual: fmt.Sprintf("%d question(s)", len(qs)) + askedList(qs)}
	}
	if c.name == "assert_not_elicited" && len(matched) > 0 {
		return &failure{msg: fmt.Sprintf("%s (line %d) asked a question it should not have", l.name, l.line), expected: "no " + strings.TrimPrefix(want, "a "), actual: askedList(matched)}
	}
	return nil
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

func askedList(qs []Question) string {
	if len(qs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(":")
	for _, q := range qs {
		b.WriteString("\n  ")
		mode := q.Mode
		if mode == "" {
			mode = "form"
		}
		fmt.Fprintf(&b, "[%s] ", mode)
		b.WriteString(describeQuestion(q))
		if fs := fields(q.Schema); len(fs) > 0 {
			fmt.Fprintf(&b, " (fields: %s)", strings.Join(fs, ", "))
		}
	}
	return b.String()
}

// matches reports whether q satisfies every condition of f.
func matches(q Question, f *filter, text string) bool {
	mode := q.Mode
	if mode == "" {
		mode = "form"
	}
	switch {
	case f.key != "" && q.Key != f.key,
		f.mode != "" && mode != f.mode,
		f.action != "" && (q.Answer == nil || q.Answer.Action != f.action),
		f.field != "" && !slices.Contains(fields(q.Schema), f.field),
		f.text != nil && !strings.Contains(q.Message, text) && !strings.Contains(q.URL, text):
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

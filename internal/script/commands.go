package script

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/askback/askback/internal/script/cmdname"
	"github.com/askback/askback/internal/text/suggest"
)

// cmd defines one command of the language, once: how it is written, what
// the parser checks, what it may wrap and how it runs. The parser looks a
// command up by its name in [commands]; a parsed command keeps its
// definition, so that nothing after the parser compares names.
type cmd struct {
	name  string
	index uint16 // its place in commandList, which a parsed step keeps
	usage string // the command with its arguments, shown when they are wrong
	// min and max bound the number of arguments; max < 0: no bound.
	min, max int
	// named: the command takes key:value arguments (or wraps commands that
	// do); for the others a key:value word is one value.
	named bool
	// setsVar: the first argument names a variable the command sets, which
	// the lines after it may use.
	setsVar bool
	// check checks the arguments when the script is parsed and keeps in c
	// what the runner needs; outers are the commands wrapping c.
	check func(p *parser, c *command, outers []*cmd)
	// wraps is set for the commands that run another one (expect_error,
	// timeout): it says which commands they may wrap.
	wraps func(inner *cmd) bool

	// run runs the command as a step (or under timeout) and explains a
	// failure.
	run func(r *runner, ctx context.Context, c *command, res *StepResult) *failure
	// send is set for the commands that reach the server: it sends the
	// command with the answers queued for it (nil unless asks). Such a
	// command becomes the last command, which the checks read.
	send func(r *runner, ctx context.Context, c *command, answers []answer.Spec) (*Outcome, error)
	// asks: the server may ask questions during the command, so the answers
	// queued by elicit_response go to it and are settled by it.
	asks bool
	// assertion: a check that expect_error may wrap (the step passes when
	// the check fails), as the earlier mcp-tester allowed.
	assertion bool

	// timed: the command waits on the server without reaching it as a
	// command of its own (logging), so its step has a time limit too.
	timed bool
	// readsStdin: the command waits for a line of the runner's stdin.
	readsStdin bool

	// What a command does with tasks (the tasks extension).
	callsTool   bool // it calls a tool, which the server may run as a task
	waits       bool // it waits for the task to end
	cancels     bool // it asks the server to cancel the task
	reportsTask bool // it reports the task's status, which assert_task_status reads
}

// commands is the language: every command by name. It is filled by init
// because expect_error and timeout parse and run other commands through it.
var commands map[string]*cmd

// commandList is every command, in the order that lists of commands in
// messages keep.
var commandList []*cmd

func init() {
	// expect_error and timeout wrap the commands that reach the server, and
	// each other.
	wrapsRemote := func(inner *cmd) bool { return inner.send != nil || inner.wraps != nil }
	wrapsRemoteOrCheck := func(inner *cmd) bool { return wrapsRemote(inner) || inner.assertion }
	commandList = []*cmd{
		{name: cmdname.ElicitResponse, usage: "elicit_response [KEY=]accept|decline|cancel ['{JSON content}'] [exact]", min: 1, max: 3,
			check: checkElicitResponse, run: queueAnswer},
		{name: cmdname.SampleResponse, usage: `sample_response "reply text" | sample_response '{"text": …, "model": …, "stopReason": …, "role": …}'`, min: 1, max: 1,
			check: checkSampleResponse, run: queueSample},
		{name: cmdname.Roots, usage: "roots URI[=NAME]...", min: 1, max: -1,
			check: checkRoots, run: declaresRoots},
		{name: cmdname.CallTool, usage: "call_tool NAME [VALUE | key:VALUE]...", min: 1, max: -1, named: true,
			check: checkCall, run: runRemote, send: sendCallTool, asks: true, callsTool: true, waits: true, reportsTask: true},
		{name: cmdname.GetPrompt, usage: "get_prompt NAME [key:VALUE]...", min: 1, max: -1, named: true,
			check: checkPrompt, run: runRemote, send: sendGetPrompt, asks: true},
		{name: cmdname.ReadResource, usage: "read_resource URI", min: 1, max: 1,
			run: runRemote, send: sendReadResource, asks: true},
		{name: cmdname.Ping, usage: "ping", min: 0, max: 0,
			run: runRemote, send: sendPing},
		{name: cmdname.List, usage: "list tools|prompts|resources|resource_templates", min: 1, max: 1,
			check: checkList, run: runRemote, send: sendList},
		{name: cmdname.StartTool, usage: "start_tool NAME [VALUE | key:VALUE]...", min: 1, max: -1, named: true,
			check: checkCall, run: runRemote, send: sendStartTool, asks: true, callsTool: true, reportsTask: true},
		{name: cmdname.GetTask, usage: "get_task [TASK_ID]", min: 0, max: 1,
			run: runRemote, send: sendGetTask, reportsTask: true},
		{name: cmdname.CancelTask, usage: "cancel_task [TASK_ID]", min: 0, max: 1,
			run: runRemote, send: sendCancelTask, cancels: true},
		{name: cmdname.WaitTask, usage: "wait_task [TASK_ID]", min: 0, max: 1,
			run: runRemote, send: sendWaitTask, asks: true, waits: true, reportsTask: true},
		{name: cmdname.AssertTaskStatus, usage: "assert_task_status working|input_required|completed|failed|cancelled", min: 1, max: 1,
			check: checkTaskStatus, assertion: true, run: readsLast(assertTaskStatus)},
		{name: cmdname.AssertElicited, usage: `assert_elicited ["text"] [key=K] [mode=form|url] [field=F] [action=accept|decline|cancel]`, min: 0, max: 5,
			check: checkFilter, assertion: true, run: readsLast(assertElicited)},
		{name: cmdname.AssertNotElicited, usage: `assert_not_elicited ["text"] [key=K] [mode=form|url] [field=F] [action=accept|decline|cancel]`, min: 0, max: 5,
			check: checkFilter, assertion: true, run: readsLast(assertNotElicited)},
		{name: cmdname.AssertElicitedCount, usage: "assert_elicited_count N", min: 1, max: 1,
			check: checkCount, assertion: true, run: readsLast(assertElicitedCount)},
		{name: cmdname.AssertContains, usage: `assert_contains "text" | assert_contains VALUE "text"`, min: 1, max: 2,
			assertion: true, run: oneOrTwo(readsResult(assertContains), readsArgs(assertValueContains))},
		{name: cmdname.AssertMatch, usage: `assert_match "pattern" | assert_match VALUE "pattern"`, min: 1, max: 2,
			check: checkPattern, assertion: true, run: oneOrTwo(readsResult(assertResultMatches), readsArgs(assertValueMatches))},
		{name: cmdname.AssertJSON, usage: `assert_json [PATH] '{expected JSON}'`, min: 1, max: 2,
			check: checkAssertJSON, assertion: true, run: readsResult(assertJSON)},
		{name: cmdname.AssertQuestion, usage: `assert_question [key=K] [index=N] '{expected JSON}'`, min: 1, max: 3,
			check: checkAssertQuestion, assertion: true, run: readsLast(assertQuestion)},
		{name: cmdname.AssertIsError, usage: "assert_is_error", min: 0, max: 0,
			assertion: true, run: readsResult(assertIsError(true))},
		{name: cmdname.AssertNotError, usage: "assert_not_error", min: 0, max: 0,
			assertion: true, run: readsResult(assertIsError(false))},
		{name: cmdname.SetVar, usage: "set_var NAME PATH (PATH: structuredContent.a.b, $.a.b, content.0.text or rawResponse)", min: 2, max: 2, setsVar: true,
			check: checkSetVar, run: readsResult(setVar)},
		{name: cmdname.InputVar, usage: `input_var NAME ["prompt"]`, min: 1, max: -1, setsVar: true,
			check: checkVarName, run: readsArgs(inputVar), readsStdin: true},
		{name: cmdname.AssertEquals, usage: "assert_equals EXPECTED | assert_equals ACTUAL EXPECTED", min: 1, max: 2,
			assertion: true, run: oneOrTwo(readsResult(assertResultEquals), readsArgs(assertEquals))},
		{name: cmdname.AssertNumber, usage: "assert_number VALUE", min: 1, max: 1,
			assertion: true, run: readsArgs(assertNumber)},
		{name: cmdname.AssertGt, usage: "assert_gt VALUE LIMIT", min: 2, max: 2,
			check: checkNumbers, assertion: true, run: readsArgs(assertGreater)},
		{name: cmdname.AssertStringLength, usage: "assert_string_length VALUE MIN MAX", min: 3, max: 3,
			check: checkLength, assertion: true, run: readsArgs(assertStringLength)},
		{name: cmdname.ExpectError, usage: "expect_error COMMAND...", min: 1, max: -1, named: true,
			check: checkWrapped, wraps: wrapsRemoteOrCheck, run: expectError},
		{name: cmdname.AssertErrorCode, usage: "assert_error_code CODE", min: 1, max: 1,
			check: checkCode, assertion: true, run: readsLast(assertErrorCode)},
		{name: cmdname.Timeout, usage: "timeout MS COMMAND...", min: 2, max: -1, named: true,
			check: checkTimeout, wraps: wrapsRemote, run: runWrapped},
		{name: cmdname.Echo, usage: "echo [TEXT]...", min: 0, max: -1,
			run: readsArgs(echo)},
		{name: cmdname.Logging, usage: "logging debug|info|notice|warning|error|critical|alert|emergency", min: 1, max: 1,
			check: checkLevel, run: setLogLevel, timed: true},
	}
	commands = make(map[string]*cmd, len(commandList))
	for i, c := range commandList {
		c.index = uint16(i)
		commands[c.name] = c
	}
}

// waitsOnServer reports whether a step of the command waits on the
// server, and so runs under its time limit: the commands that reach it,
// those that wrap them, and logging.
func (c *cmd) waitsOnServer() bool { return c.send != nil || c.wraps != nil || c.timed }

// commandNames lists every command, sorted, for hints.
func commandNames() []string {
	names := make([]string, 0, len(commandList))
	for _, c := range commandList {
		names = append(names, c.name)
	}
	slices.Sort(names)
	return names
}

// commandsWhere lists the commands for which keep holds, in the order of
// the reference, as "a, b or c" (last is "or" or "and").
func commandsWhere(keep func(*cmd) bool, last string) string {
	var names []string
	for _, c := range commandList {
		if keep(c) {
			names = append(names, c.name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + last + " " + names[len(names)-1]
}

// literalArg returns the value of an argument that must not use variables.
func (p *parser) literalArg(c *command, i int, what string) (string, bool) {
	s, ok := c.args[i].literal()
	if !ok {
		p.errorf(c.args[i].col, "%s of %s cannot use variables", what, c.def.name)
	}
	return s, ok
}

// answerArg is the answer queued by elicit_response.
type answerArg struct {
	key, action string
	exact       bool           // the content is sent as written: no defaults filled in
	content     map[string]any // parsed at parse time when written without variables
	tmpl        *token         // content with variables, parsed when the step runs
	origin      answer.Origin  // the answer's identity: where it is written
}

func checkElicitResponse(p *parser, c *command, outers []*cmd) {
	a := &answerArg{origin: answer.Origin{File: p.file, Line: p.line}}
	t := c.args[0]
	word, ok := p.literalArg(c, 0, "the action")
	if !ok {
		return
	}
	if t.kind == doubleToken || t.kind == singleToken {
		p.errorf(t.col, "the action of elicit_response is a bare word: accept, decline or cancel (KEY=ACTION for one question)")
		return
	}
	if k, act, found := strings.Cut(word, "="); found && !strings.ContainsAny(k, ":{") {
		if k == "" {
			p.errorf(t.col, "empty question key before =; write KEY=%s", act)
			return
		}
		a.key, word = k, act
	}
	// The --elicit form accept:{JSON} is accepted too.
	word, inline, hasInline := strings.Cut(word, ":")
	if a.exact, ok = p.exactArg(c); !ok {
		return
	}
	if hasInline && len(c.args) == 2 {
		p.errorf(c.args[1].col, "the content is given twice: after accept: and as an argument")
		return
	}
	if a.action, ok = p.answerAction(t, word); !ok {
		return
	}
	if hasInline {
		if a.action != "accept" {
			p.errorf(t.col, "only accept carries content; remove it or change %s to accept", a.action)
			return
		}
		m, err := parseContent(inline)
		if err != nil {
			p.errorf(t.col, "%v", err)
			return
		}
		a.content = m
	}
	if len(c.args) == 2 && !p.contentArg(c, a) {
		return
	}
	if a.exact && a.action != "accept" {
		p.errorf(t.col, "exact is for the content of accept; %s takes none", a.action)
		return
	}
	c.answer = a
}

// exactArg reads the last argument of elicit_response c when it is the
// word exact, and takes it off c's arguments: the answer's content is then
// sent as written, without the schema's defaults. Three arguments must end
// with it.
func (p *parser) exactArg(c *command) (exact, ok bool) {
	last := c.args[len(c.args)-1]
	if len(c.args) > 1 && last.kind == bareToken {
		if w, lit := last.literal(); lit && w == "exact" {
			c.args = c.args[:len(c.args)-1]
			return true, true
		}
	}
	if len(c.args) == 3 {
		p.errorf(last.col, "elicit_response takes the word exact after the content, or nothing; usage: %s", c.def.usage)
		return false, false
	}
	return false, true
}

// answerAction is the action word of elicit_response (token t): accept,
// decline or cancel.
func (p *parser) answerAction(t token, word string) (string, bool) {
	switch word {
	case "accept", "decline", "cancel":
		return word, true
	}
	msg := fmt.Sprintf("unknown action %q; use accept, decline or cancel", word)
	if h, ok := suggest.Closest(word, []string{"accept", "cancel", "decline"}); ok {
		msg = fmt.Sprintf("unknown action %q; did you mean %q?", word, h)
	}
	p.errorf(t.col, "%s", msg)
	return "", false
}

// contentArg reads the content argument of elicit_response c into a: a
// JSON object, parsed now when it has no variables.
func (p *parser) contentArg(c *command, a *answerArg) bool {
	ct := c.args[1]
	if a.action != "accept" {
		p.errorf(ct.col, "only accept carries content; remove it or change %s to accept", a.action)
		return false
	}
	if ct.kind == bareToken {
		p.errorf(ct.col, "the content of elicit_response is a JSON object, e.g. '{\"confirm\": true}'")
		return false
	}
	s, ok := ct.literal()
	if !ok {
		a.tmpl = &c.args[1]
		return true
	}
	m, err := parseContent(s)
	if err != nil {
		p.errorf(ct.col, "%v", err)
		return false
	}
	a.content = m
	return true
}

// parseContent parses the JSON object of an accept answer. Numbers decode
// as float64, as they would from the wire.
func parseContent(s string) (map[string]any, error) {
	m, err := userjson.Parse("the content of elicit_response", s, userjson.Float64)
	if err != nil {
		return nil, fmt.Errorf("%w; write one object, e.g. '{\"confirm\": true}'", err)
	}
	return m, nil
}

// normalizeNumbers turns json.Number values into int64 when integral and
// float64 otherwise, so that answers compare and encode as written.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}

func checkCall(p *parser, c *command, outers []*cmd) {
	c.expected = slices.ContainsFunc(outers, func(o *cmd) bool { return o.name == cmdname.ExpectError })
	if c.args[0].key != "" {
		p.errorf(c.args[0].col, "%s needs a name first; usage: %s NAME [VALUE | key:VALUE]...", c.def.name, c.def.name)
		return
	}
	seen := map[string]bool{}
	for _, t := range c.args[1:] {
		if t.key == "" {
			continue
		}
		if seen[t.key] {
			p.errorf(t.col, "argument %s is given twice", t.key)
			return
		}
		seen[t.key] = true
	}
}

func checkPrompt(p *parser, c *command, outers []*cmd) {
	// A prompt's arguments are named only: key:/VALUE is the argument key.
	for i := 1; i < len(c.args); i++ {
		c.args[i] = c.args[i].named()
	}
	checkCall(p, c, outers)
	for _, t := range c.args[1:] {
		if t.key == "" {
			p.errorf(t.col, "get_prompt takes named arguments only: write NAME:VALUE")
			return
		}
	}
}

// filter selects questions for assert_elicited and assert_not_elicited.
type filter struct {
	text                     *token
	key, mode, field, action string
}

func (f *filter) String() string {
	var parts []string
	if f.text != nil {
		s, _ := f.text.literal()
		parts = append(parts, "containing "+strconv.Quote(s))
	}
	for _, kv := range [][2]string{{"key", f.key}, {"mode", f.mode}, {"field", f.field}, {"action", f.action}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	if len(parts) == 0 {
		return "any question"
	}
	return "a question " + strings.Join(parts, ", ")
}

func checkFilter(p *parser, c *command, outers []*cmd) {
	f := &filter{}
	for i := range c.args {
		t := &c.args[i]
		if t.kind == bareToken {
			if s, ok := t.literal(); ok {
				if k, v, found := strings.Cut(s, "="); found && isIdent(k) {
					if !p.setFilter(f, t.col, k, v) {
						return
					}
					continue
				}
			}
		}
		if f.text != nil {
			p.errorf(t.col, "%s takes one text; quote text with spaces, and write filters as key=K, mode=M, field=F, action=A", c.def.name)
			return
		}
		f.text = t
	}
	c.filter = f
}

func (p *parser) setFilter(f *filter, col int, k, v string) bool {
	if v == "" {
		p.errorf(col, "filter %s= has no value", k)
		return false
	}
	var dst *string
	switch k {
	case "key":
		dst = &f.key
	case "mode":
		if v != "form" && v != "url" {
			p.errorf(col, "mode is form or url, not %q", v)
			return false
		}
		dst = &f.mode
	case "field":
		dst = &f.field
	case "action":
		if v != "accept" && v != "decline" && v != "cancel" {
			p.errorf(col, "action is accept, decline or cancel, not %q", v)
			return false
		}
		dst = &f.action
	default:
		p.errorf(col, "unknown filter %q; use key=, mode=, field= or action=, or quote the text to search for", k)
		return false
	}
	if *dst != "" {
		p.errorf(col, "filter %s= is given twice", k)
		return false
	}
	*dst = v
	return true
}

// taskStatuses are the statuses of a task, in the order of their life.
var taskStatuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

func checkTaskStatus(p *parser, c *command, outers []*cmd) {
	p.literalWord(c, "the status", "task status", taskStatuses)
}

// literalWord checks that the first argument (what) is a literal one of
// words: for another, an error naming it an unknown kind with the
// nearest word, or every word.
func (p *parser) literalWord(c *command, what, kind string, words []string) {
	s, ok := p.literalArg(c, 0, what)
	if !ok || slices.Contains(words, s) {
		return
	}
	msg := fmt.Sprintf("unknown %s %q; use %s", kind, s, strings.Join(words, ", "))
	if h, ok := suggest.Closest(s, words); ok {
		msg = fmt.Sprintf("unknown %s %q; did you mean %q?", kind, s, h)
	}
	p.errorf(c.args[0].col, "%s", msg)
}

// literalInt parses argument i as an integer within [lo, hi].
func (p *parser) literalInt(c *command, i int, what string, lo, hi int64) (int64, bool) {
	s, ok := p.literalArg(c, i, what)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo || n > hi {
		p.errorf(c.args[i].col, "%s of %s must be an integer from %d to %d, not %q", what, c.def.name, lo, hi, s)
		return 0, false
	}
	return n, true
}

func checkCount(p *parser, c *command, outers []*cmd) {
	c.n, _ = p.literalInt(c, 0, "the count", 0, 1000)
}

func checkCode(p *parser, c *command, outers []*cmd) {
	c.n, _ = p.literalInt(c, 0, "the code", -1<<31, 1<<31-1)
}

// maxTimeoutMS bounds the timeout command (one hour).
const maxTimeoutMS = 3_600_000

func checkTimeout(p *parser, c *command, outers []*cmd) {
	n, ok := p.literalInt(c, 0, "the time in milliseconds", 1, maxTimeoutMS)
	if !ok {
		return
	}
	c.limit = time.Duration(n) * time.Millisecond
	c.sub = p.parseCommand(c.args[1:], append(outers, c.def)...)
}

// logLevels are the levels of logging/setLevel.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func checkLevel(p *parser, c *command, outers []*cmd) {
	p.literalWord(c, "the level", "log level", logLevels)
}

func checkWrapped(p *parser, c *command, outers []*cmd) {
	c.sub = p.parseCommand(c.args, append(outers, c.def)...)
}

func checkVarName(p *parser, c *command, outers []*cmd) {
	s, ok := p.literalArg(c, 0, "the variable name")
	if ok && !isIdent(s) {
		p.errorf(c.args[0].col, "invalid variable name %q: use letters, digits and _, starting with a letter", s)
	}
}

func checkSetVar(p *parser, c *command, outers []*cmd) {
	checkVarName(p, c, outers)
	s, ok := p.literalArg(c, 1, "the path")
	if !ok {
		return
	}
	if s == "rawResponse" {
		c.raw = true
		return
	}
	path, err := parsePath(s)
	if err != nil {
		p.errorf(c.args[1].col, "%v", err)
		return
	}
	c.path = path
}

func checkNumbers(p *parser, c *command, outers []*cmd) {
	for i := range c.args {
		if s, ok := c.args[i].literal(); ok {
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				p.errorf(c.args[i].col, "%s compares numbers; %q is not a number", c.def.name, s)
				return
			}
		}
	}
}

func checkLength(p *parser, c *command, outers []*cmd) {
	lo, ok1 := p.literalInt(c, 1, "MIN", 0, 1<<31-1)
	hi, ok2 := p.literalInt(c, 2, "MAX", 0, 1<<31-1)
	if ok1 && ok2 && lo > hi {
		p.errorf(c.args[1].col, "MIN (%d) is greater than MAX (%d)", lo, hi)
	}
}

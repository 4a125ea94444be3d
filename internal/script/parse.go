package script

import (
	"bytes"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/text/suggest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Script is a parsed .mcp file: its steps in line order (NumSteps, Step,
// Steps).
type Script struct {
	Name string // the file name given to ParseFile, used in reports
	// Sampling is set when the script answers requests for a model reply
	// (sample_response): its session declares sampling.
	Sampling bool
	// Roots are the roots its roots lines declare; nil: none (its session
	// declares no roots).
	Roots []*mcp.Root //lint:ignore SA1019 roots are deprecated but still answered
	// steps are where the steps are written, one per command line.
	steps []stepAt
	// lines are the script's lines, which its steps are parsed from again
	// when they run (see command): the text parsed, held once.
	lines lineIndex
	// src is the text parsed, with its byte order mark, which Update
	// rewrites; lines hold the same text.
	src string
}

// stepAt is where a step is written: its line, the column of its
// command's name, where its text ends on that line and which command it
// is (its index in commandList). It holds no pointer: a script of
// thousands of steps is one block the garbage collector need not look
// into at each cycle of a long run, and Step makes the strings from the
// text the script holds anyway.
type stepAt struct {
	line, col, end int32
	cmd            uint16
}

// NumSteps is the number of steps: one per command line.
func (s *Script) NumSteps() int { return len(s.steps) }

// Step returns step i, for 0 <= i < NumSteps; its strings are the
// script's own text, so it allocates nothing.
func (s *Script) Step(i int) Step {
	at := s.steps[i]
	line := strings.TrimSuffix(s.lines.at(int(at.line)-1), "\r")
	return Step{Line: int(at.line), Col: int(at.col), Command: commandList[at.cmd].name, Text: strings.TrimSpace(line[:at.end])}
}

// Steps yields each step with its index, in line order.
func (s *Script) Steps() iter.Seq2[int, Step] {
	return func(yield func(int, Step) bool) {
		for i := range s.steps {
			if !yield(i, s.Step(i)) {
				return
			}
		}
	}
}

// lineIndex is a text and where each of its lines starts: each line taken
// when it is read, not kept as a string of its own (a pointer each, which
// the collector would follow at every cycle of a long run).
type lineIndex struct {
	text   string
	starts []int // the offset of each line in text
}

func newLineIndex(text string) lineIndex {
	x := lineIndex{text: text, starts: make([]int, 1, strings.Count(text, "\n")+1)}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			x.starts = append(x.starts, i+1)
		}
	}
	return x
}

// len is the number of lines, as strings.Split(text, "\n") counts them.
func (x lineIndex) len() int { return len(x.starts) }

// at is line i (0-based), without its newline.
func (x lineIndex) at(i int) string {
	end := len(x.text)
	if i+1 < len(x.starts) {
		end = x.starts[i+1] - 1
	}
	return x.text[x.starts[i]:end]
}

// Step is one command line of a script.
type Step struct {
	Line    int    // 1-based line number
	Col     int    // 1-based column of the command name
	Command string // the command name, e.g. "call_tool"
	Text    string // the command as written, without its comment
}

// command parses the line of st again, as ParseFile did, for the runner
// to run: a script holds its steps as the lines they are written on, not
// as parsed commands (a few hundred bytes each, with their tokens), so that
// a long script costs the garbage collector little for as long as it runs.
// The command is parsed into p's room, which the last command parsed with
// p was in: it lives until the next. The line parsed without error
// before; an error now would be a bug, and is returned as one.
func (s *Script) command(p *parser, st Step) (*command, error) {
	if st.Line < 1 || st.Line > s.lines.len() {
		return nil, fmt.Errorf("line %d is not in %s", st.Line, s.Name)
	}
	p.file, p.lines, p.line, p.next, p.replay, p.errs, p.failed = s.Name, s.lines, st.Line, st.Line, true, nil, false
	_, c := p.parseLine(strings.TrimSuffix(s.lines.at(st.Line-1), "\r"))
	if c == nil || len(p.errs) > 0 {
		return nil, fmt.Errorf("line %d of %s does not parse again: %v", st.Line, s.Name, p.errs)
	}
	return c, nil
}

// command is a parsed command with its arguments checked.
type command struct {
	def  *cmd // what the command is
	line int  // the script line, which queued answers name
	col  int
	args []token
	sub  *command // the command run by expect_error and timeout

	answer *answerArg     // elicit_response
	filter *filter        // assert_elicited, assert_not_elicited
	n      int64          // assert_elicited_count, assert_error_code
	limit  time.Duration  // timeout
	path   []string       // set_var; nil with raw set for rawResponse
	raw    bool           // set_var NAME rawResponse
	sample *answer.Sample // sample_response
	expect *expectation   // assert_json, assert_question
	// expected: expect_error wraps the command (call_tool, start_tool).
	expected bool
}

// bom is the byte order mark a script may start with, which the parser
// skips.
const bom = "\xef\xbb\xbf"

// maxLineLen bounds a script line so that parsing stays cheap on any input.
const maxLineLen = 1 << 16

// ParseFile parses the script src named name (the name appears in errors and
// reports). Syntax errors are returned together as SyntaxErrors, each as
// FILE:LINE:COL: message; nothing of a script with errors should run.
func ParseFile(name string, src []byte) (*Script, error) {
	p := &parser{file: name, vars: map[string]bool{}}
	if n := bytes.Count(src, []byte("\n")) + 1; n > math.MaxInt32 { // a step keeps its line as an int32
		return nil, SyntaxErrors{{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("the script has %d lines, more than %d", n, math.MaxInt32)}}
	}
	s := &Script{Name: name, src: string(src)}
	p.lines = newLineIndex(strings.TrimPrefix(s.src, bom))
	for p.next < p.lines.len() {
		if len(p.errs) >= maxSyntaxErrors {
			break
		}
		p.line = p.next + 1
		p.next++
		if st, c := p.parseLine(strings.TrimSuffix(p.lines.at(p.line-1), "\r")); c != nil {
			s.steps = append(s.steps, st)
		}
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	s.steps = slices.Clone(s.steps) // held for as long as the script runs: no room to spare
	s.Sampling, s.Roots, s.lines = p.sampling, p.roots, p.lines
	return s, nil
}

// parser holds the state of one file: the current line, the variables set
// by earlier lines and the errors so far.
type parser struct {
	file   string
	line   int
	vars   map[string]bool
	errs   SyntaxErrors
	failed bool // the current line has an error
	lines  lineIndex
	next   int // index of the next line to parse; a here-document moves it on
	// sampling and roots: what the script's session must declare.
	sampling bool
	roots    []*mcp.Root //lint:ignore SA1019 roots are deprecated but still answered
	// replay: the line is parsed again to run it (Script.command); it
	// parsed without error before, with the variables of the lines above.
	replay bool
	// lex and cmd are the room a line is parsed into, reused by the next:
	// the lexer's tokens and segments, and the command (not the commands
	// it wraps). Nothing parsed from a line is kept once the next is
	// parsed: ParseFile keeps a Step (strings of the line), the runner
	// runs the command before it parses the next line.
	lex lexer
	cmd command
}

// Bounds of a here-document.
const (
	maxHeredocLines = 10000
	maxHeredocBytes = 1 << 20
)

// heredoc replaces a last argument <<MARKER by the lines that follow, up to
// a line that is MARKER alone, as the earlier mcp-tester did: the lines are
// one value, taken as written (no comments, no variables).
func (p *parser) heredoc(toks []token) {
	last := &toks[len(toks)-1]
	s, ok := last.literal()
	if last.kind != bareToken || !ok || !strings.HasPrefix(s, "<<") || !isIdent(s[2:]) {
		return
	}
	marker, start := s[2:], p.line
	var body []string
	size := 0
	for p.next < p.lines.len() {
		l := strings.TrimSuffix(p.lines.at(p.next), "\r")
		p.next++
		if strings.TrimSpace(l) == marker {
			last.kind, last.segs = singleToken, []segment{{text: strings.Join(body, "\n")}}
			last.heredoc = &heredocSpan{first: start, count: len(body), marker: marker}
			return
		}
		size += len(l) + 1
		if len(body) >= maxHeredocLines || size > maxHeredocBytes {
			p.errorf(last.col, "the here-document <<%s is longer than %d lines or %d bytes", marker, maxHeredocLines, maxHeredocBytes)
			return
		}
		body = append(body, l)
	}
	p.line = start
	p.errorf(last.col, "the here-document <<%s has no end: add a line that is %s alone", marker, marker)
}

func (p *parser) errorf(col int, format string, args ...any) {
	if p.failed {
		return // one error per line: later ones are usually consequences
	}
	p.failed = true
	p.errs = append(p.errs, &SyntaxError{File: p.file, Line: p.line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// parseLine parses line, the script's line p.line, into c (nil: the
// line has no command, or an error), and says where its step is written.
// Parsed again to run (p.replay), only c is made.
func (p *parser) parseLine(line string) (st stepAt, c *command) {
	p.failed = false
	if len(line) > maxLineLen {
		p.errorf(1, "line is longer than %d bytes", maxLineLen)
		return st, nil
	}
	lx := &p.lex
	*lx = lexer{line: line, toks: lx.toks, arena: lx.arena[:0], checked: p.replay}
	toks, lerr := lx.tokens()
	if lerr != nil {
		p.errorf(lx.colAt(lerr.pos), "%s", lerr.msg)
		return st, nil
	}
	if len(toks) == 0 {
		return st, nil
	}
	line0 := p.line
	p.heredoc(toks)
	if p.failed {
		return st, nil
	}
	c = p.parseCommand(toks)
	if p.failed {
		return st, nil
	}
	if p.replay {
		return st, c
	}
	p.checkVars(c)
	if p.failed {
		return st, nil
	}
	if c.def.setsVar {
		name, _ := c.args[0].literal()
		p.vars[name] = true
	}
	return stepAt{line: int32(line0), col: int32(c.col), end: int32(lx.pos), cmd: c.def.index}, c
}

// checkVars reports a variable used before any line sets it.
func (p *parser) checkVars(c *command) {
	for ; c != nil; c = c.sub {
		for _, t := range c.args {
			for _, s := range t.segs {
				if s.name != "" && !p.vars[s.name] {
					p.errorf(s.col, "variable $%s is not set by an earlier line; set it with set_var or input_var, or write \\$ for a literal $", s.name)
					return
				}
			}
		}
	}
}

// parseCommand parses toks as a command; outers are the commands wrapping
// it (expect_error, timeout), innermost last.
func (p *parser) parseCommand(toks []token, outers ...*cmd) *command {
	first := toks[0]
	name, ok := first.literal()
	if first.kind != bareToken || first.key != "" || !ok {
		p.errorf(first.col, "expected a command name, found %s; see docs/scripts.md for the commands", describeKind(first.kind))
		return nil
	}
	def, ok := commands[name]
	if !ok {
		p.unknownCommand(first.col, name)
		return nil
	}
	c := &p.cmd
	if len(outers) > 0 {
		c = new(command)
	}
	*c = command{def: def, line: p.line, col: first.col, args: toks[1:]}
	if !def.named {
		for i, t := range c.args {
			c.args[i] = t.unkeyed()
		}
	}
	if !p.checkOuters(first.col, def, outers) || !p.checkArgCount(c) {
		return nil
	}
	if def.check != nil {
		def.check(p, c, outers)
	}
	return c
}

// unknownCommand reports name, at column col, as no command, with the one
// it likely meant.
func (p *parser) unknownCommand(col int, name string) {
	msg := fmt.Sprintf("unknown command %q", name)
	if hint, ok := suggest.Closest(name, commandNames()); ok {
		msg += fmt.Sprintf("; did you mean %q?", hint)
	} else {
		msg += "; see docs/scripts.md for the commands"
	}
	p.errorf(col, "%s", msg)
}

// checkOuters reports whether def (at column col) may be wrapped by the
// commands outers, innermost last.
func (p *parser) checkOuters(col int, def *cmd, outers []*cmd) bool {
	if n := len(outers); n > 0 && !outers[n-1].wraps(def) {
		outer := outers[n-1]
		p.errorf(col, "%s cannot wrap %s; it wraps %s", outer.name, def.name, commandsWhere(outer.wraps, "and"))
		return false
	}
	if slices.Contains(outers, def) {
		p.errorf(col, "%s inside %s has no meaning", def.name, def.name)
		return false
	}
	return true
}

// checkArgCount reports whether c has as many arguments as its command
// takes.
func (p *parser) checkArgCount(c *command) bool {
	def := c.def
	if len(c.args) >= def.min && (def.max < 0 || len(c.args) <= def.max) {
		return true
	}
	col := c.col
	if len(c.args) > 0 && def.max >= 0 && len(c.args) > def.max {
		col = c.args[def.max].col
	}
	p.errorf(col, "%s takes %s; usage: %s", def.name, argCount(def.min, def.max), def.usage)
	return false
}

func argCount(lo, hi int) string {
	switch {
	case hi < 0:
		return fmt.Sprintf("at least %d argument%s", lo, plural(lo))
	case lo == hi:
		return fmt.Sprintf("%d argument%s", lo, plural(lo))
	default:
		return fmt.Sprintf("%d to %d arguments", lo, hi)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// unkeyed turns a key:value token back into one value, for commands that
// take no named arguments.
func (t token) unkeyed() token {
	t.slashKey = ""
	if t.key == "" {
		return t
	}
	segs := append([]segment{{text: t.key + ":"}}, t.segs...)
	t.segs, t.key = mergeText(segs), ""
	return t
}

func mergeText(segs []segment) []segment {
	var out []segment
	for _, s := range segs {
		if n := len(out); n > 0 && s.name == "" && out[n-1].name == "" {
			out[n-1].text += s.text
			continue
		}
		out = append(out, s)
	}
	return out
}

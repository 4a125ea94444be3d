package script

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askback/askback/internal/encoding/strictjson"
)

// tokenKind tells how a token was written, which decides how its value is
// read: variables are substituted in bare words and double-quoted strings only.
type tokenKind int

const (
	bareToken   tokenKind = iota // a word up to the next space
	doubleToken                  // "text with \n escapes and $vars"
	singleToken                  // 'literal text, no escapes, no $vars'
	jsonToken                    // {"a": 1} or [1, 2], written bare
)

// segment is a piece of a token's value: literal text or a variable reference.
type segment struct {
	text string // literal text, when name is empty
	name string // variable name
	col  int    // column of the $ of a variable reference
}

// token is one argument of a command line.
type token struct {
	col  int       // 1-based column (in characters) where the token starts
	kind tokenKind // how the value was written
	key  string    // for key:value arguments, the key
	segs []segment // the value
	// slashKey is, for a bare word key:/VALUE (a path, or a URL such as
	// http://host), the key it may name. The word is kept whole, as a
	// value; call_tool and start_tool decide by the tool's input schema
	// which it is (slashArg), get_prompt takes it as named.
	slashKey string
	// start and end are the byte offsets of the token in its line (the
	// value's start is after key:), which an update rewrites.
	start, end int
	// heredoc is set for a here-document: the lines of its body.
	heredoc *heredocSpan
}

// heredocSpan is where the body of a here-document is: lines first to
// first+count-1 (0-based lines of the file).
type heredocSpan struct {
	first, count int
	marker       string
}

// literal reports the value of a token without variables, and whether the
// token has none.
func (t token) literal() (string, bool) {
	if len(t.segs) == 1 && t.segs[0].name == "" {
		return t.segs[0].text, true // most tokens: one piece of text
	}
	var b strings.Builder
	for _, s := range t.segs {
		if s.name != "" {
			return "", false
		}
		b.WriteString(s.text)
	}
	return b.String(), true
}

// value substitutes the variables of vars into the token's value.
func (t token) value(vars map[string]string) (string, error) {
	if len(t.segs) == 1 && t.segs[0].name == "" {
		return t.segs[0].text, nil // no variable: the text as it is
	}
	var b strings.Builder
	for _, s := range t.segs {
		if s.name == "" {
			b.WriteString(s.text)
			continue
		}
		v, ok := vars[s.name]
		if !ok {
			return "", fmt.Errorf("column %d: variable $%s is not set (set it with set_var or input_var first)", s.col, s.name)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// lexer splits one line into tokens.
type lexer struct {
	line string
	pos  int // byte offset
	// toks and arena are room reused from line to line (see
	// parser.lexer): the tokens of the line, and their segments. What the
	// parser keeps of a line is never a token or a segment slice, so the
	// next line may write over them.
	toks  []token
	arena []segment
	// checked: the line lexed without error before (a step's line lexed
	// again to run it), so its JSON values are not validated again: they
	// were, and the runner decodes them when it uses them.
	checked bool
}

// colAt turns a byte offset of the line into a 1-based character column.
func (l *lexer) colAt(i int) int { return utf8.RuneCountInString(l.line[:i]) + 1 }

// lexError is a syntax error at a byte offset of the line.
type lexError struct {
	pos int
	msg string
}

func (l *lexer) fail(pos int, format string, args ...any) *lexError {
	return &lexError{pos: pos, msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

// tokens lexes the whole line, stopping at a comment.
func (l *lexer) tokens() ([]token, *lexError) {
	toks := l.toks[:0]
	for {
		for l.pos < len(l.line) && isSpace(l.line[l.pos]) {
			l.pos++
		}
		if l.pos >= len(l.line) || l.commentAt(l.pos) {
			l.toks = toks
			return toks, nil
		}
		t, err := l.token()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
	}
}

// commentAt reports whether a comment starts at byte offset i, which is the
// start of a token.
func (l *lexer) commentAt(i int) bool {
	return l.line[i] == '#' || strings.HasPrefix(l.line[i:], "//")
}

// token lexes one token starting at l.pos.
func (l *lexer) token() (token, *lexError) {
	start := l.pos
	t := token{col: l.colAt(start)}
	key, n := namedPrefix(l.line[start:])
	if n > 0 && strings.HasPrefix(l.line[start+n:], "/") {
		t.slashKey, n = key, 0 // key:/VALUE: one word, its meaning decided later
	}
	if n > 0 {
		t.key = key
		l.pos += n
		if l.pos >= len(l.line) || isSpace(l.line[l.pos]) {
			return t, l.fail(start, "argument %s: has no value; write %s:VALUE (quote an empty value: %s:\"\")", key, key, key)
		}
	}
	t.start = l.pos
	if err := l.value(&t); err != nil {
		return t, err
	}
	t.end = l.pos
	if t.slashKey != "" && t.kind != bareToken {
		t.slashKey = ""
	}
	if l.pos < len(l.line) && !isSpace(l.line[l.pos]) {
		return t, l.fail(l.pos, "unexpected %q right after %s; separate arguments with a space", l.line[l.pos], describeKind(t.kind))
	}
	return t, nil
}

func describeKind(k tokenKind) string {
	switch k {
	case doubleToken, singleToken:
		return "a quoted string"
	case jsonToken:
		return "a JSON value"
	}
	return "a word"
}

// namedPrefix recognizes "key:" at the start of s, where key is an
// identifier (with = allowed after the first character, for
// elicit_response KEY=accept:{...}). It returns the key and the prefix
// length.
func namedPrefix(s string) (string, int) {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] == '-' || s[i] == '.' || isLetter(s[i]) || (i > 0 && (isDigit(s[i]) || s[i] == '='))) {
		i++
	}
	if i == 0 || !isLetter(s[0]) && s[0] != '_' || i >= len(s) || s[i] != ':' {
		return "", 0
	}
	return s[:i], i + 1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// value lexes the value part of a token at l.pos.
func (l *lexer) value(t *token) *lexError {
	switch c := l.line[l.pos]; {
	case c == '"':
		t.kind = doubleToken
		return l.double(t)
	case c == '\'':
		t.kind = singleToken
		end := strings.IndexByte(l.line[l.pos+1:], '\'')
		if end < 0 {
			return l.fail(l.pos, "unterminated string: add the closing '")
		}
		t.segs = l.appendSeg(nil, segment{text: l.line[l.pos+1 : l.pos+1+end]})
		l.pos += end + 2
		return nil
	case c == '{' || c == '[':
		t.kind = jsonToken
		return l.json(t)
	default:
		t.kind = bareToken
		return l.bare(t)
	}
}

// bare lexes a word up to the next space; $name and ${name} are variables.
// A word has no escapes: its text is taken from the line as it is, without
// a copy.
func (l *lexer) bare(t *token) *lexError {
	lit := l.pos // where the literal text not yet in a segment starts
	for l.pos < len(l.line) && !isSpace(l.line[l.pos]) {
		c := l.line[l.pos]
		switch c {
		case '"', '\'':
			return l.fail(l.pos, "unexpected %c inside a word; quote the whole value or put a space before it", c)
		case '$':
			name, n, err := l.variable()
			if err != nil {
				return err
			}
			if n > 0 {
				t.segs = l.appendText(t.segs, l.line[lit:l.pos])
				t.segs = l.appendSeg(t.segs, segment{name: name, col: l.colAt(l.pos)})
				l.pos += n
				lit = l.pos
				continue
			}
		}
		l.pos++
	}
	t.segs = l.appendText(t.segs, l.line[lit:l.pos])
	return nil
}

func (l *lexer) appendText(segs []segment, s string) []segment {
	if s == "" && len(segs) > 0 {
		return segs
	}
	return l.appendSeg(segs, segment{text: s})
}

// appendSeg appends s to segs. A token's first segment (most tokens have
// one) goes into the lexer's arena instead of a slice of its own; the
// slice returned has no room beyond it, so that a second segment is
// appended to a copy and never over the next token's.
func (l *lexer) appendSeg(segs []segment, s segment) []segment {
	if len(segs) > 0 {
		return append(segs, s)
	}
	if len(l.arena) == cap(l.arena) {
		l.arena = make([]segment, 0, max(16, 2*cap(l.arena)))
	}
	i := len(l.arena)
	l.arena = append(l.arena, s)
	return l.arena[i : i+1 : i+1]
}

// variable recognizes $name or ${name} at l.pos. n is 0 when the $ starts no
// variable (it is then a literal $).
func (l *lexer) variable() (name string, n int, err *lexError) {
	s := l.line[l.pos+1:]
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", 0, l.fail(l.pos, "unterminated ${: add the closing }")
		}
		name = s[1:end]
		if !isIdent(name) {
			return "", 0, l.fail(l.pos, "invalid variable name %q: use letters, digits and _", name)
		}
		return name, end + 2, nil
	}
	i := 0
	for i < len(s) && (s[i] == '_' || isLetter(s[i]) || (i > 0 && isDigit(s[i]))) {
		i++
	}
	if i == 0 {
		return "", 0, nil
	}
	return s[:i], i + 1, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || isLetter(c) || (i > 0 && isDigit(c))) {
			return false
		}
	}
	return true
}

// double lexes a double-quoted string with escapes and variables. Text
// without escapes is taken from the line as it is; only text with an
// escape is copied.
func (l *lexer) double(t *token) *lexError {
	open := l.pos
	l.pos++
	lit := l.pos            // where the literal text not yet in a segment starts
	var esc []byte          // that text decoded, once it has had an escape
	text := func() string { // the literal text up to l.pos
		if esc == nil {
			return l.line[lit:l.pos]
		}
		return string(append(esc, l.line[lit:l.pos]...))
	}
	for l.pos < len(l.line) {
		c := l.line[l.pos]
		switch c {
		case '"':
			t.segs = l.appendText(t.segs, text())
			l.pos++
			if len(t.segs) == 0 {
				t.segs = l.appendSeg(nil, segment{})
			}
			return nil
		case '\\':
			if l.pos+1 >= len(l.line) {
				return l.fail(l.pos, "unterminated string: add the closing \"")
			}
			r, n, err := l.escape()
			if err != nil {
				return err
			}
			esc = append(append(esc, l.line[lit:l.pos]...), r...)
			l.pos += n
			lit = l.pos
			continue
		case '$':
			name, n, err := l.variable()
			if err != nil {
				return err
			}
			if n > 0 {
				t.segs = l.appendText(t.segs, text())
				esc = nil
				t.segs = l.appendSeg(t.segs, segment{name: name, col: l.colAt(l.pos)})
				l.pos += n
				lit = l.pos
				continue
			}
		}
		l.pos++
	}
	return l.fail(open, "unterminated string: add the closing \"")
}

// escape decodes the escape sequence at l.pos (a backslash).
func (l *lexer) escape() (string, int, *lexError) {
	switch c := l.line[l.pos+1]; c {
	case '"', '\\', '$', '\'':
		return string(c), 2, nil
	case 'n':
		return "\n", 2, nil
	case 't':
		return "\t", 2, nil
	case 'r':
		return "\r", 2, nil
	case 'u':
		if l.pos+6 > len(l.line) {
			return "", 0, l.fail(l.pos, `invalid escape: \u needs four hex digits`)
		}
		v, err := strconv.ParseUint(l.line[l.pos+2:l.pos+6], 16, 32)
		if err != nil {
			return "", 0, l.fail(l.pos, `invalid escape: \u needs four hex digits`)
		}
		return string(rune(v)), 6, nil
	default:
		return "", 0, l.fail(l.pos, `invalid escape \%c: use \", \\, \$, \n, \t, \r or \uXXXX`, c)
	}
}

// json lexes a bare JSON object or array: up to the matching bracket,
// skipping brackets inside JSON strings.
func (l *lexer) json(t *token) *lexError {
	start := l.pos
	depth, inString := 0, false
	for i := start; i < len(l.line); i++ {
		c := l.line[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				raw := l.line[start : i+1]
				if !l.checked {
					if err := checkJSON(raw); err != nil {
						return l.fail(start, "invalid JSON: %v", err)
					}
				}
				t.segs = l.appendSeg(nil, segment{text: raw})
				l.pos = i + 1
				return nil
			}
		}
	}
	return l.fail(start, "unterminated JSON value: add the closing bracket")
}

// checkJSON validates a JSON text and describes the first problem; a key
// written twice in one object is one (it would be read as its last value).
func checkJSON(raw string) error {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return err
	}
	return strictjson.CheckRepeats([]byte(raw))
}

// named returns a key:/VALUE word as the argument key = /VALUE.
func (t token) named() token {
	if t.slashKey == "" {
		return t
	}
	segs := slices.Clone(t.segs)
	segs[0].text = strings.TrimPrefix(segs[0].text, t.slashKey+":")
	t.key, t.segs, t.slashKey = t.slashKey, segs, ""
	return t
}

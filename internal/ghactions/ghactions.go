// Package ghactions writes GitHub Actions workflow commands: the
// annotations (::error file=…,line=…::message) that a workflow run shows
// on the lines of a pull request, and a guard for text that goes to the
// same output, so that no line a server wrote can pass for a command of
// ours.
package ghactions

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/termsafe"
)

// Level is an annotation's kind.
type Level string

// The annotations GitHub Actions shows.
const (
	Error   Level = "error"
	Warning Level = "warning"
	Notice  Level = "notice"
)

// Annotation is one annotation: where (File relative to the repository
// root, Line and Column from 1, 0 when unknown), a Title and the Message.
type Annotation struct {
	Level        Level
	File         string
	Line, Column int
	Title        string
	Message      string
}

// String is the workflow command, one line: its values escaped as GitHub
// Actions reads them (% and line breaks in the message; also : and , in
// the properties), control and invisible characters shown as escapes
// (internal/termsafe).
func (a Annotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+property(a.File))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
			if a.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", a.Column))
			}
		}
	}
	if a.Title != "" {
		props = append(props, "title="+property(a.Title))
	}
	level := a.Level
	if level != Warning && level != Notice {
		level = Error
	}
	cmd := "::" + string(level)
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + data(a.Message)
}

// data escapes a command's message.
func data(s string) string {
	s = termsafe.Block(s)
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// property escapes a command's property value.
func property(s string) string {
	s = termsafe.Line(s)
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Guard returns a writer that passes text to w defused for the GitHub
// Actions runner, which reads every line of a step's output for workflow
// commands: a line that starts with "::" after white space (any Unicode
// white space, as the runner trims it) is prefixed with "| ", and the
// legacy form "##[", which the runner reads anywhere in a line, is
// written "##\[". A server's text printed in a report thus cannot write
// an annotation, mask a value or stop the reading of commands. The
// annotations themselves go to w directly. White space and a colon that
// begin a line are held until the line shows what it is: text written
// through it ends with a newline.
func Guard(w io.Writer) io.Writer { return &guard{w: w, start: true} }

type guard struct {
	w      io.Writer
	start  bool // the next byte starts a line
	head   []byte
	hashes int // the "#" just written, on this line
}

// lineEnd reports whether c ends a line for the runner, which reads lines
// ended by \n, \r or both.
func lineEnd(c byte) bool { return c == '\n' || c == '\r' }

// leadingSpace is the white space the runner trims before "::".
func leadingSpace(r rune) bool { return r != '\n' && r != '\r' && unicode.IsSpace(r) }

func (g *guard) Write(p []byte) (int, error) {
	var out bytes.Buffer
	for _, c := range p {
		if !g.start {
			g.body(&out, c)
			continue
		}
		// At the start of a line: hold the leading white space and what
		// may begin "::" until it is decided.
		g.head = append(g.head, c)
		trimmed := bytes.TrimLeftFunc(g.head, leadingSpace)
		switch {
		case lineEnd(c):
		case len(trimmed) == 0, !utf8.FullRune(trimmed):
			continue
		case len(trimmed) == 1 && trimmed[0] == ':':
			continue
		case len(trimmed) >= 2 && trimmed[0] == ':' && trimmed[1] == ':':
			out.WriteString("| ")
		}
		head := g.head
		g.head = nil
		g.start = false
		for _, h := range head {
			g.body(&out, h)
		}
	}
	if _, err := g.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// body writes c, a byte of a line past its start.
func (g *guard) body(out *bytes.Buffer, c byte) {
	switch {
	case c == '[' && g.hashes >= 2:
		out.WriteByte('\\')
	case lineEnd(c):
		g.start = true
	}
	if c == '#' {
		g.hashes++
	} else {
		g.hashes = 0
	}
	out.WriteByte(c)
}

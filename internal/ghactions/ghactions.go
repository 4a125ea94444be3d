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

// Guard returns a writer that passes text to w with every line that GitHub
// Actions would read as a workflow command (one that starts with "::",
// after spaces) prefixed with "| ": a server's text printed in a report
// cannot write an annotation, mask a value or stop the reading of
// commands. The annotations themselves go to w directly. Spaces and a
// colon that begin a line are held until the line shows what it is: text
// written through it ends with a newline.
func Guard(w io.Writer) io.Writer { return &guard{w: w, start: true} }

type guard struct {
	w     io.Writer
	start bool // the next byte starts a line
	head  []byte
}

func (g *guard) Write(p []byte) (int, error) {
	var out bytes.Buffer
	for _, c := range p {
		if !g.start {
			out.WriteByte(c)
			if c == '\n' {
				g.start = true
			}
			continue
		}
		// At the start of a line: hold the leading spaces and what may
		// begin "::" until it is decided.
		g.head = append(g.head, c)
		trimmed := bytes.TrimLeft(g.head, " \t")
		switch {
		case len(trimmed) == 0:
			continue
		case len(trimmed) == 1 && trimmed[0] == ':':
			continue
		case len(trimmed) >= 2 && trimmed[0] == ':' && trimmed[1] == ':':
			out.WriteString("| ")
		}
		out.Write(g.head)
		g.head = g.head[:0]
		g.start = c == '\n'
	}
	if _, err := g.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

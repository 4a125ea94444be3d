// Package ghactions writes GitHub Actions workflow commands: the
// annotations (::error file=…,line=…::message) that a workflow run shows
// on the lines of a pull request. Server text on the same output is
// defused by the guard of stdout (internal/text/termsafe's Writer); these
// commands go out past it (iostreams.IOStreams.WorkflowCommands).
package ghactions

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
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
// (internal/text/termsafe), and "##[" written "##\[".
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

// data escapes a command's message. The "[" of "##[" (the legacy form of a
// command), "##vso[" and "##teamcity[" is written "\[", as on the rest of
// the output.
func data(s string) string {
	s = termsafe.Block(s)
	return termsafe.DefuseCommands(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// property escapes a command's property value.
func property(s string) string {
	s = termsafe.Line(s)
	return termsafe.DefuseCommands(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}

// Package report is the one way a command emits its report: the names
// --format takes and their validation (Choice), the rendering each name
// picks (Emit, from a command's Writers), and the report files a flag
// names (--junit, --html) written whole or not at all (WriteFile, through
// internal/platform/outfile: a symbolic link is refused, a failed write leaves the
// file as it was).
package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/report/ghactions"
	"github.com/askback/askback/internal/report/sarif"
)

// The formats a command prints on stdout.
const (
	Text     = "text"     // for a person
	JSON     = "json"     // one JSON document
	SARIF    = "sarif"    // a SARIF log, for code scanning
	Markdown = "markdown" // for a pull request's comment
	GitHub   = "github"   // the text, then a GitHub Actions annotation per finding
)

// FileMode is the mode of a report file: a report holds no answer given
// (secrets in it are hidden), so others may read it.
const FileMode = 0o644

// Choice is the value of a --format flag that takes one of choices,
// refusing any other with the list.
type Choice struct {
	p       *string
	choices []string
}

// NewChoice returns the flag value that sets *p to one of choices, and
// sets *p to the first, the default.
func NewChoice(p *string, choices ...string) Choice {
	*p = choices[0]
	return Choice{p: p, choices: choices}
}

// String returns the format chosen.
func (c Choice) String() string {
	if c.p == nil {
		return ""
	}
	return *c.p
}

// Type lists the choices, as a flag's usage shows them.
func (c Choice) Type() string { return strings.Join(c.choices, "|") }

// Set chooses s, or says which formats there are.
func (c Choice) Set(s string) error {
	if !slices.Contains(c.choices, s) {
		return fmt.Errorf("%q: use %s", s, OrList(c.choices))
	}
	*c.p = s
	return nil
}

// OrList is "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Writers are the renderings of one report; a nil one is a format the
// command does not print (or, for Text, prints as it runs).
type Writers struct {
	Text     func(io.Writer) error
	JSON     func(io.Writer) error
	Markdown func(io.Writer) error
	// SARIF is the report as code scanning reads it, its results shown
	// at At where they have no file of their own.
	SARIF SARIFReport
	At    sarif.Anchor
	// Annotations are what --format github adds after the text.
	Annotations func() []ghactions.Annotation
}

// Out is where Emit writes: Out is stdout (behind its guard, so no line a
// server wrote reads as a workflow command), Workflow the same stream past
// the guard, for the annotations, which are the tester's own; Tool is the
// tester as a SARIF run names it.
type Out struct {
	Out, Workflow io.Writer
	Tool          sarif.Tool
}

// Emit writes the report in format to o: the text for text (and any
// format the command has no writer for), then, for github, an annotation
// a line.
func Emit(o Out, format string, ws Writers) error {
	switch {
	case format == JSON && ws.JSON != nil:
		return ws.JSON(o.Out)
	case format == SARIF && ws.SARIF != nil:
		return WriteSARIF(o.Out, ws.SARIF.SARIF(o.Tool, ws.At))
	case format == Markdown && ws.Markdown != nil:
		return ws.Markdown(o.Out)
	}
	if ws.Text != nil {
		if err := ws.Text(o.Out); err != nil {
			return err
		}
	}
	if format == GitHub && ws.Annotations != nil {
		return writeAnnotations(o.Workflow, ws.Annotations())
	}
	return nil
}

// writeAnnotations writes the annotations to w, one a line.
func writeAnnotations(w io.Writer, annotations []ghactions.Annotation) error {
	for _, a := range annotations {
		if _, err := fmt.Fprintln(w, a); err != nil {
			return err
		}
	}
	return nil
}

// SARIFReport is a report that code scanning reads: the one shape of
// every command's SARIF (audit, inspect, grade, scan, catalog diff,
// test), which Emit writes through WriteSARIF.
type SARIFReport interface {
	// SARIF returns the report as a SARIF run of tool, the results that
	// have no file of their own shown at at.
	SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run
}

// Incomplete is r with its run marked not successful for why (a server
// that could not be read whole); r itself when why is "".
func Incomplete(r SARIFReport, why string) SARIFReport {
	if why == "" {
		return r
	}
	return incomplete{r, why}
}

type incomplete struct {
	SARIFReport
	why string
}

func (r incomplete) SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run {
	run := r.SARIFReport.SARIF(tool, at)
	run.Failed = r.why
	return run
}

// WriteSARIF writes a SARIF log of the one run to w: the one way a report
// becomes SARIF.
func WriteSARIF(w io.Writer, run *sarif.Run) error {
	return (&sarif.Log{Runs: []*sarif.Run{run}}).Write(w)
}

// WriteFile writes the report that write draws to path, whole or not at
// all, with the secrets hide hides hidden: a report that fails half-way
// leaves the file as it was, and a reader never sees half a report. The
// error names flag. An empty path writes nothing.
func WriteFile(flag, path string, hide func(string) string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	data := b.Bytes()
	if hide != nil {
		data = []byte(hide(b.String()))
	}
	if err := outfile.Write(path, data, FileMode); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

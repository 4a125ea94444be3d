package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/text/termsafe"
)

// foldShown is how many subjects a folded line names before it says how
// many more there are; the JSON report has every one.
const foldShown = 20

// WriteText renders the report as one table per subject that asks, the
// evidence of every failure under its table, and the score. Subjects with
// no table to show are folded: every one that asks nothing into one line,
// and the skipped ones into a line per reason. What the server sent (its
// name, notes and evidence quoting it) is neutralised and kept on its line
// (see internal/text/termsafe), so it can neither drive the terminal nor
// forge a line of the report.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	name := termsafe.ServerName(r.Server, "")
	ew.printf("audit of %s at %s, protocol %s\n", name, termsafe.Line(r.Target), termsafe.Line(r.Protocol))
	if line := r.DeclaredLine(); line != "" {
		ew.printf("  %s\n", line)
	}
	fold := r.Fold()
	for _, s := range fold.Shown {
		writeSubject(ew, s)
	}
	quiet, skips := fold.AsksNothing, fold.Skipped
	if len(quiet) > 0 || len(skips) > 0 {
		ew.printf("\n")
	}
	if len(quiet) > 0 {
		ew.printf("%s\n", asksNothingLine(quiet))
		// Said once: with nothing checked, the score line says it.
		if line := r.MadeUpLine(quiet); line != "" && !strings.Contains(r.NothingChecked(), r.argsHint()) {
			ew.printf("  %s\n", line)
		}
	}
	for _, g := range skips {
		ew.printf("%s\n", skipLine(g))
	}
	if len(r.Unprobed) > 0 {
		ew.printf("\nincomplete: these probes could not connect:\n")
		for _, u := range r.Unprobed {
			ew.printf("  - %s\n", termsafe.Line(u))
		}
	}
	if r.Stopped != "" {
		ew.printf("\nincomplete: %s; %d checks were not run or not finished (\"incomplete\" above), none of them counted as passed\n", termsafe.Line(r.Stopped), r.Unchecked())
	}
	p, f, a := r.Score()
	incomplete := ""
	if n := r.Unchecked(); n > 0 {
		incomplete = fmt.Sprintf(", %d incomplete", n)
	}
	if pct, ok := r.Percent(); ok {
		ew.printf("\nscore: %d of %d applicable checks passed (%.0f%%), %d failed%s\n", p, a, pct, f, incomplete)
	} else {
		ew.printf("\nscore: nothing was checked on any tool, prompt or resource: %s\n", termsafe.Line(r.NothingChecked()))
		if a > 0 || incomplete != "" {
			ew.printf("       (%d of %d server-wide checks passed, %d failed%s)\n", p, a, f, incomplete)
		}
	}
	return ew.err
}

// writeSubject writes the table of s, then the evidence of each rule it
// failed; a subject whose every rule is n/a for one reason (one the audit
// could not call) is one line.
func writeSubject(ew *errWriter, s *Subject) {
	ew.printf("\n%s\n", termsafe.Line(s.Label()))
	if note, ok := allNotApplicable(s.Results); ok && len(s.Results) > 1 {
		line := fmt.Sprintf("  n/a (all %d rules)", len(s.Results))
		if note != "" {
			line += ": " + termsafe.Line(note)
		}
		ew.printf("%s\n", line)
		return
	}
	for _, res := range s.Results {
		line := fmt.Sprintf("  %2d  %-70s %s", res.Rule.N, res.Rule.Title, statusWord(res.Status))
		if res.Note != "" && res.Status != Fail {
			line += "  (" + termsafe.Line(res.Note) + ")"
		}
		ew.printf("%s\n", strings.TrimRight(line, " "))
	}
	for _, res := range s.Results {
		if res.Status != Fail {
			continue
		}
		ew.printf("  rule %d failed:\n", res.Rule.N)
		for _, e := range res.Evidence {
			ew.printf("    - %s\n", termsafe.Line(e.What))
			if e.Sent != "" {
				ew.printf("      sent: %s\n", termsafe.Line(e.Sent))
			}
			if e.Got != "" {
				ew.printf("      got:  %s\n", termsafe.Line(e.Got))
			}
		}
	}
}

// asksNothingLine is the one line that names the subjects that ask
// nothing (quiet), each with its remark, the first foldShown of them.
func asksNothingLine(quiet []*Subject) string {
	var items []string
	hiddenRemarks := 0
	for i, s := range quiet {
		remark := s.AsksNothingRemark()
		if i >= foldShown {
			if remark != "" {
				hiddenRemarks++
			}
			continue
		}
		item := termsafe.Line(s.Label())
		if remark != "" {
			item += " (" + termsafe.Line(remark) + ")"
		}
		items = append(items, item)
	}
	line := fmt.Sprintf("asks nothing (%d), every rule n/a: %s", len(quiet), strings.Join(items, ", "))
	if more := len(quiet) - len(items); more > 0 {
		line += fmt.Sprintf(", and %d more", more)
		if hiddenRemarks > 0 {
			line += fmt.Sprintf(" (%d of them not ending in a normal result)", hiddenRemarks)
		}
	}
	return line
}

// skipLine is the one line of the subjects of g: the reason, the first
// foldShown of them, and how to audit them.
func skipLine(g *SkipGroup) string {
	var items []string
	for _, s := range g.Subjects[:min(len(g.Subjects), foldShown)] {
		items = append(items, termsafe.Line(s.Label()))
	}
	line := fmt.Sprintf("skipped (%d), %s: %s", len(g.Subjects), termsafe.Line(g.Reason), strings.Join(items, ", "))
	if more := len(g.Subjects) - len(items); more > 0 {
		line += fmt.Sprintf(", and %d more", more)
	}
	return line + termsafe.Line(g.Hint)
}

func statusWord(s Status) string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "FAIL"
	case Incomplete:
		return "incomplete"
	}
	return "n/a"
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// DeclaredLine says what the client that listed the server declared, and
// what it did not that a server may offer tools by (sampling, roots), with
// the options that declare them; "" when the report does not say.
func (r *Report) DeclaredLine() string {
	if r.Declared == nil {
		return ""
	}
	return catalog.DeclaredLine(r.Declared, func(capability string) string {
		if capability == catalog.CapabilitySampling {
			return r.name.Word(OptionSamples)
		}
		return r.name.Word(OptionRoots)
	})
}

package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
)

// asksNothingNote is the note of the rules that do not apply to a
// subject that asks nothing; after it, a colon and how its call ended when
// not in a normal result (which the text report reads back).
const asksNothingNote = "asks nothing"

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
	var quiet []*Subject
	var skips []*skipGroup
	for _, s := range r.Subjects {
		switch {
		case s.Skipped != "":
			skips = r.addSkip(skips, s)
		case asksNothing(s):
			quiet = append(quiet, s)
		default:
			writeSubject(ew, s)
		}
	}
	if len(quiet) > 0 || len(skips) > 0 {
		ew.printf("\n")
	}
	if len(quiet) > 0 {
		ew.printf("%s\n", asksNothingLine(quiet))
	}
	for _, g := range skips {
		ew.printf("%s\n", r.skipLine(g))
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

// asksNothing reports whether s is a tool, prompt or resource that was
// called and asked nothing, so that every rule is n/a: the text report
// names it on one line with the others, not in a table of n/a.
func asksNothing(s *Subject) bool {
	if s.Kind == "server" || s.Skipped != "" || s.NotCalled != "" || s.Asks {
		return false
	}
	_, ok := allNotApplicable(s.Results)
	return ok
}

// asksNothingRemark is what the rules of s say beyond that it asks
// nothing (how its call ended, when not in a normal result), or "".
func asksNothingRemark(s *Subject) string {
	for _, res := range s.Results {
		if rest, ok := strings.CutPrefix(res.Note, asksNothingNote+": "); ok {
			return rest
		}
	}
	return ""
}

// asksNothingLine is the one line that names the subjects that ask
// nothing (quiet), each with its remark, the first foldShown of them.
func asksNothingLine(quiet []*Subject) string {
	var items []string
	hiddenRemarks := 0
	for i, s := range quiet {
		remark := asksNothingRemark(s)
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

// skipGroup is the subjects skipped for one reason, in report order.
type skipGroup struct {
	reason   string
	hinted   bool // the reason came with skipHint, which the line words for all
	subjects []*Subject
}

// addSkip adds the skipped subject s to the group of its reason in
// groups (a new one at the end when it has none), and returns groups.
func (r *Report) addSkip(groups []*skipGroup, s *Subject) []*skipGroup {
	reason, hinted := r.skipReason(s)
	for _, g := range groups {
		if g.reason == reason && g.hinted == hinted {
			g.subjects = append(g.subjects, s)
			return groups
		}
	}
	return append(groups, &skipGroup{reason: reason, hinted: hinted, subjects: []*Subject{s}})
}

// skipReason is why s was skipped without how to audit it (skipHint), and
// whether its Skipped ended with that hint.
func (r *Report) skipReason(s *Subject) (reason string, hinted bool) {
	return strings.CutSuffix(s.Skipped, skipHint(nameWith(r.name, OptionInclude), s.Name))
}

// skipLine is the one line of the subjects of g: the reason, the first
// foldShown of them, and how to audit them.
func (r *Report) skipLine(g *skipGroup) string {
	var items []string
	for _, s := range g.subjects[:min(len(g.subjects), foldShown)] {
		items = append(items, termsafe.Line(s.Label()))
	}
	line := fmt.Sprintf("skipped (%d), %s: %s", len(g.subjects), termsafe.Line(g.reason), strings.Join(items, ", "))
	if more := len(g.subjects) - len(items); more > 0 {
		line += fmt.Sprintf(", and %d more", more)
	}
	switch {
	case !g.hinted:
	case len(g.subjects) == 1:
		line += termsafe.Line(skipHint(nameWith(r.name, OptionInclude), g.subjects[0].Name))
	default:
		line += fmt.Sprintf("; pass %s NAME to audit one", nameWith(r.name, OptionInclude))
	}
	return line
}

// allNotApplicable reports whether every one of results is n/a, with the
// note most of them give (the first of those given most often).
func allNotApplicable(results []*Result) (string, bool) {
	if len(results) == 0 {
		return "", false
	}
	counts := map[string]int{}
	for _, res := range results {
		if res.Status != NA {
			return "", false
		}
		counts[res.Note]++
	}
	best := results[0].Note
	for _, res := range results {
		if counts[res.Note] > counts[best] {
			best = res.Note
		}
	}
	return best, true
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

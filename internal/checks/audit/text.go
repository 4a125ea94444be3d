package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
)

// WriteText renders the report as one table per subject, the evidence of
// every failure under its table, and the score. What the server sent (its
// name, notes and evidence quoting it) is neutralised and kept on its line
// (see internal/text/termsafe), so it can neither drive the terminal nor forge
// a line of the report.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	name := termsafe.ServerName(r.Server, "")
	ew.printf("audit of %s at %s, protocol %s\n", name, termsafe.Line(r.Target), termsafe.Line(r.Protocol))
	for _, s := range r.Subjects {
		ew.printf("\n%s\n", s.Label())
		if s.Skipped != "" {
			ew.printf("  skipped: %s\n", termsafe.Line(s.Skipped))
			continue
		}
		if note, ok := allNotApplicable(s.Results); ok && len(s.Results) > 1 {
			// What asks nothing is one line, not a table of n/a.
			line := fmt.Sprintf("  n/a (all %d rules)", len(s.Results))
			if note != "" {
				line += ": " + termsafe.Line(note)
			}
			ew.printf("%s\n", line)
			continue
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

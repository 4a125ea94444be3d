package audit

import (
	"fmt"
	"io"
	"strings"
)

// WriteText renders the report as one table per subject, the evidence of
// every failure under its table, and the score.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	name := r.Server
	if name == "" {
		name = "(unnamed server)"
	}
	ew.printf("audit of %s at %s, protocol %s\n", name, r.Target, r.Protocol)
	for _, s := range r.Subjects {
		ew.printf("\n%s\n", s.Label())
		if s.Skipped != "" {
			ew.printf("  skipped: %s\n", s.Skipped)
			continue
		}
		for _, res := range s.Results {
			line := fmt.Sprintf("  %2d  %-70s %s", res.Rule.N, res.Rule.Title, statusWord(res.Status))
			if res.Note != "" && res.Status != Fail {
				line += "  (" + res.Note + ")"
			}
			ew.printf("%s\n", strings.TrimRight(line, " "))
		}
		for _, res := range s.Results {
			if res.Status != Fail {
				continue
			}
			ew.printf("  rule %d failed:\n", res.Rule.N)
			for _, e := range res.Evidence {
				ew.printf("    - %s\n", e.What)
				if e.Sent != "" {
					ew.printf("      sent: %s\n", e.Sent)
				}
				if e.Got != "" {
					ew.printf("      got:  %s\n", e.Got)
				}
			}
		}
	}
	if len(r.Unprobed) > 0 {
		ew.printf("\nincomplete: these probes could not connect:\n")
		for _, u := range r.Unprobed {
			ew.printf("  - %s\n", u)
		}
	}
	p, f, a := r.Score()
	ew.printf("\nscore: %d of %d applicable checks passed (%.0f%%), %d failed\n", p, a, r.Percent(), f)
	return ew.err
}

func statusWord(s Status) string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "FAIL"
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

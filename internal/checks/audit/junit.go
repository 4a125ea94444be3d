package audit

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/report/junit"
)

// WriteJUnit renders the report as JUnit XML: a test suite per subject, a
// test case per rule; n/a rules and skipped subjects are skipped cases,
// incomplete ones errors.
func (r *Report) WriteJUnit(w io.Writer) error {
	doc := &junit.Suites{Name: "mcp-tester audit of " + r.Server}
	for _, s := range r.Subjects {
		suite := junit.Suite{Name: s.Label()}
		if s.Skipped != "" {
			suite.Cases = append(suite.Cases, junit.Case{Name: "called", Classname: s.Label(), Skipped: &junit.Skip{Message: s.Skipped}})
		}
		for _, res := range s.Results {
			c := junit.Case{Name: fmt.Sprintf("%d %s", res.Rule.N, res.Rule.ID), Classname: s.Label()}
			switch res.Status {
			case Fail:
				var b strings.Builder
				for _, e := range res.Evidence {
					fmt.Fprintf(&b, "%s\n", e.What)
					if e.Sent != "" {
						fmt.Fprintf(&b, "  sent: %s\n", e.Sent)
					}
					if e.Got != "" {
						fmt.Fprintf(&b, "  got:  %s\n", e.Got)
					}
				}
				c.Failure = &junit.Problem{Message: res.Rule.Title, Text: b.String()}
			case Incomplete:
				c.Error = &junit.Problem{Message: res.Note}
			case NA:
				c.Skipped = &junit.Skip{Message: res.Note}
			}
			suite.Cases = append(suite.Cases, c)
		}
		doc.Suites = append(doc.Suites, suite)
	}
	return junit.Write(w, doc)
}

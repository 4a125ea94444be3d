package script

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/report/junit"
)

// WriteJUnit writes the report as JUnit XML: a testsuite per script named
// after the file, a testcase per step named "LINE: COMMAND TEXT". A failed
// step is a <failure>; a script that could not run has one testcase
// "connect" with an <error>. What the run's interrupt cut short (a step,
// a script) is <skipped> with why: no failure of the server. A failed
// check an update rewrote is <skipped> too, with what it expects now: it
// did not pass, and it no longer fails the run.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := &junit.Suites{Name: "mcp-tester", Time: junit.Seconds(r.Duration)}
	for _, s := range r.Scripts {
		suite := junit.Suite{Name: s.Name, Time: junit.Seconds(s.Duration)}
		if s.Err != nil {
			c := junit.Case{Name: "connect", Classname: s.Name, Time: junit.Seconds(s.Duration)}
			if errors.Is(s.Err, ErrInterrupted) {
				c.Skipped = &junit.Skip{Message: s.Err.Error()}
			} else {
				c.Error = &junit.Problem{Message: s.Err.Error(), Type: "connect"}
			}
			suite.Cases = append(suite.Cases, c)
		}
		for _, st := range s.Steps {
			c := junit.Case{Name: fmt.Sprintf("%d: %s", st.Line, st.Text), Classname: s.Name, Time: junit.Seconds(st.Duration), SystemOut: st.Output}
			switch {
			case st.Update != nil:
				c.Skipped = &junit.Skip{Message: fmt.Sprintf("failed, and updated: the check now expects %q (it expected %q)", st.Update.New, st.Update.Old)}
			case st.Interrupted:
				c.Skipped = &junit.Skip{Message: st.Message}
			case !st.Passed:
				c.Failure = &junit.Problem{Message: st.Message, Type: "assertion", Text: failureDetail(st)}
			}
			suite.Cases = append(suite.Cases, c)
		}
		doc.Suites = append(doc.Suites, suite)
	}
	return junit.Write(w, doc)
}

func failureDetail(st *StepResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", st.Message)
	if st.Expected != "" {
		fmt.Fprintf(&b, "expected: %s\n", st.Expected)
	}
	if st.Actual != "" {
		fmt.Fprintf(&b, "actual:   %s\n", st.Actual)
	}
	if st.Diff != "" {
		b.WriteString(st.Diff)
	}
	if st.Response != "" {
		fmt.Fprintf(&b, "response: %s\n", st.Response)
	}
	return b.String()
}

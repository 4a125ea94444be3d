package audit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit renders the report as JUnit XML: a test suite per subject, a
// test case per rule; n/a rules and skipped subjects are skipped cases.
func (r *Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "mcp-tester audit of " + r.Server}
	for _, s := range r.Subjects {
		suite := junitSuite{Name: s.Label()}
		if s.Skipped != "" {
			suite.Cases = append(suite.Cases, junitCase{Name: "called", Classname: s.Label(), Skipped: &junitSkipped{Message: s.Skipped}})
			suite.Skipped++
		}
		for _, res := range s.Results {
			c := junitCase{Name: fmt.Sprintf("%d %s", res.Rule.N, res.Rule.ID), Classname: s.Label()}
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
				c.Failure = &junitFailure{Message: res.Rule.Title, Text: b.String()}
				suite.Failures++
			case NA:
				c.Skipped = &junitSkipped{Message: res.Note}
				suite.Skipped++
			}
			suite.Cases = append(suite.Cases, c)
		}
		suite.Tests = len(suite.Cases)
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Skipped += suite.Skipped
		out.Suites = append(out.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

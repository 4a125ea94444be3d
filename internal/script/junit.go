package script

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML, the subset CI systems read: one testsuite per script, one
// testcase per step.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the report as JUnit XML: a testsuite per script named
// after the file, a testcase per step named "LINE: COMMAND TEXT". A failed
// step is a <failure>; a script that could not run has one testcase
// "connect" with an <error>.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := junitSuites{Name: "mcp-tester", Time: seconds(r.Duration)}
	for _, s := range r.Scripts {
		suite := junitSuite{Name: s.Name, Time: seconds(s.Duration)}
		if s.Err != nil {
			suite.Tests, suite.Errors = 1, 1
			suite.Cases = append(suite.Cases, junitCase{Name: "connect", Classname: s.Name, Time: seconds(s.Duration),
				Error: &junitProblem{Message: s.Err.Error(), Type: "connect"}})
		}
		for _, st := range s.Steps {
			c := junitCase{Name: fmt.Sprintf("%d: %s", st.Line, st.Text), Classname: s.Name, Time: seconds(st.Duration), SystemOut: xmlSafe(st.Output)}
			suite.Tests++
			if !st.Passed {
				suite.Failures++
				c.Failure = &junitProblem{Message: xmlSafe(st.Message), Type: "assertion", Text: xmlSafe(failureDetail(st))}
			}
			suite.Cases = append(suite.Cases, c)
		}
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Suites = append(doc.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
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
	if st.Response != "" {
		fmt.Fprintf(&b, "response: %s\n", st.Response)
	}
	return b.String()
}

// xmlSafe drops the characters XML 1.0 cannot carry, which a server's
// answer may contain.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}

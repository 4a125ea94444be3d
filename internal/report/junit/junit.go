// Package junit writes JUnit XML reports, the subset CI systems read: test
// suites holding test cases, each passed, failed, in error or skipped. The
// script runner (`mcp-tester test --junit`) and the audit (`mcp-tester audit
// --junit`) both write theirs with it.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

// Suites is a report: the <testsuites> element. Write fills in the counts.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr,omitempty"` // see Seconds; empty: not measured
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one <testsuite>. Write fills in the counts.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr,omitempty"`
	Cases    []Case `xml:"testcase"`
}

// Case is one <testcase>: passed unless it has a Failure, an Error or is
// Skipped.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr,omitempty"`
	Failure   *Problem `xml:"failure,omitempty"`
	Error     *Problem `xml:"error,omitempty"`
	Skipped   *Skip    `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Problem is a <failure> (a check that failed) or an <error> (the test
// could not run).
type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Skip says why a case was skipped.
type Skip struct {
	Message string `xml:"message,attr"`
}

// Seconds is d as a time attribute: seconds with three decimals.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Write counts the cases of r (tests, failures, errors, skipped, per suite
// and in total) and writes it as an XML document, indented, ending in a
// newline. Characters XML cannot carry (control characters a server sent)
// are written as U+FFFD.
func Write(w io.Writer, r *Suites) error {
	r.Tests, r.Failures, r.Errors, r.Skipped = 0, 0, 0, 0
	for i := range r.Suites {
		s := &r.Suites[i]
		s.Tests, s.Failures, s.Errors, s.Skipped = len(s.Cases), 0, 0, 0
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				s.Failures++
			case c.Error != nil:
				s.Errors++
			case c.Skipped != nil:
				s.Skipped++
			}
		}
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Errors += s.Errors
		r.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}

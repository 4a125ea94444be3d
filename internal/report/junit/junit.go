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

	"github.com/askback/askback/internal/text/termsafe"
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
// newline. Every text of it (names, messages, failures' text, system-out)
// is neutralised as the other reports are (see internal/text/termsafe):
// what a server sent reaches a CI page with its control, bidirectional and
// invisible characters shown as escapes (\x1b, \u202e), none raw, and
// nothing XML cannot carry.
func Write(w io.Writer, r *Suites) error {
	neutralise(r)
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

// neutralise escapes every text of r in place with termsafe.Block: line
// breaks and tabs are kept (XML writes them in attributes as character
// references), everything else unsafe is shown escaped.
func neutralise(r *Suites) {
	r.Name, r.Time = termsafe.Block(r.Name), termsafe.Block(r.Time)
	for i := range r.Suites {
		s := &r.Suites[i]
		s.Name, s.Time = termsafe.Block(s.Name), termsafe.Block(s.Time)
		for j := range s.Cases {
			c := &s.Cases[j]
			c.Name, c.Classname, c.Time, c.SystemOut = termsafe.Block(c.Name), termsafe.Block(c.Classname), termsafe.Block(c.Time), termsafe.Block(c.SystemOut)
			for _, p := range []*Problem{c.Failure, c.Error} {
				if p != nil {
					p.Message, p.Type, p.Text = termsafe.Block(p.Message), termsafe.Block(p.Type), termsafe.Block(p.Text)
				}
			}
			if c.Skipped != nil {
				c.Skipped.Message = termsafe.Block(c.Skipped.Message)
			}
		}
	}
}

package junit_test

import (
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/report/junit"
	"github.com/askback/askback/internal/text/termsafe"
)

func Example() {
	r := &junit.Suites{Name: "checks", Suites: []junit.Suite{{
		Name: "deploy.mcp",
		Cases: []junit.Case{
			{Name: "1: ping", Classname: "deploy.mcp"},
			{Name: "2: assert_contains x", Classname: "deploy.mcp", Failure: &junit.Problem{Message: "the result does not contain the text"}},
		},
	}}}
	_ = junit.Write(os.Stdout, r)
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <testsuites name="checks" tests="2" failures="1" errors="0" skipped="0">
	//   <testsuite name="deploy.mcp" tests="2" failures="1" errors="0" skipped="0">
	//     <testcase name="1: ping" classname="deploy.mcp"></testcase>
	//     <testcase name="2: assert_contains x" classname="deploy.mcp">
	//       <failure message="the result does not contain the text"></failure>
	//     </testcase>
	//   </testsuite>
	// </testsuites>
}

// Counts are per suite and in total, whatever the caller set; what a
// server sent that XML cannot carry does not break the document.
func TestWriteCountsAndStaysXML(t *testing.T) {
	r := &junit.Suites{Name: "n", Tests: 99, Time: junit.Seconds(1500 * time.Millisecond), Suites: []junit.Suite{
		{Name: "a", Cases: []junit.Case{
			{Name: "ok"},
			{Name: "bad", Failure: &junit.Problem{Message: "bell \x07", Text: "nul \x00 and \ufffe"}},
			{Name: "skip", Skipped: &junit.Skip{Message: "n/a"}},
		}},
		{Name: "b", Cases: []junit.Case{{Name: "connect", Error: &junit.Problem{Message: "refused", Type: "connect"}, SystemOut: "esc \x1b[31m"}}},
	}}
	var b strings.Builder
	if err := junit.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	var got junit.Suites
	if err := xml.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if got.Tests != 4 || got.Failures != 1 || got.Errors != 1 || got.Skipped != 1 || got.Time != "1.500" {
		t.Errorf("totals %+v", got)
	}
	if a := got.Suites[0]; a.Tests != 3 || a.Failures != 1 || a.Skipped != 1 || a.Errors != 0 {
		t.Errorf("suite a %+v", a)
	}
	if f := got.Suites[0].Cases[1].Failure; f == nil || !strings.HasPrefix(f.Message, "bell ") || strings.ContainsAny(f.Text, "\x00\ufffe") {
		t.Errorf("failure %+v", f)
	}
	if strings.ContainsAny(b.String(), "\x00\x07\x1b") {
		t.Errorf("control characters written:\n%q", b.String())
	}
}

// What a server sent reaches every field of the report escaped as the
// other reports write it (termsafe): a bidirectional override, a zero
// width space and C1 controls are shown as escapes, not written raw, and
// the C0 controls XML cannot carry are escapes too, not U+FFFD.
func TestWriteEscapesEveryText(t *testing.T) {
	const evil = "R\x1b]0;PWNED\x07\u202eevil\u200b\u009b31m\u0085\r\nX"
	const shown = `R\x1b]0;PWNED\x07\u202eevil\u200b\x9b31m\x85` + "\nX"
	p := func() *junit.Problem { return &junit.Problem{Message: evil, Type: evil, Text: evil} }
	r := &junit.Suites{Name: evil, Time: evil, Suites: []junit.Suite{{Name: evil, Time: evil, Cases: []junit.Case{
		{Name: evil, Classname: evil, Time: evil, Failure: p(), SystemOut: evil},
		{Name: evil, Classname: evil, Error: p()},
		{Name: evil, Classname: evil, Skipped: &junit.Skip{Message: evil}},
	}}}}
	var b strings.Builder
	if err := junit.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, c := range out {
		if c != '\n' && c != '\t' && termsafe.Unsafe(c) || c == 0xfffd {
			t.Fatalf("the report holds %U raw:\n%s", c, out)
		}
	}
	var got junit.Suites
	if err := xml.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	s := got.Suites[0]
	f, e, k := s.Cases[0].Failure, s.Cases[1].Error, s.Cases[2].Skipped
	if f == nil || e == nil || k == nil {
		t.Fatalf("cases %+v", s.Cases)
	}
	for name, v := range map[string]string{
		"testsuites name": got.Name, "testsuites time": got.Time, "testsuite name": s.Name, "testsuite time": s.Time,
		"testcase name": s.Cases[0].Name, "classname": s.Cases[0].Classname, "testcase time": s.Cases[0].Time,
		"system-out": s.Cases[0].SystemOut, "failure message": f.Message, "failure type": f.Type, "failure text": f.Text,
		"error message": e.Message, "error type": e.Type, "error text": e.Text, "skipped message": k.Message,
	} {
		if v != shown {
			t.Errorf("%s: %q, want %q", name, v, shown)
		}
	}
}

package script

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/report/ghactions"
	"github.com/askback/askback/internal/report/sarif"
)

// connectRule is the SARIF rule of a script that could not reach the
// server.
const connectRule = "test/connect"

// SARIF returns the report as a SARIF run of tool: a rule per command of
// the language ("test/assert_contains"), and a result per failed step at
// its script's file, line and column (a script that could not connect: at
// its file); every result has a file of its own, so at is not read.
func (r *Report) SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run {
	run := &sarif.Run{Tool: tool}
	for _, c := range commandList {
		run.Rules = append(run.Rules, sarif.Rule{ID: "test/" + c.name, Level: sarif.Error,
			Short: fmt.Sprintf("A %s step of a test script failed", c.name),
			Help:  "Usage: " + c.usage + ". Run mcp-tester test on the script to see the step's expected and actual values.",
			Tags:  []string{"mcp", "test"}})
	}
	run.Rules = append(run.Rules, sarif.Rule{ID: connectRule, Level: sarif.Error, Short: "A test script could not reach the server",
		Help: fmt.Sprintf("Check the server command or URL (%s) and that the server starts.", r.Name.Word(OptionServer)), Tags: []string{"mcp", "test"}})
	for _, s := range r.Scripts {
		if s.Err != nil {
			run.Results = append(run.Results, sarif.Result{RuleID: connectRule, Message: s.Err.Error(),
				Locations: []sarif.Location{{File: s.Name}}})
		}
		for _, st := range s.Steps {
			if st.Passed {
				continue
			}
			run.Results = append(run.Results, sarif.Result{RuleID: "test/" + st.Command, Message: stepMessage(st),
				Locations: []sarif.Location{{File: s.Name, Line: st.Line, Column: st.Col, Description: st.Text}}})
		}
	}
	return run
}

// stepMessage says why a step failed, with what it expected and found.
func stepMessage(st *StepResult) string {
	var b strings.Builder
	b.WriteString(st.Text)
	b.WriteString(": ")
	b.WriteString(st.Message)
	if st.Expected != "" {
		fmt.Fprintf(&b, "\nexpected: %s", st.Expected)
	}
	if st.Actual != "" {
		fmt.Fprintf(&b, "\nactual: %s", st.Actual)
	}
	if st.Response != "" {
		fmt.Fprintf(&b, "\nresponse: %s", st.Response)
	}
	return b.String()
}

// Annotations returns a GitHub Actions error annotation per failed step, at
// its script's file, line and column, and one per script that could not
// reach the server.
func Annotations(r *Report) []ghactions.Annotation {
	var out []ghactions.Annotation
	for _, s := range r.Scripts {
		if s.Err != nil {
			out = append(out, ghactions.Annotation{Level: ghactions.Error, File: s.Name, Title: "mcp-tester: could not reach the server", Message: s.Err.Error()})
		}
		for _, st := range s.Steps {
			if !st.Passed {
				out = append(out, ghactions.Annotation{Level: ghactions.Error, File: s.Name, Line: st.Line, Column: st.Col,
					Title: "mcp-tester: " + st.Command + " failed", Message: stepMessage(st)})
			}
		}
	}
	return out
}

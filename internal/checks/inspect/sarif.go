package inspect

import (
	"fmt"

	"github.com/askback/askback/internal/report/sarif"
)

// SARIF returns the report as a SARIF run of tool: a rule per criterion
// and a warning per finding (and per list the server failed to give),
// shown at anchor, the file code scanning puts findings about the server
// on. The score is in the run's results' properties.
func (r *Report) SARIF(tool sarif.Tool, anchor string) *sarif.Run {
	run := &sarif.Run{Tool: tool, Anchor: anchor}
	run.Rules = append(run.Rules, sarif.Rule{ID: "inspect/list-failed", Short: "A list the server declares failed", Level: sarif.Error,
		Help: "Fix the handler: the server declares the capability, so clients ask for the list.", Tags: []string{"mcp", "inspect"}})
	for _, c := range r.Criteria {
		run.Rules = append(run.Rules, sarif.Rule{ID: "inspect/" + c.ID, Short: c.Name, Level: sarif.Warning,
			Full: fmt.Sprintf("%s (up to %d of the 100 points of mcp-tester inspect)", c.Name, c.Weight), Tags: []string{"mcp", "inspect", "quality"}})
	}
	add := func(rule string, f Finding) {
		msg := f.Problem
		if f.Subject != "" {
			msg = f.Subject + ": " + f.Problem
		}
		if f.Advice != "" {
			msg += ". " + f.Advice
		}
		run.Results = append(run.Results, sarif.Result{RuleID: rule, Message: msg,
			Locations:  []sarif.Location{{Path: "server", Kind: "module"}},
			Properties: map[string]any{"score": r.Score}})
	}
	for _, f := range r.Errors {
		add("inspect/list-failed", f)
	}
	for _, c := range r.Criteria {
		if !c.Applies {
			continue
		}
		for _, f := range c.Findings {
			add("inspect/"+c.ID, f)
		}
	}
	return run
}

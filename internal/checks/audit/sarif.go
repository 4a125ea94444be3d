package audit

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/report/sarif"
)

// SARIF returns the report as a SARIF run of tool: the twelve rules, and a
// result per rule that failed (an error) or could not be checked (a
// warning) for a tool, prompt, resource or the server, at its path in the
// server's catalog (tools.deploy) and shown at at's file, the one code
// scanning puts findings about the server on. A run the audit could not
// finish is marked not successful.
func (r *Report) SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run {
	run := &sarif.Run{Tool: tool, Anchor: at.File, Failed: r.Stopped}
	for _, rule := range Rules() {
		run.Rules = append(run.Rules, sarif.Rule{ID: rule.ID, Short: strings.ToUpper(rule.Title[:1]) + rule.Title[1:],
			Help:  "See docs/audit.md, rule " + fmt.Sprint(rule.N) + ".",
			Level: sarif.Error, Tags: []string{"mcp", "audit", "security"}, SecuritySeverity: "7.0"})
	}
	for _, s := range r.Subjects {
		loc := sarif.Location{Path: string(subjectPath(s)), Kind: s.Kind}
		for _, res := range s.Results {
			var level sarif.Level
			switch res.Status {
			case Fail:
				level = sarif.Error
			case Incomplete:
				level = sarif.Warning
			default:
				continue
			}
			run.Results = append(run.Results, sarif.Result{RuleID: res.Rule.ID, Level: level, Message: resultMessage(s, res), Locations: []sarif.Location{loc},
				Properties: map[string]any{"status": string(res.Status)}})
		}
	}
	return run
}

// resultMessage is the message of the result res of s: the rule, why it
// was not checked or its note, and its evidence.
func resultMessage(s *Subject, res *Result) string {
	msg := fmt.Sprintf("%s: %s", s.Label(), res.Rule.Title)
	if res.Status == Incomplete {
		msg = fmt.Sprintf("%s: not checked (no answer): %s", s.Label(), res.Rule.Title)
	}
	if res.Note != "" {
		msg += " (" + res.Note + ")"
	}
	for _, e := range res.Evidence {
		msg += "\n" + e.What
		if e.Sent != "" {
			msg += "\nsent: " + e.Sent
		}
		if e.Got != "" {
			msg += "\ngot: " + e.Got
		}
	}
	return msg
}

// subjectPath is where a subject is in the server's catalog.
func subjectPath(s *Subject) catalog.Path {
	switch s.Kind {
	case "tool":
		return catalog.Path("tools").Key(s.Name)
	case "prompt":
		return catalog.Path("prompts").Key(s.Name)
	case "resource":
		return catalog.Path("resources").Key(s.Name)
	}
	return "server"
}

package scan

import (
	"github.com/askback/askback/internal/report/sarif"
)

// sarifLevel is the SARIF level of a severity: high fails (error),
// medium warns, low and info are notes.
func sarifLevel(s Severity) sarif.Level {
	switch s {
	case High:
		return sarif.Error
	case Medium:
		return sarif.Warning
	}
	return sarif.Note
}

// securitySeverity is the score code scanning shows a severity as: high
// from 7.0, medium from 4.0, low below.
func securitySeverity(s Severity) string {
	switch s {
	case High:
		return "8.0"
	case Medium:
		return "5.0"
	case Low:
		return "3.0"
	}
	return "1.0"
}

// SARIF returns the report as a SARIF run of tool: every rule of the scan
// (so that code scanning knows them all, found or not), and a result for
// each finding, located by its JSON path in the server's catalog (with
// the server's name before it when several servers were scanned) and in
// the file at names for its server (at.FileOf: code scanning shows a
// finding at a file; "": none), at its region there when at knows it
// (at.RegionOf: a catalog file's, see Regions).
func (r *Report) SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run {
	run := &sarif.Run{Tool: tool}
	for _, rule := range Rules() {
		run.Rules = append(run.Rules, sarif.Rule{
			ID: rule.ID, Name: pascal(rule.Name), Short: rule.Title, Help: rule.Help,
			Level: sarifLevel(rule.Severity), Tags: []string{"security", rule.Family},
			SecuritySeverity: securitySeverity(rule.Severity),
		})
	}
	several := len(r.Servers) > 1
	for _, f := range r.Findings {
		path := f.Path
		if several && f.Server != "" {
			path = f.Server + ":" + path
		}
		props := map[string]any{"severity": f.Severity.String(), "subject": f.Subject, "security-severity": securitySeverity(f.Severity)}
		if f.Server != "" {
			props["server"] = f.Server
		}
		if f.Excerpt != "" {
			props["excerpt"] = f.Excerpt
		}
		loc := sarif.Location{Path: path, Kind: "member", Description: f.Subject, File: at.FileOf(f.Server)}
		if loc.File != "" {
			loc = loc.In(at.RegionOf(f.Server, f.Path))
		}
		run.Results = append(run.Results, sarif.Result{
			RuleID: f.Rule, Level: sarifLevel(f.Severity), Message: f.Subject + ": " + f.Reason,
			Locations: []sarif.Location{loc}, Properties: props,
		})
	}
	return run
}

// pascal turns a rule's short name into a SARIF rule name:
// tag-characters → TagCharacters.
func pascal(name string) string {
	out := make([]byte, 0, len(name))
	up := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '-' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		out = append(out, c)
	}
	return string(out)
}

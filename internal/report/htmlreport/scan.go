package htmlreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/checks/scan"
)

// scanPage is the body of a `scan` report.
type scanPage struct {
	Counts     scan.Counts
	Servers    []scanServerView
	Findings   []scanFindingView
	Incomplete []string
}

type scanServerView struct {
	Name, Offers, Declares string
}

type scanFindingView struct {
	Rule, Name, Severity, Server, Subject, Path, Reason, Excerpt string
	Count                                                        int
}

// WriteScan writes the page of `scan`: the findings by severity, each
// with its rule, what it belongs to, its JSON path, the reason and the
// text found, and what was scanned of each server; incomplete says what
// could not be scanned.
func WriteScan(w io.Writer, m Meta, r *scan.Report, incomplete []string) error {
	t := text{m.Hide}
	body := scanPage{Counts: r.Counts}
	var names []string
	for _, s := range r.Servers {
		name := t.serverName(s.Name, s.Version)
		names = append(names, name)
		body.Servers = append(body.Servers, scanServerView{Name: name,
			Offers:   fmt.Sprintf("%d tool%s, %d prompt%s, %d resource%s, %d resource template%s", s.Tools, plural(s.Tools), s.Prompts, plural(s.Prompts), s.Resources, plural(s.Resources), s.Templates, plural(s.Templates)),
			Declares: t.line(strings.Join(s.ClientCapabilities, ", "))})
	}
	for _, f := range r.Findings {
		body.Findings = append(body.Findings, scanFindingView{Rule: t.line(f.Rule), Name: t.line(f.Name), Severity: f.Severity.String(),
			Server: t.line(f.Server), Subject: t.line(f.Subject), Path: t.line(f.Path), Reason: t.line(f.Reason), Excerpt: t.line(f.Excerpt), Count: f.Count})
	}
	for _, why := range incomplete {
		body.Incomplete = append(body.Incomplete, t.line(why))
	}
	verdict := "passed"
	switch {
	case len(incomplete) > 0:
		verdict = "incomplete"
	case r.Counts.High+r.Counts.Medium > 0:
		verdict = "failed"
	}
	title := fmt.Sprintf("%d finding%s", len(r.Findings), plural(len(r.Findings)))
	return render(w, m, "scan", title, strings.Join(names, ", "), verdict, body)
}

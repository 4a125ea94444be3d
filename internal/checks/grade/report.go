package grade

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/report/sarif"
	"github.com/askback/askback/internal/text/termsafe"
)

// categoryTitles name the categories for people.
var categoryTitles = map[string]string{
	Conformance: "Protocol conformance (what the tester saw)",
	Asking:      "Rules of asking (audit)",
	Description: "How the server describes itself (inspect)",
	Safety:      "What the server tells the model (scan)",
}

// marks show an item's status in text.
var marks = map[Status]string{Pass: "ok", Partial: "~~", Fail: "--", NotChecked: "??"}

// WriteText renders the grade for a person, check by check. Everything
// the server sent is neutralised and kept on its line.
func (g *Grade) WriteText(w io.Writer) error {
	var b strings.Builder
	name := termsafe.ServerName(g.Server, g.Version)
	fmt.Fprintf(&b, "Server: %s, protocol %s\n", name, termsafe.Line(g.Protocol))
	fmt.Fprintf(&b, "L%s\n", strings.TrimPrefix(catalog.ListedBy(g.ClientCapabilities), "l"))
	fmt.Fprintf(&b, "Grade: %s (%d/100)", g.Letter, g.Score)
	if g.Partial() {
		fmt.Fprintf(&b, ", partial evidence: %d%% of the points could be checked", g.Checked)
	}
	b.WriteString("\n")
	for _, c := range g.Caps {
		fmt.Fprintf(&b, "  %s\n", termsafe.Line(c))
	}
	for _, cat := range Categories() {
		var earned, checked, total float64
		for _, it := range g.Items {
			if it.Category != cat {
				continue
			}
			total += it.Weight
			if it.Status != NotChecked {
				checked += it.Weight
				earned += it.Points
			}
		}
		fmt.Fprintf(&b, "\n%s: %s of %s checked points", categoryTitles[cat], num(earned), num(checked))
		if checked < total {
			fmt.Fprintf(&b, " (%s of %s not checked)", num(total-checked), num(total))
		}
		b.WriteString("\n")
		for _, it := range g.Items {
			if it.Category != cat {
				continue
			}
			line := fmt.Sprintf("  %s %s  %s", marks[it.Status], it.ID, it.Title)
			if it.Status != NotChecked {
				line += fmt.Sprintf(" (%s/%s)", num(it.Points), num(it.Weight))
			} else {
				line += " (not checked)"
			}
			b.WriteString(line + "\n")
			if it.Why != "" && (it.Status != Pass || cat == Conformance) {
				fmt.Fprintf(&b, "       %s\n", clip(termsafe.Line(it.Why), 300))
			}
		}
	}
	if g.Partial() {
		b.WriteString("\nNot checked never counts as passed: the score is made of the checks that were made.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num is a number of points, without trailing zeros.
func num(f float64) string { return strconv.FormatFloat(round2(f), 'f', -1, 64) }

// clip shortens s to at most n bytes, at a rune.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// SARIF returns the grade as a SARIF run of tool: a rule for every check,
// and a result for each check that failed (error), earned part of its
// points (warning) or was not made (note), located at the server and at
// at's file (where code scanning shows it; "": none).
func (g *Grade) SARIF(tool sarif.Tool, at sarif.Anchor) *sarif.Run {
	run := &sarif.Run{Tool: tool}
	for _, it := range g.Items {
		run.Rules = append(run.Rules, sarif.Rule{ID: it.ID, Short: it.Title, Level: sarif.Warning, Tags: []string{it.Category}})
		var level sarif.Level
		switch it.Status {
		case Fail:
			level = sarif.Error
		case Partial:
			level = sarif.Warning
		case NotChecked:
			level = sarif.Note
		default:
			continue
		}
		msg := fmt.Sprintf("%s: %s", it.Status, it.Title)
		if it.Why != "" {
			msg += ": " + it.Why
		}
		run.Results = append(run.Results, sarif.Result{RuleID: it.ID, Level: level, Message: msg,
			Locations:  []sarif.Location{{File: at.File, Path: "server", Kind: "module", Description: g.Server}},
			Properties: map[string]any{"points": it.Points, "weight": it.Weight, "status": string(it.Status)}})
	}
	return run
}

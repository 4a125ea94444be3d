package grade

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/checks/schemaargs"
)

// conformance are the checks of what the tester saw of the protocol; rep,
// when inspect was run, adds the lists a strict client refuses (its
// findings on their cacheScope).
func conformance(o Observed, rep *inspect.Report) []Item {
	var out []Item
	switch {
	case o.Protocol >= inspect.Latest:
		out = append(out, fraction("conformance/protocol", "speaks the newest protocol version", 1, "protocol "+o.Protocol))
	case o.Protocol >= "2025-06-18":
		out = append(out, fraction("conformance/protocol", "speaks the newest protocol version", 0.5, fmt.Sprintf("protocol %s, not %s: questions cannot come back as input_required results", o.Protocol, inspect.Latest)))
	default:
		out = append(out, fraction("conformance/protocol", "speaks the newest protocol version", 0.25, fmt.Sprintf("protocol %s has no elicitation", o.Protocol)))
	}
	if len(o.Declared) == 0 {
		out = append(out, notChecked("conformance/lists", "every list the server declares answers", "the server declares no tools, prompts or resources"))
	} else if refused := listsRefused(o, rep); len(o.ListErrors) > 0 || len(refused) > 0 {
		var why []string
		for _, m := range slices.Sorted(maps.Keys(o.ListErrors)) {
			why = append(why, m+": "+o.ListErrors[m])
		}
		for _, f := range refused {
			why = append(why, f.Subject+": "+f.Problem)
		}
		out = append(out, fraction("conformance/lists", "every list the server declares answers", 0, strings.Join(why, "; ")))
	} else {
		out = append(out, fraction("conformance/lists", "every list the server declares answers", 1, "listed "+strings.Join(o.Declared, ", ")))
	}
	if o.PingErr != "" {
		out = append(out, fraction("conformance/ping", "answers ping", 0, o.PingErr))
	} else {
		out = append(out, fraction("conformance/ping", "answers ping", 1, ""))
	}
	if len(o.Tools) == 0 {
		out = append(out,
			notChecked("conformance/tool-schemas", `tool schemas are JSON Schema objects of "type": "object"`, "the server offers no tools"),
			notChecked("conformance/tool-names", "tool names are unique, 1 to 128 of A-Z a-z 0-9 _ - .", "the server offers no tools"))
		return out
	}
	var badSchema, badName []string
	seen := map[string]bool{}
	for _, t := range o.Tools {
		if t == nil {
			continue
		}
		if m := schemaargs.Map(t.InputSchema); m == nil || m["type"] != "object" {
			badSchema = append(badSchema, fmt.Sprintf("%q (input)", t.Name))
		}
		if t.OutputSchema != nil {
			if m := schemaargs.Map(t.OutputSchema); m == nil || m["type"] != "object" {
				badSchema = append(badSchema, fmt.Sprintf("%q (output)", t.Name))
			}
		}
		if !validToolName(t.Name) || seen[t.Name] {
			badName = append(badName, fmt.Sprintf("%q", t.Name))
		}
		seen[t.Name] = true
	}
	out = append(out, allOf("conformance/tool-schemas", `tool schemas are JSON Schema objects of "type": "object"`, len(o.Tools), badSchema))
	out = append(out, allOf("conformance/tool-names", "tool names are unique, 1 to 128 of A-Z a-z 0-9 _ - .", len(o.Tools), badName))
	return out
}

// listsRefused are inspect's findings on the lists a strict client
// refuses (inspect.Report.ListsRefused), but of lists that failed outright
// (o.ListErrors, said already).
func listsRefused(o Observed, rep *inspect.Report) []inspect.Finding {
	if rep == nil {
		return nil
	}
	var out []inspect.Finding
	for _, f := range rep.ListsRefused() {
		if _, failed := o.ListErrors[f.Subject]; !failed {
			out = append(out, f)
		}
	}
	return out
}

// allOf is a check that passes when nothing of n is bad.
func allOf(id, title string, n int, bad []string) Item {
	if len(bad) == 0 {
		return fraction(id, title, 1, fmt.Sprintf("all %d tools", n))
	}
	shown := bad[:min(len(bad), 5)]
	why := strings.Join(shown, ", ")
	if len(bad) > len(shown) {
		why += fmt.Sprintf(" and %d more", len(bad)-len(shown))
	}
	return fraction(id, title, 0, "not "+why)
}

// validToolName reports whether name keeps to the protocol's tool names:
// 1 to 128 characters of A-Z, a-z, 0-9, _, - and .
func validToolName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// asking are the audit's rules, each over every subject: failed when it
// failed for one, passed when it passed for one and failed for none, not
// checked when it applied to none (nothing asked, everything skipped, the
// audit not run or cut short).
func asking(rep *audit.Report, why string) []Item {
	var out []Item
	if rep == nil {
		for _, r := range audit.Rules() {
			out = append(out, notChecked("audit/"+r.ID, r.Title, "the audit was not run: "+why))
		}
		return out
	}
	nothing := rep.NothingChecked()
	for _, r := range audit.Rules() {
		var pass, fail, incomplete int
		var failed []string
		var why naReasons
		for _, s := range rep.Subjects {
			res := s.Result(r)
			if res == nil {
				continue
			}
			switch res.Status {
			case audit.Pass:
				pass++
			case audit.Fail:
				fail++
				failed = append(failed, s.Label())
			case audit.Incomplete:
				incomplete++
			case audit.NA:
				why.add(s, res.Note)
			}
		}
		id := "audit/" + r.ID
		switch {
		case fail > 0:
			out = append(out, fraction(id, r.Title, 0, "failed for "+strings.Join(failed, ", ")))
		case pass > 0:
			out = append(out, fraction(id, r.Title, 1, fmt.Sprintf("passed for %d subject(s)", pass)))
		case incomplete > 0:
			out = append(out, notChecked(id, r.Title, fmt.Sprintf("%d check(s) got no answer in time", incomplete)))
		default:
			out = append(out, notChecked(id, r.Title, why.line(nothing)))
		}
	}
	return out
}

// naReasons are the reasons a rule of the audit did not apply to the
// subjects it was n/a for.
type naReasons struct {
	all, asked []string // each said once: every subject's, those of subjects that asked (and the server's)
	one        string   // the reason every subject gave, when they gave the same
	subjects   int
}

func (n *naReasons) add(s *audit.Subject, note string) {
	if n.subjects++; n.subjects == 1 {
		n.one = note
	} else if note != n.one {
		n.one = ""
	}
	if note == "" {
		return
	}
	if !slices.Contains(n.all, note) {
		n.all = append(n.all, note)
	}
	if (s.Asks || s.Kind == "server") && !slices.Contains(n.asked, note) {
		n.asked = append(n.asked, note)
	}
}

// line is the evidence of a rule no subject could be checked against: its
// own reason when every subject gave it (the protocol has no
// requestState); else why nothing was checked at all (nothing, when it
// says); else the reasons of the subjects that asked, which are why the
// rule was not checked; and that subjects asked nothing only when none
// asked.
func (n *naReasons) line(nothing string) string {
	switch {
	case n.one != "" && !audit.AsksNothingNote(n.one):
		return n.one
	case nothing != "":
		return nothing
	case len(n.asked) > 0:
		return joinNotes(n.asked, 2)
	case len(n.all) > 0:
		return joinNotes(n.all, 2)
	}
	return "it applied to nothing the server does"
}

// joinNotes joins the first n reasons of notes, each said once: notes that
// begin alike ("asks nothing", "asks nothing: the call ends in an isError
// result") share their beginning, which comes once, followed by what each
// adds ("asks nothing: the call ends in an isError result"). A note that
// only adds to one without an addition does not count towards n.
func joinNotes(notes []string, n int) string {
	var heads []string
	tails := map[string][]string{}
	count := 0
	for _, note := range notes {
		head, tail, _ := strings.Cut(note, ": ")
		known := slices.Contains(heads, head)
		switch {
		case known && (tail == "" || slices.Contains(tails[head], tail)):
			continue // said already
		case known && len(tails[head]) == 0:
			// It only says more of a reason given.
		case count == n:
			continue
		default:
			count++
		}
		if !known {
			heads = append(heads, head)
		}
		if tail != "" {
			tails[head] = append(tails[head], tail)
		}
	}
	out := make([]string, 0, len(heads))
	for _, head := range heads {
		if t := tails[head]; len(t) > 0 {
			head += ": " + strings.Join(t, "; ")
		}
		out = append(out, head)
	}
	return strings.Join(out, "; ")
}

// description are inspect's criteria, each worth its weight, but the
// protocol version (a conformance check here). checkIcons names, in the
// caller's terms, the way to fetch the icons when they were not.
func description(rep *inspect.Report, iconsChecked bool, checkIcons string) []Item {
	var out []Item
	if rep == nil {
		return []Item{notChecked("inspect", "the server describes itself", "inspect was not run")}
	}
	for _, c := range rep.Criteria {
		if c.ID == inspect.CritProtocol {
			continue
		}
		id := "inspect/" + c.ID
		switch {
		case !c.Applies:
			it := notChecked(id, c.Name, "it says nothing about this server")
			it.Weight = float64(c.Weight)
			out = append(out, it)
			continue
		case c.ID == inspect.CritIcons && !iconsChecked && rep.IconsSeen > 0:
			it := notChecked(id, c.Name, fmt.Sprintf("%d icon(s) not fetched (%s fetches them)", rep.IconsSeen, checkIcons))
			it.Weight = float64(c.Weight)
			out = append(out, it)
			continue
		}
		var why []string
		for _, f := range c.Findings {
			w := f.Problem
			if f.Subject != "" {
				w = f.Subject + ": " + w
			}
			why = append(why, w)
		}
		it := fraction(id, c.Name, c.Points/float64(c.Weight), strings.Join(why, "; "))
		it.Weight, it.Points = float64(c.Weight), it.Points*float64(c.Weight)
		out = append(out, it)
	}
	return out
}

// severityPoints is what a scan rule earns when its highest finding is of
// a severity.
var severityPoints = map[scan.Severity]float64{scan.High: 0, scan.Medium: 0.5, scan.Low: 0.8, scan.Info: 1}

// safety are the scan's rules: each passes when it found nothing, and
// earns less the higher its findings are.
func safety(rep *scan.Report) []Item {
	var out []Item
	for _, r := range scan.Rules() {
		id := "scan/" + r.ID
		if rep == nil {
			out = append(out, notChecked(id, r.Title, "the scan was not run"))
			continue
		}
		fs := rep.ByRule(r.ID)
		if len(fs) == 0 {
			out = append(out, fraction(id, r.Title, 1, ""))
			continue
		}
		worst := fs[0]
		for _, f := range fs {
			if f.Severity > worst.Severity {
				worst = f
			}
		}
		why := fmt.Sprintf("%d finding(s), the highest %s: %s: %s", len(fs), worst.Severity, worst.Subject, worst.Reason)
		it := fraction(id, r.Title, severityPoints[worst.Severity], why)
		if worst.Severity == scan.Info {
			it.Status = Pass
		}
		out = append(out, it)
	}
	return out
}

package htmlreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/checks/audit"
)

// auditPage is the body of an `audit` report.
type auditPage struct {
	Server, Protocol                       string
	Declared                               string // what the listing client declared (audit.Report.DeclaredLine)
	Score                                  string // "92%", or "" when nothing was checked
	Passed, Failed, Applicable, Incomplete int
	NothingChecked, Stopped                string
	Unprobed                               []string
	Failures                               []verdictView
	Rules                                  []ruleView
	// Subjects are the matrix: a row per subject that asks (or the
	// server, or one the audit could not call), a cell per rule; then the
	// subjects that ask nothing as one row, and the skipped ones as a row
	// per reason, as the text report folds them (audit.Report.Fold).
	Subjects    []subjectView
	AsksNothing *foldView
	Skipped     []foldView
	RuleNumbers []int
}

// foldView is one folded row of the matrix: how many subjects, the first
// few by name, and every one of them in a list to open.
type foldView struct {
	ID       string // the row's id
	Title    string // "asks nothing (154)"
	First    string // `tool "a", tool "b", tool "c", and 151 more`
	Subjects []foldedSubject
	Why      string // what the row says across the rules' columns
}

// foldedSubject is one subject of a folded row, with what it ended in
// when its call did not end in a normal result.
type foldedSubject struct{ Label, Remark string }

// foldFirst is how many subjects a folded row names before it is opened.
const foldFirst = 3

// ruleView is one rule with its verdict for every subject it was checked
// on.
type ruleView struct {
	N                       int
	ID, Title               string
	Passed, Failed, NotThen int // not then: n/a or incomplete
	Verdicts                []verdictView
}

// verdictView is one rule's outcome for one subject, with the evidence.
type verdictView struct {
	ID       string // this view's own id
	Anchor   string // the verdict's id in its rule's list
	Subject  string
	Rule     string // "1 state-tamper: tampered requestState is refused"
	Status   string // pass, fail, n/a, incomplete
	Word     string // the status as the text report writes it: FAIL
	Class    string // the CSS class of the status
	Note     string
	Evidence []evidenceView
	Fold     string // for the verdict of a folded row, that row's id
}

type evidenceView struct{ What, Sent, Got string }

// subjectView is one row of the matrix.
type subjectView struct {
	Label string
	Cells []cellView
}

type cellView struct {
	Status, Class, Title, Anchor string
}

// WriteAudit writes the page of an audit: the score, the failed rules
// first with their evidence (what the probe did, the request sent and the
// answer it got), a table of every subject against every rule, then each
// rule with its verdict for each subject. As in the text report, the
// subjects that ask nothing are one row of the table (and one verdict of
// each rule), and the skipped ones a row per reason.
func WriteAudit(w io.Writer, m Meta, r *audit.Report) error {
	t := text{m.Hide}
	p, f, a := r.Score()
	body := auditPage{Server: t.line(r.Server), Protocol: t.line(r.Protocol), Declared: t.line(r.DeclaredLine()), Passed: p, Failed: f, Applicable: a,
		Incomplete: r.Unchecked(), NothingChecked: t.line(r.NothingChecked()), Stopped: t.line(r.Stopped)}
	if pct, ok := r.Percent(); ok {
		body.Score = fmt.Sprintf("%.0f%%", pct)
	}
	for _, u := range r.Unprobed {
		body.Unprobed = append(body.Unprobed, t.line(u))
	}
	rules := map[int]*ruleView{}
	for _, rule := range audit.Rules() {
		body.Rules = append(body.Rules, ruleView{N: rule.N, ID: rule.ID, Title: rule.Title})
		body.RuleNumbers = append(body.RuleNumbers, rule.N)
	}
	for i := range body.Rules {
		rules[body.Rules[i].N] = &body.Rules[i]
	}
	index := map[*audit.Subject]int{}
	for si, s := range r.Subjects {
		index[s] = si
	}
	fold := r.Fold()
	for _, s := range fold.Shown {
		body.Subjects = append(body.Subjects, body.subjectRow(t, rules, index[s], s))
	}
	if len(fold.AsksNothing) > 0 {
		fv := foldRow(t, "asks-nothing", "asks nothing", fold.AsksNothing)
		fv.Why = "every rule n/a"
		if line := r.MadeUpLine(fold.AsksNothing); line != "" {
			fv.Why += "; " + t.line(line)
		}
		body.AsksNothing = &fv
		for i := range body.Rules {
			foldVerdict(t, &body.Rules[i], fv.ID, "asks nothing", fold.AsksNothing)
		}
	}
	for i, g := range fold.Skipped {
		fv := foldRow(t, fmt.Sprintf("skipped-%d", i+1), "skipped", g.Subjects)
		fv.Why = "skipped: " + t.line(g.Reason+g.Hint)
		body.Skipped = append(body.Skipped, fv)
	}
	verdict, title := auditVerdict(r, body.Score)
	name := body.Server
	if name == "" {
		name = "(unnamed server)"
	}
	return render(w, m, "audit", title, fmt.Sprintf("audit of %s, protocol %s", name, body.Protocol), verdict, body)
}

// subjectRow is the row of subject s (the si-th) in the table of every
// subject against every rule; each verdict is added to its rule's
// (rules, by number) and each failure to the page's.
func (body *auditPage) subjectRow(t text, rules map[int]*ruleView, si int, s *audit.Subject) subjectView {
	row := subjectView{Label: t.line(s.Label())}
	for _, n := range body.RuleNumbers {
		res := resultOf(s, n)
		if res == nil {
			row.Cells = append(row.Cells, cellView{Status: "", Class: "status-none"})
			continue
		}
		v := verdictView{
			Anchor:  fmt.Sprintf("rule-%d-subject-%d", n, si+1),
			Subject: row.Label,
			Rule:    fmt.Sprintf("%d %s: %s", n, res.Rule.ID, res.Rule.Title),
			Status:  string(res.Status),
			Word:    statusWord(res.Status),
			Class:   statusClass(res.Status),
			Note:    t.line(res.Note),
		}
		for _, e := range res.Evidence {
			v.Evidence = append(v.Evidence, evidenceView{What: t.block(e.What), Sent: t.block(e.Sent), Got: t.block(e.Got)})
		}
		v.ID = v.Anchor
		body.addVerdict(rules[n], v, res.Status)
		row.Cells = append(row.Cells, cellView{Status: statusWord(res.Status), Class: v.Class, Title: v.Rule + ": " + v.Status, Anchor: v.Anchor})
	}
	return row
}

// foldRow is the folded row, of id, of subjects: what (asks nothing,
// skipped) with their count, the first foldFirst by name, and every one.
func foldRow(t text, id, what string, subjects []*audit.Subject) foldView {
	fv := foldView{ID: id, Title: fmt.Sprintf("%s (%d)", what, len(subjects))}
	var first []string
	for i, s := range subjects {
		label := t.line(s.Label())
		fv.Subjects = append(fv.Subjects, foldedSubject{Label: label, Remark: t.line(s.AsksNothingRemark())})
		if i < foldFirst {
			first = append(first, label)
		}
	}
	fv.First = strings.Join(first, ", ")
	if more := len(subjects) - len(first); more > 0 {
		fv.First += fmt.Sprintf(", and %d more", more)
	}
	return fv
}

// foldVerdict adds to rv one verdict for subjects, those of the folded
// row of id (what they are: asks nothing), each n/a, with their notes
// (each with how many give it when they differ), and counts them.
func foldVerdict(t text, rv *ruleView, id, what string, subjects []*audit.Subject) {
	var notes []string
	count := map[string]int{}
	n := 0
	for _, s := range subjects {
		res := resultOf(s, rv.N)
		if res == nil {
			continue
		}
		n++
		if count[res.Note] == 0 {
			notes = append(notes, res.Note)
		}
		count[res.Note]++
	}
	if n == 0 {
		return
	}
	if len(notes) > 1 {
		for i, note := range notes {
			notes[i] = fmt.Sprintf("%s (%d)", note, count[note])
		}
	}
	v := verdictView{
		ID:      fmt.Sprintf("rule-%d-%s", rv.N, id),
		Subject: fmt.Sprintf("%s (%d)", what, n),
		Status:  string(audit.NA),
		Word:    statusWord(audit.NA),
		Class:   statusClass(audit.NA),
		Note:    t.line(strings.Join(notes, "; ")),
		Fold:    id,
	}
	v.Anchor = v.ID
	rv.Verdicts = append(rv.Verdicts, v)
	rv.NotThen += n
}

// resultOf is the result of s for the rule numbered n (the last, should
// there be several), or nil.
func resultOf(s *audit.Subject, n int) *audit.Result {
	var res *audit.Result
	for _, x := range s.Results {
		if x.Rule.N == n {
			res = x
		}
	}
	return res
}

// addVerdict adds v, of status, to its rule rv and counts it; a failure
// is listed on the page too.
func (body *auditPage) addVerdict(rv *ruleView, v verdictView, status audit.Status) {
	rv.Verdicts = append(rv.Verdicts, v)
	switch status {
	case audit.Pass:
		rv.Passed++
	case audit.Fail:
		rv.Failed++
		fv := v
		fv.ID = fmt.Sprintf("failure-%d", len(body.Failures)+1)
		body.Failures = append(body.Failures, fv)
	default:
		rv.NotThen++
	}
}

// auditVerdict is the page's verdict and title: how many checks passed
// of those that apply, and those that failed or are incomplete.
func auditVerdict(r *audit.Report, score string) (verdict, title string) {
	p, f, a := r.Score()
	verdict = "passed"
	title = fmt.Sprintf("%d of %d applicable checks passed", p, a)
	switch {
	case f > 0:
		verdict = "failed"
		title += fmt.Sprintf(", %d failed", f)
	case !r.Complete():
		verdict = "incomplete"
		title += fmt.Sprintf(", %d incomplete", r.Unchecked())
	case score == "":
		verdict, title = "failed", "nothing was checked"
	}
	if score != "" {
		title += " (" + score + ")"
	}
	return verdict, title
}

func statusClass(s audit.Status) string {
	switch s {
	case audit.Pass:
		return "status-pass"
	case audit.Fail:
		return "status-fail"
	case audit.Incomplete:
		return "status-incomplete"
	}
	return "status-na"
}

// statusWord is the status as the text report writes it.
func statusWord(s audit.Status) string {
	if s == audit.Fail {
		return "FAIL"
	}
	return string(s)
}

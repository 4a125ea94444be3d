package htmlreport

import (
	"fmt"
	"io"

	"github.com/askback/askback/internal/checks/audit"
)

// auditPage is the body of an `audit` report.
type auditPage struct {
	Server, Protocol                       string
	Score                                  string // "92%", or "" when nothing was checked
	Passed, Failed, Applicable, Incomplete int
	NothingChecked, Stopped                string
	Unprobed                               []string
	Failures                               []verdictView
	Rules                                  []ruleView
	Subjects                               []subjectView // the matrix: a row per subject, a cell per rule
	RuleNumbers                            []int
}

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
}

type evidenceView struct{ What, Sent, Got string }

// subjectView is one row of the matrix.
type subjectView struct {
	Label   string
	Skipped string
	Cells   []cellView
}

type cellView struct {
	Status, Class, Title, Anchor string
}

// WriteAudit writes the page of an audit: the score, the failed rules
// first with their evidence (what the probe did, the request sent and the
// answer it got), a table of every subject against every rule, then each
// rule with its verdict for each subject.
func WriteAudit(w io.Writer, m Meta, r *audit.Report) error {
	t := text{m.Hide}
	p, f, a := r.Score()
	body := auditPage{Server: t.line(r.Server), Protocol: t.line(r.Protocol), Passed: p, Failed: f, Applicable: a,
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
	for si, s := range r.Subjects {
		body.Subjects = append(body.Subjects, body.subjectRow(t, rules, si, s))
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
	row := subjectView{Label: t.line(s.Label()), Skipped: t.line(s.Skipped)}
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

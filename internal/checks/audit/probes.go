package audit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checker collects the results of one subject.
type checker struct {
	s       *Subject
	results map[int]*Result
	// cut reports that the audit's time limit has run out: a probe cut
	// short sees no answer, which is no evidence of a failure.
	cut func() bool
}

func newChecker(s *Subject, cut func() bool) *checker {
	c := &checker{s: s, results: map[int]*Result{}, cut: cut}
	for _, r := range subjectRules() {
		c.results[r.N] = &Result{Rule: r, Status: NA}
	}
	return c
}

func (c *checker) get(r Rule) *Result { return c.results[r.N] }

// fail records a failure of r with evidence, unless the audit's time
// limit has run out (the probe that found it may have been cut short).
func (c *checker) fail(r Rule, ev ...Evidence) {
	if c.cut() {
		return
	}
	res := c.get(r)
	res.Status, res.Note = Fail, ""
	res.Evidence = append(res.Evidence, ev...)
}

// pass records a pass unless r already failed.
func (c *checker) pass(r Rule, note string) {
	if res := c.get(r); res.Status != Fail {
		res.Status, res.Note = Pass, note
	}
}

// incomplete records that r could not be checked, and why.
func (c *checker) incomplete(r Rule, note string) {
	res := c.get(r)
	res.Status, res.Note = Incomplete, note
}

// na records why r does not apply, unless it already has an outcome.
func (c *checker) na(r Rule, note string) {
	if res := c.get(r); res.Status == NA && res.Note == "" {
		res.Note = note
	}
}

func (c *checker) finish() {
	for _, r := range subjectRules() {
		if res := c.results[r.N]; res.Status == NA && res.Note == "" {
			res.Note = "the probes could not repeat the call's rounds the same way"
		}
		c.s.Results = append(c.s.Results, c.results[r.N])
	}
}

// extraKey is the key of the answer nobody asked for.
const extraKey = "mcp-tester-audit-unrequested"

// otherTarget is the target with the second identity's headers in place of
// the first's.
func (a *auditor) otherTarget() *target.Target {
	t := *a.opts.Target
	other, _ := target.ParseHeaders(a.opts.OtherHeaders)
	var hs []string
	for _, l := range t.Headers {
		name, _, _ := strings.Cut(l, ":")
		if _, replaced := other[httpCanonical(name)]; !replaced {
			hs = append(hs, l)
		}
	}
	t.Headers = append(hs, a.opts.OtherHeaders...)
	if a.opts.OtherLogin != nil {
		t.Login = a.opts.OtherLogin
	}
	return &t
}

// id identifies a question by what it asks, so that the same question seen
// by several probes is judged once.
func (q question) id() string {
	return fmt.Sprintf("%s|%s|%s|%v", modeOf(q.params), q.params.Message, q.params.URL, shorten(mustJSON(q.params.RequestedSchema)))
}

func (q question) evidence(what string) Evidence {
	e := Evidence{What: what}
	if q.probe != "" {
		e.What += " (probe: " + q.probe + ")"
	}
	if q.ex != nil {
		e.Sent, e.Got = q.ex.request(), q.ex.response()
	} else {
		e.Got = "elicitation/create " + shorten(mustJSON(q.params))
	}
	return e
}

func modeOf(p *mcp.ElicitParams) string {
	if p == nil || p.Mode == "" {
		return "form"
	}
	return p.Mode
}

func sortedKeys(m mcp.InputResponseMap) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// asksURLNow reports whether a round asks a URL question.
func asksURLNow(o outcome) bool {
	for _, r := range o.requests {
		if p, ok := r.(*mcp.ElicitParams); ok && modeOf(p) == "url" {
			return true
		}
	}
	return len(o.urlError) > 0
}

// unprobed records that a probe of subject could not connect, once per
// subject and error; it reports whether this one is new.
func (a *auditor) unprobed(s *Subject, err error) bool {
	if a.cut() {
		// Cut short by the audit's time limit, which the report tells of.
		return false
	}
	msg := s.Label() + ": " + firstLine(err.Error())
	for _, m := range a.rep.Unprobed {
		if m == msg {
			return false
		}
	}
	a.rep.Unprobed = append(a.rep.Unprobed, msg)
	return true
}

// describeChange says where bad first differs from good.
func describeChange(good, bad string) string {
	i := 0
	for i < len(good) && i < len(bad) && good[i] == bad[i] {
		i++
	}
	if len(bad) != len(good) && i == min(len(good), len(bad)) {
		return fmt.Sprintf("%d of %d characters kept", len(bad), len(good))
	}
	return fmt.Sprintf("first change at character %d of %d", i+1, len(good))
}

// undeclaredIn names the questions of a round that are not elicitations
// (sampling, roots), which the audit never answers; "" when there are none.
func undeclaredIn(o outcome) string {
	var out []string
	for _, k := range sortedRequestKeys(o.requests) {
		if _, ok := o.requests[k].(*mcp.ElicitParams); !ok {
			out = append(out, requestKind(o.requests[k]))
		}
	}
	return strings.Join(dedupe(out), ", ")
}

func sortedRequestKeys(m mcp.InputRequestMap) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

package audit

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/target"
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

// auditSubject runs every probe for one subject.
func (a *auditor) auditSubject(ctx context.Context, s *subject) {
	c := newChecker(s.report, a.cut)
	defer c.finish()
	var seen []question
	probeErr := func(err error) {
		if err != nil && a.unprobed(s.report, err) {
			a.progress("  %s: a probe could not connect: %v", s.report.Label(), firstLine(err.Error()))
		}
	}

	// The baseline: everything declared, every question accepted.
	var base *flowResult
	var legacyEndless atomic.Bool
	err := a.withProbe(ctx, capsAll, nil, func(p *probe) {
		p.setPolicy(acceptPolicy(a.opts.MaxRounds, &legacyEndless))
		base = a.flow(ctx, p, s, s.args, acceptAll, a.opts.MaxRounds, true, "every question accepted")
	})
	if err != nil {
		a.unprobed(s.report, err)
		for _, r := range subjectRules() {
			c.na(r, "could not connect: "+firstLine(err.Error()))
		}
		return
	}
	seen = append(seen, base.questions...)
	s.report.Asks = len(base.questions) > 0
	last := base.last()
	if !s.report.Asks && last.kind == kBroken {
		// No answer at all: nothing about the subject can be told, and the
		// other probes would wait as long for nothing.
		for _, r := range subjectRules() {
			c.incomplete(r, "the call got no answer: "+firstLine(noAnswerReason(last)))
		}
		return
	}
	asksNothing := "asks nothing"
	if !s.report.Asks && last.kind != kComplete {
		asksNothing = "asks nothing: the call ends in " + firstLine(last.describe())
	}

	// Rule 4: no elicitation declared, nothing asked.
	probeErr(a.withProbe(ctx, capsNone, nil, func(p *probe) {
		p.setPolicy(nil)
		f := a.flow(ctx, p, s, s.args, acceptAll, 1, false, "no elicitation declared")
		seen = append(seen, f.questions...)
		for _, q := range f.questions {
			c.fail(RuleNoCapability, q.evidence(fmt.Sprintf("the client declared no elicitation; the server asked a %s question", modeOf(q.params))))
		}
		for _, u := range f.undeclared {
			c.fail(RuleNoCapability, Evidence{What: "the client declared nothing; the server asked for " + u, Sent: f.last().ex.request(), Got: f.last().ex.response()})
		}
	}))
	for _, u := range dedupe(base.undeclared) {
		c.fail(RuleNoCapability, Evidence{What: "the client declared no sampling or roots; the server asked for " + u})
	}
	if s.report.Asks {
		c.pass(RuleNoCapability, "")
	} else {
		c.na(RuleNoCapability, asksNothing)
	}

	// Rule 5: forms only, never a URL.
	asksURL := false
	for _, q := range base.questions {
		asksURL = asksURL || modeOf(q.params) == "url"
	}
	for _, caps := range []capSet{capsForms, capsEmpty} {
		probeErr(a.withProbe(ctx, caps, nil, func(p *probe) {
			p.setPolicy(acceptPolicy(a.opts.MaxRounds, nil))
			f := a.flow(ctx, p, s, s.args, acceptAll, a.opts.MaxRounds, false, caps.String())
			seen = append(seen, f.questions...)
			for _, q := range f.questions {
				if modeOf(q.params) == "url" {
					c.fail(RuleFormsOnly, q.evidence(fmt.Sprintf("the client declared %s; the server sent a URL question", caps)))
				}
			}
		}))
	}
	if asksURL {
		c.pass(RuleFormsOnly, "")
	} else {
		c.na(RuleFormsOnly, "asks no URL questions")
	}

	// Rules 6, 7 and 11 on every question seen so far; more are added below.
	defer func() { a.checkQuestions(c, seen) }()

	// Rule 10: answering ends the asking.
	switch {
	case base.endless && undeclaredIn(last) != "":
		c.na(RuleBounded, "the server keeps asking for "+undeclaredIn(last)+", which the audit does not answer")
	case base.endless && asksURLNow(last):
		// Accepting a URL question only says the user opened the link; the
		// server rightly asks again until the out-of-band step is done,
		// which the audit cannot do.
		c.na(RuleBounded, "the server waits for the browser step of a URL question, which the audit cannot take")
	case !a.modern && last.leaked:
		c.fail(RuleBounded, last.evidence(fmt.Sprintf("every question accepted, the server asks again in a result a protocol %s client cannot answer (inputRequests without input_required)", a.protocol)))
	case base.endless || legacyEndless.Load():
		c.fail(RuleBounded, last.evidence(fmt.Sprintf("every question accepted, the server still asks after %d rounds", len(base.rounds))))
	case s.report.Asks:
		c.pass(RuleBounded, fmt.Sprintf("ends after %d round(s)", len(base.rounds)))
	default:
		c.na(RuleBounded, asksNothing)
	}

	if !s.report.Asks {
		for _, r := range []Rule{RuleTamper, RuleReplay, RuleUser, RuleDecline, RuleMissing} {
			c.na(r, asksNothing)
		}
		return
	}

	if !a.modern {
		a.legacyDecline(ctx, c, s, &seen)
		note := fmt.Sprintf("protocol %s has no requestState or retried requests", a.protocol)
		for _, r := range []Rule{RuleTamper, RuleReplay, RuleUser, RuleMissing} {
			c.na(r, note)
		}
		return
	}

	// finalAt is the number of rounds before the one that completes.
	finalAt := len(base.rounds) - 1
	finalState := ""
	if base.completes() {
		finalState = base.sent[finalAt].state
	}
	notComparable := ""
	switch {
	case base.endless && undeclaredIn(last) != "":
		c.na(RuleBounded, "the server keeps asking for "+undeclaredIn(last)+", which the audit does not answer")
	case base.endless && asksURLNow(last):
		notComparable = "the call waits for the browser step of a URL question, which the audit cannot take"
	case base.endless:
		notComparable = "the call never completes with accepted answers"
	case last.kind == kErrorResult || last.kind == kRPCError:
		notComparable = fmt.Sprintf("the call ends in %s with the audit's answers (give the arguments with --args %s=JSON)", last.kind, s.name)
	case !base.completes():
		notComparable = "the call does not complete: " + last.describe()
	}

	// Rule 8: decline and cancel give a normal result, at each round.
	rounds := finalAt
	if notComparable != "" {
		rounds = 1
	}
	for r := 1; r <= min(rounds, 3); r++ {
		for _, action := range []string{"decline", "cancel"} {
			probeErr(a.withProbe(ctx, capsAll, nil, func(p *probe) {
				pending, _, ok := a.pendingAt(ctx, p, s, r)
				if !ok {
					return
				}
				o := pending
				for i := 0; i < a.opts.MaxRounds && o.kind == kInputRequired; i++ {
					o = a.send(ctx, p, s, s.args, answerAll(o.requests, action), o.state)
				}
				what := fmt.Sprintf("every question of round %d answered %s", r, action)
				switch {
				case o.kind == kInputRequired && undeclaredIn(o) != "":
					c.na(RuleDecline, "the server asks for "+undeclaredIn(o)+", which the audit does not answer")
					return
				}
				switch o.kind {
				case kComplete:
					c.pass(RuleDecline, "")
				case kInputRequired:
					c.fail(RuleDecline, o.evidence(what+": the server keeps asking"))
				default:
					c.fail(RuleDecline, o.evidence(what+": the server answered with "+o.kind.String()))
				}
			}))
		}
	}

	// Rule 9: a missing answer is asked again, an unknown one ignored.
	missingAt := finalAt
	if notComparable != "" {
		missingAt = 1
	}
	probeErr(a.withProbe(ctx, capsAll, nil, func(p *probe) {
		pending, answers, ok := a.pendingAt(ctx, p, s, missingAt)
		if !ok {
			return
		}
		keys := sortedKeys(answers)
		if len(keys) == 0 {
			return
		}
		delete(answers, keys[0])
		what := fmt.Sprintf("the answer to %q left out", keys[0])
		if len(answers) == 0 {
			// An empty inputResponses cannot be told from a first call: the
			// answers must be there, only not the one asked for.
			answers[extraKey] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"note": "an answer to another question"}}
			what += fmt.Sprintf(", an answer to %q sent instead", extraKey)
		}
		o := a.send(ctx, p, s, s.args, answers, pending.state)
		if o.kind == kErrorResult || o.kind == kRPCError || o.kind == kBroken {
			c.fail(RuleMissing, o.evidence(what+": the server failed instead of asking again"))
		} else {
			c.pass(RuleMissing, "")
		}
	}))
	if notComparable == "" {
		probeErr(a.withProbe(ctx, capsAll, nil, func(p *probe) {
			pending, answers, ok := a.pendingAt(ctx, p, s, finalAt)
			if !ok {
				return
			}
			answers[extraKey] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"note": "an answer nobody asked for"}}
			o := a.send(ctx, p, s, s.args, answers, pending.state)
			if o.kind == kErrorResult || o.kind == kRPCError || o.kind == kBroken {
				c.fail(RuleMissing, o.evidence(fmt.Sprintf("an extra answer %q added: the server failed instead of ignoring it", extraKey)))
			} else {
				c.pass(RuleMissing, "")
			}
		}))
	}

	// Rules 1, 2 and 3 compare with a call that completes.
	if notComparable != "" {
		for _, r := range []Rule{RuleTamper, RuleReplay, RuleUser} {
			c.na(r, notComparable)
		}
		return
	}
	if finalState == "" {
		for _, r := range []Rule{RuleTamper, RuleReplay, RuleUser} {
			c.na(r, "the server sends no requestState")
		}
		return
	}

	// Rule 1: tampered state.
	for _, t := range tampers(finalState) {
		probeErr(a.withProbe(ctx, capsAll, nil, func(p *probe) {
			pending, answers, ok := a.pendingAt(ctx, p, s, finalAt)
			if !ok {
				return
			}
			bad, ok := t.apply(pending.state)
			if !ok || bad == pending.state {
				return
			}
			o := a.send(ctx, p, s, s.args, answers, bad)
			if o.refused() {
				c.pass(RuleTamper, "")
				return
			}
			c.fail(RuleTamper, o.evidence(fmt.Sprintf("requestState tampered (%s; %s): the server completed the call", t.name, describeChange(pending.state, bad))))
		}))
	}
	c.na(RuleTamper, "no way to tamper with this requestState")

	// Rule 2: the state replayed with other arguments.
	if other, ok := varyArgs(s.args, s.schema); ok {
		probeErr(a.withProbe(ctx, capsAll, nil, func(p *probe) {
			pending, answers, ok := a.pendingAt(ctx, p, s, finalAt)
			if !ok {
				return
			}
			o := a.send(ctx, p, s, other, answers, pending.state)
			if o.refused() {
				c.pass(RuleReplay, "")
				return
			}
			c.fail(RuleReplay, o.evidence("requestState and answers of a call replayed on the same call with other arguments: the server completed it"))
		}))
	} else {
		c.na(RuleReplay, "no arguments to vary")
	}

	// Rule 3: the state presented by another user.
	switch {
	case a.opts.Target.URL == "":
		c.na(RuleUser, "a stdio server has a single user")
	case len(a.opts.OtherHeaders) == 0 && a.opts.OtherLogin == nil:
		c.na(RuleUser, "needs a second identity: --other-identity NAME (a second login) or --other-header \"Authorization: Bearer …\"")
	default:
		other := a.otherTarget()
		probeErr(a.withProbe(ctx, capsAll, nil, func(p *probe) {
			pending, answers, ok := a.pendingAt(ctx, p, s, finalAt)
			if !ok {
				return
			}
			err := a.withProbe(ctx, capsAll, other, func(q *probe) {
				o := a.send(ctx, q, s, s.args, answers, pending.state)
				if o.refused() {
					c.pass(RuleUser, "")
					return
				}
				c.fail(RuleUser, o.evidence("requestState issued to the first identity presented by the second (--other-header): the server completed the call"))
			})
			if err != nil {
				c.na(RuleUser, "the second identity could not connect: "+firstLine(err.Error()))
			}
		}))
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

// legacyDecline checks rule 8 for servers that ask with elicitation/create
// requests: declining or cancelling them must give a normal result.
func (a *auditor) legacyDecline(ctx context.Context, c *checker, s *subject, seen *[]question) {
	for _, action := range []string{"decline", "cancel"} {
		_ = a.withProbe(ctx, capsAll, nil, func(p *probe) {
			p.setPolicy(actionPolicy(action))
			f := a.flow(ctx, p, s, s.args, func(r mcp.InputRequestMap) mcp.InputResponseMap { return answerAll(r, action) }, a.opts.MaxRounds, false, action)
			*seen = append(*seen, f.questions...)
			o := f.last()
			switch {
			case len(f.questions) == 0:
			case o.kind == kComplete:
				c.pass(RuleDecline, "")
			case o.kind == kRPCError && len(o.urlError) > 0:
				// A URL-required error: declining means not repeating the call.
			default:
				c.fail(RuleDecline, o.evidence(fmt.Sprintf("every question answered %s: the server answered with %s", action, o.kind)))
			}
		})
	}
}

// checkQuestions applies rules 6, 7 and 11 to every question seen.
func (a *auditor) checkQuestions(c *checker, qs []question) {
	forms, urls := 0, 0
	done := map[string]bool{}
	for _, q := range qs {
		id := q.id()
		if done[id] {
			continue
		}
		done[id] = true
		if modeOf(q.params) == "url" {
			urls++
			if q.params.URL == "" {
				c.fail(RuleURL, q.evidence("a URL question without a url"))
				continue
			}
			for _, prob := range urlProblems(q.params.URL, a.credentials()) {
				c.fail(RuleURL, q.evidence(fmt.Sprintf("URL %s: %s", cutString(q.params.URL, 120), prob)))
			}
			continue
		}
		forms++
		if _, err := formschema.Parse(q.params.RequestedSchema); err != nil {
			c.fail(RuleSchema, q.evidence("the requested schema is outside the form subset: "+err.Error()))
		}
		for _, sec := range secretFields(q.params) {
			c.fail(RuleSecrets, q.evidence("a form asks for a secret: "+sec))
		}
	}
	if forms > 0 {
		c.pass(RuleSchema, fmt.Sprintf("%d form(s) checked", forms))
		c.pass(RuleSecrets, fmt.Sprintf("%d form(s) checked", forms))
	} else {
		c.na(RuleSchema, "asks no form questions")
		c.na(RuleSecrets, "asks no form questions")
	}
	if urls > 0 {
		c.pass(RuleURL, fmt.Sprintf("%d URL(s) checked", urls))
	} else {
		c.na(RuleURL, "asks no URL questions")
	}
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

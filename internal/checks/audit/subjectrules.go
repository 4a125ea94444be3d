package audit

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ruleCheck is how one rule is checked for a subject, defined once: what
// the rule needs of the baseline call, the probes it sends and the verdict
// it draws. auditSubject runs the checks of [subjectChecks] in their order.
type ruleCheck struct {
	rule Rule
	// needs is what the rule needs of the baseline; a subject that lacks
	// it leaves the rule not applicable, saying why.
	needs need
	// probe sends the rule's own probes and records what they find; nil:
	// the rule sends none.
	probe func(ctx context.Context, x *subjectAudit)
	// verdict decides the rule from the baseline and what the probes
	// found; nil: the probes decide.
	verdict func(x *subjectAudit)
}

// need is what a rule needs of the baseline call to be checked at all.
type need int

const (
	needNothing   need = iota
	needQuestions      // the subject asks something
	needRetries        // and the protocol has requestState and retried requests
	needState          // and the call completes, carrying a requestState
)

// subjectChecks are the rules checked for each subject, in the order their
// probes are sent. Rules 6, 7 and 11 judge every question the probes before
// them saw, so they come last.
var subjectChecks = []ruleCheck{
	{rule: RuleNoCapability, probe: probeNoCapability, verdict: verdictNoCapability},
	{rule: RuleFormsOnly, probe: probeFormsOnly, verdict: verdictFormsOnly},
	{rule: RuleBounded, verdict: verdictBounded},
	{rule: RuleDecline, needs: needQuestions, probe: probeDecline},
	{rule: RuleMissing, needs: needRetries, probe: probeMissing},
	{rule: RuleTamper, needs: needState, probe: probeTamper, verdict: verdictTamper},
	{rule: RuleReplay, needs: needState, probe: probeReplay},
	{rule: RuleUser, needs: needState, probe: probeUser},
	{rule: RuleSchema, verdict: verdictSchema},
	{rule: RuleSecrets, verdict: verdictSecrets},
	{rule: RuleURL, verdict: verdictURL},
}

// subjectAudit is the audit of one subject under way: the baseline call
// (everything declared, every question accepted) that every rule starts
// from, the questions seen so far and the results.
type subjectAudit struct {
	a *auditor
	s *subject
	c *checker

	base *flowResult
	last outcome // the baseline's last round
	// legacyEndless: the server kept asking with elicitation/create
	// requests past the bound.
	legacyEndless bool
	// asksNothing is why the rules about questions do not apply to a
	// subject that asks nothing.
	asksNothing string
	// finalAt is the number of rounds before the one that completes.
	finalAt int
	// finalState is the requestState the completing round sent back; "":
	// none, or the call does not complete.
	finalState string
	// notComparable says why the call cannot serve as the completed call
	// that rules 1, 2 and 3 compare with; "": it can.
	notComparable string
	// seen is every question seen by a probe, for rules 6, 7 and 11.
	seen []question
}

// auditSubject runs every probe for one subject.
func (a *auditor) auditSubject(ctx context.Context, s *subject) {
	c := newChecker(s.report, a.cut)
	defer c.finish()
	x := &subjectAudit{a: a, s: s, c: c}
	if !x.baseline(ctx) {
		return
	}
	for _, rc := range subjectChecks {
		if why := x.lacks(rc.needs); why != "" {
			c.na(rc.rule, why)
			continue
		}
		if rc.probe != nil {
			rc.probe(ctx, x)
		}
		if rc.verdict != nil {
			rc.verdict(x)
		}
	}
}

// baseline sends the call with everything declared and every question
// accepted. It reports false, with every rule's outcome recorded, when
// nothing can be told of the subject.
func (x *subjectAudit) baseline(ctx context.Context) bool {
	a, s := x.a, x.s
	notCalled, err := x.sendBaseline(ctx)
	if err != nil {
		a.unprobed(s.report, err)
		for _, r := range subjectRules() {
			x.c.na(r, "could not connect: "+firstLine(err.Error()))
		}
		return false
	}
	if notCalled != "" {
		s.report.NotCalled = strings.TrimPrefix(notCalled, "not called: ")
		for _, r := range subjectRules() {
			x.c.na(r, notCalled)
		}
		return false
	}
	base := x.base
	x.seen = append(x.seen, base.questions...)
	s.report.Asks = len(base.questions) > 0
	x.last = base.last()
	if !s.report.Asks && x.last.kind == kBroken {
		// No answer at all: nothing about the subject can be told, and the
		// other probes would wait as long for nothing.
		note := "the call got no answer: " + firstLine(noAnswerReason(x.last))
		if broke := protocolBroken(x.last); broke != "" {
			s.report.Broke = firstLine(broke)
			note = "the server broke the protocol: " + s.report.Broke
		}
		for _, r := range subjectRules() {
			x.c.incomplete(r, note)
		}
		return false
	}
	x.asksNothing = asksNothingNote
	switch {
	case s.report.Asks || x.last.kind == kComplete:
	case x.last.kind == kErrorResult || x.last.kind == kRPCError:
		// Refused before it asked anything (arguments it could not use,
		// often the audit's own made-up ones): what it asks is not known.
		x.asksNothing = callErrorNote + " " + firstLine(x.last.describe()) + " before it asked anything, so what it asks is not known"
		if s.report.ArgsMadeUp {
			// The report's name is what --args goes by (a template's is
			// the template), as MadeUpLine says it.
			x.asksNothing += fmt.Sprintf(": the audit made up its arguments; give ones it takes with %s %s=JSON", a.opts.Name.Word(OptionArgs), s.report.Name)
		}
	default:
		x.asksNothing = asksNothingNote + ": the call ends in " + firstLine(x.last.describe())
	}
	x.finalAt = len(base.rounds) - 1
	if base.completes() {
		x.finalState = base.sent[x.finalAt].state
	}
	x.notComparable = x.incomparable()
	return true
}

// sendBaseline sends the baseline call (into x.base), unless the subject
// is a tool that runs only as a task: then it says why it is not called.
func (x *subjectAudit) sendBaseline(ctx context.Context) (notCalled string, err error) {
	a, s := x.a, x.s
	var legacyEndless atomic.Bool
	err = a.withProbe(ctx, capsAll, nil, func(p *probe) {
		if s.kind == "tool" {
			if required, why := p.s.TaskRequired(ctx, s.name); required && why != "" {
				// The server would refuse a plain call: it says nothing
				// of what the tool asks.
				notCalled = fmt.Sprintf("not called: it runs only as a task (execution.taskSupport \"required\") and %s", why)
				return
			}
		}
		p.setPolicy(acceptPolicy(a.opts.MaxRounds, &legacyEndless))
		x.base = a.flow(ctx, p, s, s.args, acceptAll, a.opts.MaxRounds, true, "every question accepted")
	})
	x.legacyEndless = legacyEndless.Load()
	return notCalled, err
}

// incomparable says why the baseline's last round cannot be compared
// with other probes' (it never completes, or ends in an error), or "".
func (x *subjectAudit) incomparable() string {
	base, last := x.base, x.last
	switch {
	case base.endless && undeclaredIn(last) != "":
		// Rule 10 says why; the rules below try the rounds there are.
	case base.endless && asksURLNow(last):
		return "the call waits for the browser step of a URL question, which the audit cannot take"
	case base.endless:
		return "the call never completes with accepted answers"
	case last.kind == kErrorResult || last.kind == kRPCError:
		return fmt.Sprintf("the call ends in %s with the audit's answers (give the arguments with %s %s=JSON)", last.kind, x.a.opts.Name.Word(OptionArgs), x.s.name)
	case !base.completes():
		return "the call does not complete: " + last.describe()
	}
	return ""
}

// lacks says why the subject cannot be checked against a rule that needs
// n; "" when it can.
func (x *subjectAudit) lacks(n need) string {
	switch {
	case n >= needRetries && !x.a.modern:
		// The rule's own reason, whatever the subject asks: giving it
		// other arguments would change nothing.
		return fmt.Sprintf("protocol %s has no requestState or retried requests", x.a.protocol)
	case n >= needQuestions && !x.s.report.Asks:
		return x.asksNothing
	case n >= needState && x.notComparable != "":
		return x.notComparable
	case n >= needState && x.finalState == "":
		return "the server sends no requestState"
	}
	return ""
}

// probe runs fn on a fresh probe with caps declared (as the identity of t
// when it is set); a probe that cannot connect is reported once.
func (x *subjectAudit) probe(ctx context.Context, caps capSet, t *target.Target, fn func(p *probe)) {
	err := x.a.withProbe(ctx, caps, t, fn)
	if err != nil && x.a.unprobed(x.s.report, err) {
		x.a.progress("  %s: a probe could not connect: %v", x.s.report.Label(), firstLine(err.Error()))
	}
}

// Rule 4: no elicitation declared, nothing asked.
func probeNoCapability(ctx context.Context, x *subjectAudit) {
	a, s, c := x.a, x.s, x.c
	x.probe(ctx, capsNone, nil, func(p *probe) {
		p.setPolicy(nil)
		f := a.flow(ctx, p, s, s.args, acceptAll, 1, false, "no elicitation declared")
		x.seen = append(x.seen, f.questions...)
		for _, q := range f.questions {
			c.fail(RuleNoCapability, q.evidence(fmt.Sprintf("the client declared no elicitation; the server asked a %s question", modeOf(q.params))))
		}
		for _, u := range f.undeclared {
			c.fail(RuleNoCapability, Evidence{What: "the client declared nothing; the server asked for " + u, Sent: f.last().ex.request(), Got: f.last().ex.response()})
		}
	})
}

func verdictNoCapability(x *subjectAudit) {
	for _, u := range dedupe(x.base.undeclared) {
		x.c.fail(RuleNoCapability, Evidence{What: "the client declared no sampling or roots; the server asked for " + u})
	}
	if x.s.report.Asks {
		x.c.pass(RuleNoCapability, "")
	} else {
		x.c.na(RuleNoCapability, x.asksNothing)
	}
}

// Rule 5: forms only, never a URL.
func probeFormsOnly(ctx context.Context, x *subjectAudit) {
	a, s := x.a, x.s
	for _, caps := range []capSet{capsForms, capsEmpty} {
		x.probe(ctx, caps, nil, func(p *probe) {
			p.setPolicy(acceptPolicy(a.opts.MaxRounds, nil))
			f := a.flow(ctx, p, s, s.args, acceptAll, a.opts.MaxRounds, false, caps.String())
			x.seen = append(x.seen, f.questions...)
			for _, q := range f.questions {
				if modeOf(q.params) == "url" {
					x.c.fail(RuleFormsOnly, q.evidence(fmt.Sprintf("the client declared %s; the server sent a URL question", caps)))
				}
			}
		})
	}
}

func verdictFormsOnly(x *subjectAudit) {
	for _, q := range x.base.questions {
		if modeOf(q.params) == "url" {
			x.c.pass(RuleFormsOnly, "")
			return
		}
	}
	x.c.na(RuleFormsOnly, "asks no URL questions")
}

// Rule 10: answering ends the asking.
func verdictBounded(x *subjectAudit) {
	a, base, last, c := x.a, x.base, x.last, x.c
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
	case base.endless || x.legacyEndless:
		rounds := len(base.rounds)
		if !a.modern {
			// Each question a request of its own: a round each.
			rounds = len(base.questions)
		}
		c.fail(RuleBounded, last.evidence(fmt.Sprintf("every question accepted, the server still asks after %d rounds", rounds)))
	case x.s.report.Asks:
		c.pass(RuleBounded, fmt.Sprintf("ends after %d round(s)", len(base.rounds)))
	default:
		c.na(RuleBounded, x.asksNothing)
	}
}

// Rule 8: decline and cancel give a normal result, at each round (of the
// first three); a server that asks with elicitation/create requests is
// declined there.
func probeDecline(ctx context.Context, x *subjectAudit) {
	if !x.a.modern {
		probeLegacyDecline(ctx, x)
		return
	}
	a, s, c := x.a, x.s, x.c
	rounds := x.finalAt
	if x.notComparable != "" {
		rounds = 1
	}
	for r := 1; r <= min(rounds, 3); r++ {
		for _, action := range []string{"decline", "cancel"} {
			x.probe(ctx, capsAll, nil, func(p *probe) {
				pending, _, ok := a.pendingAt(ctx, p, s, r)
				if !ok {
					return
				}
				o := pending
				for i := 0; i < a.opts.MaxRounds && o.kind == kInputRequired; i++ {
					o = a.send(ctx, p, s, s.args, answerAll(o.requests, action), o.state)
				}
				judgeDecline(c, o, fmt.Sprintf("every question of round %d answered %s", r, action))
			})
		}
	}
}

// judgeDecline gives rule 8 its verdict on o, the last answer to a call
// whose questions were declined or cancelled (what says how): a normal
// result passes, more questions or an error fail.
func judgeDecline(c *checker, o outcome, what string) {
	switch {
	case o.kind == kInputRequired && undeclaredIn(o) != "":
		c.na(RuleDecline, "the server asks for "+undeclaredIn(o)+", which the audit does not answer")
	case o.kind == kComplete:
		c.pass(RuleDecline, "")
	case o.kind == kInputRequired:
		c.fail(RuleDecline, o.evidence(what+": the server keeps asking"))
	default:
		c.fail(RuleDecline, o.evidence(what+": the server answered with "+o.kind.String()))
	}
}

// probeLegacyDecline checks rule 8 for servers that ask with
// elicitation/create requests: declining or cancelling them must give a
// normal result.
func probeLegacyDecline(ctx context.Context, x *subjectAudit) {
	a, s, c := x.a, x.s, x.c
	for _, action := range []string{"decline", "cancel"} {
		_ = a.withProbe(ctx, capsAll, nil, func(p *probe) {
			p.setPolicy(actionPolicy(action))
			f := a.flow(ctx, p, s, s.args, func(r mcp.InputRequestMap) mcp.InputResponseMap { return answerAll(r, action) }, a.opts.MaxRounds, false, action)
			x.seen = append(x.seen, f.questions...)
			o := f.last()
			switch {
			case len(f.questions) == 0:
			case o.kind == kComplete:
				c.pass(RuleDecline, "")
			case o.kind == kRPCError && len(o.urlError) > 0:
				// A URL-required error: declining means not repeating the call.
			case o.keptAsking:
				c.fail(RuleDecline, o.evidence(fmt.Sprintf("every question answered %s: the server keeps asking", action)))
			default:
				c.fail(RuleDecline, o.evidence(fmt.Sprintf("every question answered %s: the server answered with %s", action, o.kind)))
			}
		})
	}
}

// Rule 9: a missing answer is asked again, an unknown one ignored.
func probeMissing(ctx context.Context, x *subjectAudit) {
	a, s, c := x.a, x.s, x.c
	missingAt := x.finalAt
	if x.notComparable != "" {
		missingAt = 1
	}
	x.probe(ctx, capsAll, nil, func(p *probe) {
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
		if o.failed() {
			c.fail(RuleMissing, o.evidence(what+": the server failed instead of asking again"))
		} else {
			c.pass(RuleMissing, "")
		}
	})
	if x.notComparable != "" {
		return
	}
	x.probe(ctx, capsAll, nil, func(p *probe) {
		pending, answers, ok := a.pendingAt(ctx, p, s, x.finalAt)
		if !ok {
			return
		}
		answers[extraKey] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"note": "an answer nobody asked for"}}
		o := a.send(ctx, p, s, s.args, answers, pending.state)
		if o.failed() {
			c.fail(RuleMissing, o.evidence(fmt.Sprintf("an extra answer %q added: the server failed instead of ignoring it", extraKey)))
		} else {
			c.pass(RuleMissing, "")
		}
	})
}

// Rule 1: tampered state.
func probeTamper(ctx context.Context, x *subjectAudit) {
	a, s, c := x.a, x.s, x.c
	for _, t := range tampers(x.finalState) {
		x.probe(ctx, capsAll, nil, func(p *probe) {
			pending, answers, ok := a.pendingAt(ctx, p, s, x.finalAt)
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
		})
	}
}

func verdictTamper(x *subjectAudit) {
	x.c.na(RuleTamper, "no way to tamper with this requestState")
}

// Rule 2: the state replayed with other arguments.
func probeReplay(ctx context.Context, x *subjectAudit) {
	a, s, c := x.a, x.s, x.c
	other, ok := varyArgs(s.args, s.schema)
	if !ok {
		c.na(RuleReplay, "no arguments to vary")
		return
	}
	x.probe(ctx, capsAll, nil, func(p *probe) {
		pending, answers, ok := a.pendingAt(ctx, p, s, x.finalAt)
		if !ok {
			return
		}
		o := a.send(ctx, p, s, other, answers, pending.state)
		if o.refused() {
			c.pass(RuleReplay, "")
			return
		}
		c.fail(RuleReplay, o.evidence("requestState and answers of a call replayed on the same call with other arguments: the server completed it"))
	})
}

// Rule 3: the state presented by another user.
func probeUser(ctx context.Context, x *subjectAudit) {
	a, s, c := x.a, x.s, x.c
	switch {
	case a.opts.Target.URL == "":
		c.na(RuleUser, "a stdio server has a single user")
		return
	case len(a.opts.OtherHeaders) == 0 && a.opts.OtherLogin == nil:
		c.na(RuleUser, fmt.Sprintf("needs a second identity: %s NAME (a second login) or %s \"Authorization: Bearer …\"", a.opts.Name.Word(OptionOtherLogin), a.opts.Name.Word(OptionOtherHeaders)))
		return
	}
	other := a.otherTarget()
	secondIdentity := OptionOtherHeaders
	if a.opts.OtherLogin != nil {
		secondIdentity = OptionOtherLogin
	}
	x.probe(ctx, capsAll, nil, func(p *probe) {
		pending, answers, ok := a.pendingAt(ctx, p, s, x.finalAt)
		if !ok {
			return
		}
		err := a.withProbe(ctx, capsAll, other, func(q *probe) {
			o := a.send(ctx, q, s, s.args, answers, pending.state)
			if o.refused() {
				c.pass(RuleUser, "")
				return
			}
			c.fail(RuleUser, o.evidence(fmt.Sprintf("requestState issued to the first identity presented by the second (%s): the server completed the call", a.opts.Name.Word(secondIdentity))))
		})
		if err != nil {
			c.na(RuleUser, "the second identity could not connect: "+firstLine(err.Error()))
		}
	})
}

// distinct returns the questions seen, each once: the same question seen
// by several probes is judged once.
func (x *subjectAudit) distinct() []question {
	var out []question
	done := map[string]bool{}
	for _, q := range x.seen {
		if id := q.id(); !done[id] {
			done[id] = true
			out = append(out, q)
		}
	}
	return out
}

// Rule 6: form schemas stay within the restricted subset.
func verdictSchema(x *subjectAudit) {
	forms := 0
	for _, q := range x.distinct() {
		if modeOf(q.params) == "url" {
			continue
		}
		forms++
		if _, err := formschema.Parse(q.params.RequestedSchema); err != nil {
			x.c.fail(RuleSchema, q.evidence("the requested schema is outside the form subset: "+err.Error()))
		}
	}
	x.formsChecked(RuleSchema, forms)
}

// Rule 7: forms never ask for secrets.
func verdictSecrets(x *subjectAudit) {
	forms := 0
	for _, q := range x.distinct() {
		if modeOf(q.params) == "url" {
			continue
		}
		forms++
		for _, sec := range secretFields(q.params) {
			x.c.fail(RuleSecrets, q.evidence("a form asks for a secret: "+sec))
		}
	}
	x.formsChecked(RuleSecrets, forms)
}

func (x *subjectAudit) formsChecked(r Rule, forms int) {
	if forms > 0 {
		x.c.pass(r, fmt.Sprintf("%d form(s) checked", forms))
	} else {
		x.c.na(r, "asks no form questions")
	}
}

// Rule 11: URL questions use https and carry no credentials.
func verdictURL(x *subjectAudit) {
	urls := 0
	for _, q := range x.distinct() {
		if modeOf(q.params) != "url" {
			continue
		}
		urls++
		if q.params.URL == "" {
			x.c.fail(RuleURL, q.evidence("a URL question without a url"))
			continue
		}
		for _, prob := range urlProblems(q.params.URL, x.a.credentials(), x.a.opts.Target.Where()) {
			x.c.fail(RuleURL, q.evidence(fmt.Sprintf("URL %s: %s", cutString(q.params.URL, 120), prob)))
		}
	}
	if urls > 0 {
		x.c.pass(RuleURL, fmt.Sprintf("%d URL(s) checked", urls))
	} else {
		x.c.na(RuleURL, "asks no URL questions")
	}
}

package asktest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/text/termsafe"
)

// AuditOptions say how [Audit] probes the server. The zero value (or nil)
// speaks the newest protocol both know, calls every tool, prompt and
// resource with arguments made up from their schemas, and checks every
// rule.
type AuditOptions struct {
	// Era is the protocol version to speak; empty: the newest both know.
	Era Era
	// Args are the arguments to call a tool or get a prompt with, by name;
	// the others get arguments made up from their schemas. A name the
	// server does not have, or arguments that do not fit the tool's
	// schema, fail the test before anything is called.
	Args map[string]map[string]any
	// Include names the tools marked destructive (or not marked at all)
	// that the audit may call; nil calls every tool: the server of a test
	// is the test's. Tools left out are reported skipped.
	Include []string
	// Skip skips rules by name (their ID, such as "state-bound-to-user",
	// see [Rules]), each with the reason the test gives: their findings are
	// logged, and fail nothing.
	Skip map[string]string
	// MaxRounds bounds the rounds of one call; zero means 10.
	MaxRounds int
	// Timeout bounds each request of the audit: a call that takes longer
	// leaves its rules unchecked, which fails the test. Zero: no bound but
	// the test's deadline (go test -timeout), which a tool that never
	// answers uses up.
	Timeout time.Duration
}

// Rules lists the names of the audit's rules of asking, in order, each
// with what a server must do ("state-tamper: tampered requestState is
// refused"): what [AuditOptions.Skip] names.
func Rules() []string {
	var out []string
	for _, r := range audit.Rules() {
		out = append(out, r.ID+": "+r.Title)
	}
	return out
}

// Audit runs the rules of asking of mcp-tester audit against the server
// tg: it lists the server's tools, prompts and resources, calls each, and
// for each that asks, probes it with tampered and replayed requestStates,
// clients that declare less, declined and cancelled answers, missing and
// unknown answers. Each rule a subject breaks fails the test with the rule
// and the evidence (what was sent, what came back); so do a check that
// could not be made (a call that got no answer), and an audit that checked
// nothing (no subject asked a question). The sessions it opens are closed
// before it returns, and the test fails if one of an in-memory server is
// still running.
func Audit(tb testing.TB, tg Target, opts *AuditOptions) {
	tb.Helper()
	if opts == nil {
		opts = &AuditOptions{}
	}
	checkSkip(tb, opts.Skip)
	tr := &tracker{}
	t, err := tg.target(tr)
	if err != nil {
		tb.Fatal(err)
	}
	include := opts.Include
	if include == nil {
		include = []string{"*"}
	}
	ctx, cancel := testContext(tb)
	defer cancel()
	if err := checkEra(opts.Era); err != nil {
		tb.Fatal(err)
	}
	rep, err := audit.Run(ctx, audit.Options{
		Hint:          optionHint,
		Name:          auditOptionName,
		Target:        t,
		Protocol:      string(opts.Era),
		Include:       include,
		Args:          opts.Args,
		MaxRounds:     opts.MaxRounds,
		Timeout:       opts.Timeout,
		ClientName:    "asktest-audit",
		ClientVersion: "1",
	})
	for _, l := range tr.left() {
		tb.Errorf("asktest: %s", l)
	}
	if err != nil {
		hint := ""
		if ctx.Err() != nil && tb.Context().Err() == nil {
			hint = "\n  the test's deadline (go test -timeout) was near: does a tool never answer? AuditOptions.Timeout bounds each request"
		}
		tb.Fatalf("asktest: audit of %s: %s%s", tg, err, hint)
	}
	reportResults(tb, rep, opts.Skip)
	for _, u := range rep.Unprobed {
		tb.Errorf("audit: a probe could not connect: %s", u)
	}
	if rep.Stopped != "" {
		tb.Errorf("audit: stopped before the end: %s", rep.Stopped)
	}
	if why := rep.NothingChecked(); why != "" {
		tb.Errorf("audit of %s checked nothing: %s", tg, why)
	}
}

// checkSkip stops the test when AuditOptions.Skip names a rule that does
// not exist, or skips one without a reason.
func checkSkip(tb testing.TB, skip map[string]string) {
	tb.Helper()
	known := map[string]bool{}
	for _, r := range audit.Rules() {
		known[r.ID] = true
	}
	for id, why := range skip {
		switch {
		case !known[id]:
			tb.Fatalf("asktest: AuditOptions.Skip: no rule is named %q; the rules are:\n  %s", id, strings.Join(Rules(), "\n  "))
		case strings.TrimSpace(why) == "":
			tb.Fatalf("asktest: AuditOptions.Skip[%q]: give the reason the rule is skipped", id)
		}
	}
}

// reportResults fails the test for each rule a subject breaks, or that
// could not be checked, unless the test skips it (then only logged).
func reportResults(tb testing.TB, rep *audit.Report, skip map[string]string) {
	tb.Helper()
	for _, s := range rep.Subjects {
		if s.Skipped != "" {
			tb.Logf("audit: %s skipped: %s", s.Label(), s.Skipped)
		}
		for _, res := range s.Results {
			why, skipped := skip[res.Rule.ID]
			switch {
			case res.Status == audit.Fail && skipped:
				tb.Logf("audit: %s breaks rule %d %s, which the test skips (%s):\n%s", s.Label(), res.Rule.N, res.Rule.ID, why, evidence(res))
			case res.Status == audit.Fail:
				tb.Errorf("audit: %s breaks rule %d %s: %s\n%s", s.Label(), res.Rule.N, res.Rule.ID, res.Rule.Title, evidence(res))
			case res.Status == audit.Incomplete && !skipped:
				tb.Errorf("audit: %s: rule %d %s could not be checked: %s", s.Label(), res.Rule.N, res.Rule.ID, termsafe.Line(res.Note))
			}
		}
	}
}

// evidence writes what shows a failure, one item a line.
func evidence(res *audit.Result) string {
	var b strings.Builder
	for _, e := range res.Evidence {
		fmt.Fprintf(&b, "  - %s\n", termsafe.Line(e.What))
		if e.Sent != "" {
			fmt.Fprintf(&b, "    sent: %s\n", termsafe.Line(e.Sent))
		}
		if e.Got != "" {
			fmt.Fprintf(&b, "    got:  %s\n", termsafe.Line(e.Got))
		}
	}
	if res.Note != "" {
		fmt.Fprintf(&b, "  (%s)\n", termsafe.Line(res.Note))
	}
	return strings.TrimRight(b.String(), "\n")
}

// auditOptionName names an option of the audit as the field of
// AuditOptions that gives it; the options AuditOptions has no field for
// keep the audit's own names.
func auditOptionName(o audit.Option) string {
	switch o {
	case audit.OptionInclude, audit.OptionArgs:
		return "AuditOptions." + o.String()
	case audit.OptionProtocol:
		return "AuditOptions.Era"
	}
	return ""
}

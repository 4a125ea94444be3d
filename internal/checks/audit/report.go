package audit

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/text/optname"
)

// Status is the outcome of one rule for one subject.
type Status string

// The statuses of a rule.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	NA   Status = "n/a" // the rule does not apply to what the subject does
	// Incomplete: the subject's call got no answer (within --timeout, or
	// the connection failed), so the rule could not be checked. It is not
	// a pass, and the audit is then incomplete.
	Incomplete Status = "incomplete"
)

// Evidence is what shows a failure: what was done, the request sent and the
// response received, each shortened.
type Evidence struct {
	What string `json:"what"`
	Sent string `json:"sent,omitempty"`
	Got  string `json:"got,omitempty"`
}

// Result is one rule's outcome for one subject.
type Result struct {
	Rule     Rule       `json:"-"`
	Status   Status     `json:"status"`
	Note     string     `json:"note,omitempty"` // why n/a, or a remark on a pass
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Subject is a tool, a prompt, a resource, or the server as a whole, with
// the outcome of each rule checked for it.
type Subject struct {
	Kind string `json:"kind"` // tool, prompt, resource or server
	Name string `json:"name"` // the tool or prompt name, the resource URI; empty for the server
	// Skipped, when not empty, says why the subject was not called at all
	// (a destructive tool the audit was not told it may call, or with
	// ReadOnly one not marked read-only), then how to audit it.
	Skipped string `json:"skipped,omitempty"`
	// NotCalled, when not empty, says why the audit could not call the
	// subject (a tool that runs only as a task the server does not
	// offer): its rules are n/a, and it is not counted as asking nothing.
	NotCalled string `json:"notCalled,omitempty"`
	Asks      bool   `json:"asks"` // whether it asked a question when called
	// ArgsMadeUp: it takes arguments, and the audit made them up (none
	// were given for it): other arguments may make it ask.
	ArgsMadeUp bool `json:"argumentsMadeUp,omitempty"`
	// Broke, when not empty, says how the subject's call broke the
	// protocol (a task status MCP does not define, an answer that is not
	// one): its rules could not be checked, by the server's fault, not for
	// want of time.
	Broke   string    `json:"broke,omitempty"`
	Results []*Result `json:"results,omitempty"`
}

// Label names the subject for people: `tool "deploy"`.
func (s *Subject) Label() string {
	if s.Name == "" {
		return s.Kind
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// Result returns the subject's result for rule r, or nil.
func (s *Subject) Result(r Rule) *Result {
	for _, res := range s.Results {
		if res.Rule.N == r.N {
			return res
		}
	}
	return nil
}

// Report is the outcome of an audit.
type Report struct {
	Server   string `json:"server"`   // the server's name from its implementation info
	Target   string `json:"target"`   // how it was reached
	Protocol string `json:"protocol"` // the protocol version negotiated
	// Declared are the capabilities the client that listed the server
	// declared ("elicitation (form, url)", "sampling", "roots"): a server
	// may offer some tools only to clients that declare some of them.
	Declared []string   `json:"clientCapabilities"`
	Subjects []*Subject `json:"subjects"`
	// Unprobed lists the probes that could not connect (the server went
	// away, or refused the second identity): the audit is incomplete.
	Unprobed []string `json:"unprobed,omitempty"`
	// Stopped, when not empty, says why the audit stopped before it
	// checked everything (its time limit ran out): the checks it did not
	// finish are Incomplete.
	Stopped string `json:"stopped,omitempty"`

	// name words an option in the caller's terms (Options.Name).
	name optname.Namer[Option]
}

// Complete reports whether the audit ran to its end, every probe could
// connect and every call got an answer.
func (r *Report) Complete() bool {
	return r.Stopped == "" && len(r.Unprobed) == 0 && len(r.Unanswered()) == 0 && len(r.Broken()) == 0
}

// Broken lists the subjects whose call broke the protocol (Subject.Broke),
// by label and how.
func (r *Report) Broken() []string {
	var out []string
	for _, s := range r.Subjects {
		if s.Broke != "" {
			out = append(out, s.Label()+": "+s.Broke)
		}
	}
	return out
}

// Unanswered lists the subjects whose rules could not be checked because
// their call got no answer, by label (not those whose call broke the
// protocol: Broken).
func (r *Report) Unanswered() []string {
	var out []string
	for _, s := range r.Subjects {
		if s.Broke != "" {
			continue
		}
		for _, res := range s.Results {
			if res.Status == Incomplete {
				out = append(out, s.Label())
				break
			}
		}
	}
	return out
}

// Unchecked counts the results that are Incomplete.
func (r *Report) Unchecked() int {
	n := 0
	for _, s := range r.Subjects {
		for _, res := range s.Results {
			if res.Status == Incomplete {
				n++
			}
		}
	}
	return n
}

// Score counts the results: passed, failed, and applicable (passed plus
// failed).
func (r *Report) Score() (passed, failed, applicable int) {
	for _, s := range r.Subjects {
		for _, res := range s.Results {
			switch res.Status {
			case Pass:
				passed++
			case Fail:
				failed++
			}
		}
	}
	return passed, failed, passed + failed
}

// Percent is passed / applicable × 100. ok is false when no check on a
// tool, prompt or resource passed or failed (see NothingChecked): a score
// would only claim what was not tested.
func (r *Report) Percent() (percent float64, ok bool) {
	p, _, a := r.Score()
	if a == 0 || r.NothingChecked() != "" {
		return 0, false
	}
	return float64(p) * 100 / float64(a), true
}

// NothingChecked says why no rule applied to any tool, prompt or resource
// (none was offered, all were skipped as destructive or not marked
// read-only, none asked a question), or "" when some did.
func (r *Report) NothingChecked() string {
	c, checked := tallyCoverage(r.Subjects)
	if checked {
		return ""
	}
	if c.called == 0 {
		return c.noneCalled(r)
	}
	why := r.noQuestion(c)
	if c.notCalled > 0 {
		why += "; " + c.uncalled()
	}
	if c.skipped > 0 {
		why += fmt.Sprintf("; %d more skipped %s: %s", c.skipped, c.skippedAs(r), c.include(r))
	}
	return why
}

// coverage counts what the audit did with the tools, prompts and
// resources, for NothingChecked.
type coverage struct {
	called, skipped, unanswered, notCalled, notReadOnly int
	skippedNames                                        []string // the first three
	notCalledWhy                                        string   // the first's
}

// tallyCoverage counts what the audit did with subjects; checked is true
// (and the count cut short) when a rule passed or failed.
func tallyCoverage(subjects []*Subject) (c coverage, checked bool) {
	for _, s := range subjects {
		switch {
		case s.Kind == "server":
		case s.NotCalled != "":
			if c.notCalled == 0 {
				c.notCalledWhy = s.Label() + ": " + s.NotCalled
			}
			c.notCalled++
		case s.Skipped != "":
			c.addSkipped(s)
		default:
			c.called++
			if c.addResults(s.Results) {
				return c, true
			}
		}
	}
	return c, false
}

// addSkipped counts the skipped subject s.
func (c *coverage) addSkipped(s *Subject) {
	c.skipped++
	if !strings.HasPrefix(s.Skipped, "destructive") {
		c.notReadOnly++
	}
	if len(c.skippedNames) < 3 {
		c.skippedNames = append(c.skippedNames, s.Name)
	}
}

// addResults counts the incomplete results of a called subject, and
// reports whether one passed or failed.
func (c *coverage) addResults(results []*Result) (checked bool) {
	for _, res := range results {
		switch res.Status {
		case Pass, Fail:
			return true
		case Incomplete:
			c.unanswered++
		}
	}
	return false
}

// include says how to name the skipped subjects that the audit may call.
func (c coverage) include(r *Report) string {
	// Which skipped tool would ask is unknown until it is called: the
	// names are those skipped, none offered as one that asks.
	names := strings.Join(c.skippedNames, ", ")
	if c.skipped > len(c.skippedNames) {
		names += ", …"
	}
	include := r.name.Word(OptionInclude)
	return fmt.Sprintf("name those the audit may call with %s NAME (skipped: %s) or %s '*'", include, names, include)
}

// skippedAs says why the subjects were skipped: destructive by their
// annotations, or (with ReadOnly) not marked read-only, which is not
// the same.
func (c coverage) skippedAs(r *Report) string {
	switch {
	case c.notReadOnly == c.skipped:
		return "as not marked read-only (" + r.name.Word(OptionReadOnly) + ")"
	case c.notReadOnly > 0:
		return "as destructive or not marked read-only (" + r.name.Word(OptionReadOnly) + ")"
	}
	return "as destructive"
}

// uncalled says how many subjects could not be called, and why the
// first could not.
func (c coverage) uncalled() string {
	return fmt.Sprintf("%d could not be called (%s)", c.notCalled, c.notCalledWhy)
}

// noneCalled says why nothing was checked when nothing was called.
func (c coverage) noneCalled(r *Report) string {
	switch {
	case c.skipped == 0 && c.notCalled == 0:
		return "the server offers no tools, prompts or resources"
	case c.skipped == 0:
		return c.uncalled()
	case c.notCalled > 0:
		return fmt.Sprintf("none was called: %s; %d skipped %s: %s", c.uncalled(), c.skipped, c.skippedAs(r), c.include(r))
	}
	return "every tool was skipped " + c.skippedAs(r) + "; " + c.include(r)
}

// noQuestion says why none of the subjects called was checked: they
// asked nothing, could not ask in the protocol spoken, got no answer, or
// the audit stopped.
func (r *Report) noQuestion(c coverage) string {
	switch {
	case r.Stopped != "":
		return fmt.Sprintf("%s before any check finished (%d checks not run)", r.Stopped, c.unanswered)
	case c.unanswered > 0:
		return fmt.Sprintf("the calls got no answer (%d checks incomplete) or asked nothing", c.unanswered)
	case r.Protocol != "" && r.Protocol < "2025-06-18":
		return fmt.Sprintf("none of the %d called asked a question: protocol %s has no elicitation, so nothing can be asked (leave %s out, or give 2025-06-18 or newer)", c.called, r.Protocol, r.name.Word(OptionProtocol))
	}
	return fmt.Sprintf("none of the %d called asked a question (the audit made up their arguments: %s)", c.called, r.argsHint())
}

// argsHint is how to give arguments that make a subject ask.
func (r *Report) argsHint() string {
	return fmt.Sprintf("give ones that make them ask with %s NAME=JSON", r.name.Word(OptionArgs))
}

// MadeUpLine says how many of the subjects that asked nothing (quiet) were
// called with arguments the audit made up, which may be what kept them
// from asking, and how to give others; "" when none was.
func (r *Report) MadeUpLine(quiet []*Subject) string {
	n := 0
	for _, s := range quiet {
		if s.ArgsMadeUp {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		for _, s := range quiet {
			if s.ArgsMadeUp {
				return fmt.Sprintf("the audit made up the arguments of %s, which may be why it asked nothing: give ones that make it ask with %s %s=JSON", s.Label(), r.name.Word(OptionArgs), s.Name)
			}
		}
	}
	return fmt.Sprintf("the audit made up the arguments of %d of them, which may be why they asked nothing: %s", n, r.argsHint())
}

// Failed reports whether any rule failed.
func (r *Report) Failed() bool {
	_, f, _ := r.Score()
	return f > 0
}

// Failures lists the failed rules with their subjects, in report order.
func (r *Report) Failures() []Failure {
	var out []Failure
	for _, s := range r.Subjects {
		for _, res := range s.Results {
			if res.Status == Fail {
				out = append(out, Failure{Subject: s, Result: res})
			}
		}
	}
	return out
}

// Failure is one failed rule of one subject.
type Failure struct {
	Subject *Subject
	Result  *Result
}

package audit

import (
	"fmt"
	"strings"
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
	// (a destructive tool the audit was not told it may call).
	Skipped string `json:"skipped,omitempty"`
	// NotCalled, when not empty, says why the audit could not call the
	// subject (a tool that runs only as a task the server does not
	// offer): its rules are n/a, and it is not counted as asking nothing.
	NotCalled string    `json:"notCalled,omitempty"`
	Asks      bool      `json:"asks"` // whether it asked a question when called
	Results   []*Result `json:"results,omitempty"`
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
	Server   string     `json:"server"`   // the server's name from its implementation info
	Target   string     `json:"target"`   // how it was reached
	Protocol string     `json:"protocol"` // the protocol version negotiated
	Subjects []*Subject `json:"subjects"`
	// Unprobed lists the probes that could not connect (the server went
	// away, or refused the second identity): the audit is incomplete.
	Unprobed []string `json:"unprobed,omitempty"`
	// Stopped, when not empty, says why the audit stopped before it
	// checked everything (its time limit ran out): the checks it did not
	// finish are Incomplete.
	Stopped string `json:"stopped,omitempty"`
}

// Complete reports whether the audit ran to its end, every probe could
// connect and every call got an answer.
func (r *Report) Complete() bool {
	return r.Stopped == "" && len(r.Unprobed) == 0 && len(r.Unanswered()) == 0
}

// Unanswered lists the subjects whose rules could not be checked because
// their call got no answer, by label.
func (r *Report) Unanswered() []string {
	var out []string
	for _, s := range r.Subjects {
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
// (none was offered, all were skipped as destructive, none asked a
// question), or "" when some did.
func (r *Report) NothingChecked() string {
	called, skipped, unanswered, notCalled, notReadOnly := 0, 0, 0, 0, 0
	var skippedNames []string
	var notCalledWhy string
	for _, s := range r.Subjects {
		if s.Kind == "server" {
			continue
		}
		if s.NotCalled != "" {
			if notCalled == 0 {
				notCalledWhy = s.Label() + ": " + s.NotCalled
			}
			notCalled++
			continue
		}
		if s.Skipped != "" {
			skipped++
			if !strings.HasPrefix(s.Skipped, "destructive") {
				notReadOnly++
			}
			if len(skippedNames) < 3 {
				skippedNames = append(skippedNames, s.Name)
			}
			continue
		}
		called++
		for _, res := range s.Results {
			switch res.Status {
			case Pass, Fail:
				return ""
			case Incomplete:
				unanswered++
			}
		}
	}
	include := ""
	if skipped > 0 {
		// Which skipped tool would ask is unknown until it is called: the
		// names are those skipped, none offered as one that asks.
		names := strings.Join(skippedNames, ", ")
		if skipped > len(skippedNames) {
			names += ", …"
		}
		include = fmt.Sprintf("name those the audit may call with --include NAME (skipped: %s) or --include '*'", names)
	}
	// Why they were skipped: destructive by their annotations, or (with
	// --read-only) not marked read-only, which is not the same.
	asWhat := "as destructive"
	switch {
	case notReadOnly == skipped:
		asWhat = "as not marked read-only (--read-only)"
	case notReadOnly > 0:
		asWhat = "as destructive or not marked read-only (--read-only)"
	}
	uncalled := ""
	if notCalled > 0 {
		uncalled = fmt.Sprintf("%d could not be called (%s)", notCalled, notCalledWhy)
	}
	switch {
	case called == 0 && skipped == 0 && notCalled == 0:
		return "the server offers no tools, prompts or resources"
	case called == 0 && skipped == 0:
		return uncalled
	case called == 0 && notCalled > 0:
		return fmt.Sprintf("none was called: %s; %d skipped %s: %s", uncalled, skipped, asWhat, include)
	case called == 0:
		return "every tool was skipped " + asWhat + "; " + include
	}
	why := fmt.Sprintf("none of the %d called asked a question (the audit made up their arguments: give ones that make them ask with --args NAME=JSON)", called)
	if r.Protocol != "" && r.Protocol < "2025-06-18" {
		why = fmt.Sprintf("none of the %d called asked a question: protocol %s has no elicitation, so nothing can be asked (leave --protocol out, or give 2025-06-18 or newer)", called, r.Protocol)
	}
	if unanswered > 0 {
		why = fmt.Sprintf("the calls got no answer (%d checks incomplete) or asked nothing", unanswered)
	}
	if r.Stopped != "" {
		why = fmt.Sprintf("%s before any check finished (%d checks not run)", r.Stopped, unanswered)
	}
	if uncalled != "" {
		why += "; " + uncalled
	}
	if include != "" {
		why += fmt.Sprintf("; %d more skipped %s: %s", skipped, asWhat, include)
	}
	return why
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

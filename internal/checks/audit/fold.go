package audit

import (
	"fmt"
	"strings"
)

// asksNothingNote is the note of the rules that do not apply to a
// subject that asks nothing; after it, a colon and how its call ended when
// not in a normal result (which AsksNothingRemark reads back).
const asksNothingNote = "asks nothing"

// callErrorNote begins the note of the rules about questions of a subject
// whose call ended in an error before it asked anything: not one that
// asks nothing (it is not known), so it is not folded with those.
const callErrorNote = "not checked: the call ends in"

// Fold is the subjects of a report as the text and HTML reports show them:
// those with a table (or a line) of their own, and the rest folded, every
// one that asks nothing into one group and the skipped ones into a group
// per reason. The JSON report lists every subject as it is.
type Fold struct {
	// Shown are the subjects that keep their own table: those that ask,
	// the server, those the audit could not call, and those whose call
	// ended in an error before they asked anything, in report order.
	Shown []*Subject
	// AsksNothing are the tools, prompts and resources that were called
	// and asked nothing, so that every rule is n/a, in report order.
	AsksNothing []*Subject
	// Skipped are the subjects not called, a group per reason, in the
	// order each reason first comes.
	Skipped []*SkipGroup
}

// SkipGroup is the subjects skipped for one reason, in report order.
type SkipGroup struct {
	Reason   string // why, without how to audit them
	Subjects []*Subject
	// Hint is how to audit them, worded for all of them ("; pass
	// --include NAME to audit one") or, for one, as its Skipped ends;
	// empty when the reason came without it.
	Hint string

	hinted bool // the reason came with skipHint
}

// Fold sorts the report's subjects into those shown on their own and the
// groups folded (see Fold).
func (r *Report) Fold() Fold {
	var f Fold
	include := r.name.Word(OptionInclude)
	for _, s := range r.Subjects {
		switch {
		case s.Skipped != "":
			reason, hinted := strings.CutSuffix(s.Skipped, skipHint(include, s.Name))
			f.Skipped = addSkip(f.Skipped, reason, hinted, s)
		case AsksNothing(s):
			f.AsksNothing = append(f.AsksNothing, s)
		default:
			f.Shown = append(f.Shown, s)
		}
	}
	for _, g := range f.Skipped {
		switch {
		case !g.hinted:
		case len(g.Subjects) == 1:
			g.Hint = skipHint(include, g.Subjects[0].Name)
		default:
			g.Hint = fmt.Sprintf("; pass %s NAME to audit one", include)
		}
	}
	return f
}

// addSkip adds the skipped subject s to the group of its reason (and
// whether it came with the hint) in groups, a new one at the end when it
// has none, and returns groups.
func addSkip(groups []*SkipGroup, reason string, hinted bool, s *Subject) []*SkipGroup {
	for _, g := range groups {
		if g.Reason == reason && g.hinted == hinted {
			g.Subjects = append(g.Subjects, s)
			return groups
		}
	}
	return append(groups, &SkipGroup{Reason: reason, hinted: hinted, Subjects: []*Subject{s}})
}

// AsksNothingNote reports whether note is the reason a rule about
// questions gives a subject that asked nothing (it asks nothing, or its
// call ended before it asked anything), not a reason of the rule's own.
func AsksNothingNote(note string) bool {
	return note == asksNothingNote || strings.HasPrefix(note, asksNothingNote+": ") || strings.HasPrefix(note, callErrorNote)
}

// AsksNothing reports whether s is a tool, prompt or resource that was
// called and asked nothing, so that every rule is n/a: the reports fold it
// with the others (see Report.Fold) rather than show a table of n/a.
func AsksNothing(s *Subject) bool {
	if s.Kind == "server" || s.Skipped != "" || s.NotCalled != "" || s.Asks {
		return false
	}
	for _, res := range s.Results {
		if strings.HasPrefix(res.Note, callErrorNote) {
			return false
		}
	}
	_, ok := allNotApplicable(s.Results)
	return ok
}

// AsksNothingRemark is what the rules of s say beyond that it asks
// nothing (how its call ended, when not in a normal result), or "".
func (s *Subject) AsksNothingRemark() string {
	for _, res := range s.Results {
		if rest, ok := strings.CutPrefix(res.Note, asksNothingNote+": "); ok {
			return rest
		}
	}
	return ""
}

// allNotApplicable reports whether every one of results is n/a, with the
// note that says why of the subject: that it asks nothing (or how its call
// ended before it asked) when a rule says so, which the rules that do not
// apply on the protocol say otherwise; else the note most of them give
// (the first of those given most often).
func allNotApplicable(results []*Result) (string, bool) {
	if len(results) == 0 {
		return "", false
	}
	counts := map[string]int{}
	subject := ""
	for _, res := range results {
		if res.Status != NA {
			return "", false
		}
		counts[res.Note]++
		if subject == "" && AsksNothingNote(res.Note) {
			subject = res.Note
		}
	}
	if subject != "" {
		return subject, true
	}
	best := results[0].Note
	for _, res := range results {
		if counts[res.Note] > counts[best] {
			best = res.Note
		}
	}
	return best, true
}

package audit

import (
	"strings"
	"testing"
)

// A subject the audit could not call (a tool that runs only as a task the
// server does not offer) is never counted among those that asked nothing.
func TestNothingCheckedNamesWhatWasNotCalled(t *testing.T) {
	na := []*Result{{Status: NA, Note: "not called: it runs only as a task"}}
	r := &Report{Protocol: "2025-11-25", Subjects: []*Subject{
		{Kind: "tool", Name: "survey", NotCalled: "it runs only as a task", Results: na},
	}}
	got := r.NothingChecked()
	if strings.Contains(got, "asked") || !strings.Contains(got, `1 could not be called (tool "survey": it runs only as a task)`) {
		t.Errorf("one tool not called: %q", got)
	}
	r.Subjects = append(r.Subjects, &Subject{Kind: "tool", Name: "echo", Results: []*Result{{Status: NA, Note: "asks nothing"}}})
	got = r.NothingChecked()
	if !strings.HasPrefix(got, "none of the 1 called asked a question") || !strings.Contains(got, "; 1 could not be called") {
		t.Errorf("one tool called, one not: %q", got)
	}
}

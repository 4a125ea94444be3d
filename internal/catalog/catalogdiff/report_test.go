package catalogdiff

import (
	"strings"
	"testing"
)

// TestReportNamesThreshold: the line that says a diff fails names the
// threshold as this package does, or as the caller's Name says (a command
// line's flag).
func TestReportNamesThreshold(t *testing.T) {
	removed := Change{Rule: RuleToolRemoved, Path: "/tools/deploy", Removed: true, Subject: `tool "deploy"`, Message: "removed"}
	cases := []struct {
		name           string
		nameOf         func(Option) string
		text, markdown string
	}{
		{"own terms", nil, "(fails: Threshold breaking)", "(`Threshold breaking`)"},
		{"no word of the caller's", func(Option) string { return "" }, "(fails: Threshold breaking)", "(`Threshold breaking`)"},
		{"the caller's terms", func(o Option) string {
			if o == OptionThreshold {
				return "--fail-on"
			}
			return ""
		}, "(fails: --fail-on breaking)", "(`--fail-on breaking`)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := &Report{Changes: []Change{removed}, Name: c.nameOf}
			var text, md strings.Builder
			if err := rep.WriteText(&text, FailBreaking); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteMarkdown(&md, FailBreaking); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "1 change: 1 breaking, 0 to review, 0 safe "+c.text+"\n") {
				t.Errorf("text:\n%s\nwant %q", text.String(), c.text)
			}
			if !strings.Contains(md.String(), " — **fails** "+c.markdown+"\n") {
				t.Errorf("markdown:\n%s\nwant %q", md.String(), c.markdown)
			}
		})
	}
}

func TestOptionString(t *testing.T) {
	if got := OptionThreshold.String(); got != "Threshold" {
		t.Errorf("OptionThreshold = %q", got)
	}
	if got := Option(0).String(); got != "Option(0)" {
		t.Errorf("Option(0) = %q", got)
	}
}

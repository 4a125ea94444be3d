package inspect_test

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/checks/inspect"
)

// TestReportNamesProbing: the advice to probe names probing as this
// package does, or as the caller's Name says (a command line's flag).
func TestReportNamesProbing(t *testing.T) {
	flag := func(o inspect.Option) string {
		if o == inspect.OptionProbe {
			return "--probe"
		}
		return ""
	}
	cases := []struct {
		name   string
		nameOf func(inspect.Option) string
		elicit inspect.Elicitation
		want   string
	}{
		{"nothing said, own terms", nil, inspect.Elicitation{},
			" none said (no description says a tool asks; probing (Server.Probes) calls read-only tools to find out)\n"},
		{"nothing said, no word of the caller's", func(inspect.Option) string { return "" }, inspect.Elicitation{},
			" none said (no description says a tool asks; probing (Server.Probes) calls read-only tools to find out)\n"},
		{"nothing said, the caller's terms", flag, inspect.Elicitation{},
			" none said (no description says a tool asks; --probe calls read-only tools to find out)\n"},
		{"said, own terms", nil, inspect.Elicitation{Tools: []inspect.ElicitingTool{{Name: "deploy", Said: true}}},
			"  (from descriptions only; probing (Server.Probes) calls read-only tools to see them ask)\n"},
		{"said, the caller's terms", flag, inspect.Elicitation{Tools: []inspect.ElicitingTool{{Name: "deploy", Said: true}}},
			"  (from descriptions only; --probe calls read-only tools to see them ask)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := &inspect.Report{Server: "demo", Elicit: c.elicit, Name: c.nameOf}
			var b strings.Builder
			if err := rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("got:\n%s\nwant a line %q", b.String(), c.want)
			}
		})
	}
	if got := inspect.Option(0).String(); got != "Option(0)" {
		t.Errorf("Option(0) = %q", got)
	}
}

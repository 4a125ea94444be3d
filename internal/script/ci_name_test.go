package script

import (
	"errors"
	"testing"

	"github.com/askback/askback/internal/report/sarif"
)

// TestConnectRuleNamesTheServerOption: the SARIF help of a script that
// could not reach its server names how a script reaches it as the Go API
// does, or as the report's Name says (a command line's flags).
func TestConnectRuleNamesTheServerOption(t *testing.T) {
	flags := func(o Option) string {
		if o == OptionServer {
			return "-c, -u, -p"
		}
		return ""
	}
	for _, c := range []struct {
		nameOf func(Option) string
		want   string
	}{
		{nil, "Check the server command or URL (RunOptions.Connect) and that the server starts."},
		{func(Option) string { return "" }, "Check the server command or URL (RunOptions.Connect) and that the server starts."},
		{flags, "Check the server command or URL (-c, -u, -p) and that the server starts."},
	} {
		rep := &Report{Scripts: []*ScriptResult{{Name: "a.mcp", Err: errors.New("unreachable")}}, Name: c.nameOf}
		run := rep.SARIF(sarif.Tool{Name: "t"}, sarif.Anchor{})
		var help string
		for _, r := range run.Rules {
			if r.ID == connectRule {
				help = r.Help
			}
		}
		if help != c.want {
			t.Errorf("help %q, want %q", help, c.want)
		}
	}
	if got := Option(0).String(); got != "Option(0)" {
		t.Errorf("Option(0) = %q", got)
	}
}

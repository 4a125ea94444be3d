package cli

import (
	"testing"
	"time"

	"github.com/askback/askback/internal/script"
)

func TestNewTestCmd(t *testing.T) {
	conn := connDefaults("./deployer", true)
	base := func(f func(*TestOptions)) TestOptions {
		o := TestOptions{Conn: conn, Jobs: 1, Format: "text", StepTimeout: script.DefaultStepTimeout}
		f(&o)
		return o
	}
	runFlagCases(t, newTestCmd, []flagCase[TestOptions]{
		{name: "scripts from -s and arguments", args: []string{"-s", "a.mcp", "-c", "./deployer", "tests/", "--script", "b.mcp"},
			want: base(func(o *TestOptions) { o.Scripts = []string{"a.mcp", "b.mcp", "tests/"} })},
		{name: "reports", args: []string{"x.mcp", "-c", "./deployer", "--jobs", "4", "--junit", "r.xml", "--html", "r.html", "--format", "json", "--questions"},
			want: base(func(o *TestOptions) {
				o.Scripts, o.Jobs, o.JUnit, o.HTML, o.Format, o.Verbose = []string{"x.mcp"}, 4, "r.xml", "r.html", "json", true
			})},
		{name: "--step-timeout given", args: []string{"x.mcp", "-c", "./deployer", "--step-timeout", "2m"},
			want: base(func(o *TestOptions) {
				o.Scripts, o.StepTimeout, o.StepTimeoutSet = []string{"x.mcp"}, 2*time.Minute, true
			})},
		{name: "a person answers and the run is recorded", args: []string{"x.mcp", "-c", "./deployer", "--interactive", "--accessible", "--record", "out.mcp"},
			want: base(func(o *TestOptions) {
				o.Scripts, o.Answers = []string{"x.mcp"}, AnswerOptions{Interactive: true, Accessible: true, Record: "out.mcp"}
			})},
		{name: "no --open", args: []string{"x.mcp", "--open"}, wantErr: "unknown flag: --open"},
		{name: "no --elicit", args: []string{"x.mcp", "--elicit", "accept"}, wantErr: "unknown flag: --elicit"},
	})
}

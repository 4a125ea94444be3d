package script

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/testsupport/testbin"
)

// deployerBinary returns the deployer example, built once per go test run.
func deployerBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the deployer example")
	}
	return testbin.Path(t, "./examples/deployer")
}

func deployerOptions(bin string) session.Options {
	return session.Options{
		Target:       &target.Target{Command: bin, Env: []string{"DEPLOY_STATE_KEY=" + strings.Repeat("k", 40)}},
		Capabilities: session.Capabilities{Form: true, URL: true},
		Validate:     true,
		Timeout:      20 * time.Second,
	}
}

// TestDeployerEndToEnd runs scripts against the real deployer example over
// stdio, through the mcp-tester session.
func TestDeployerEndToEnd(t *testing.T) {
	bin := deployerBinary(t)
	connect := SessionConnectScript(deployerOptions(bin))

	t.Run("deploy.mcp", func(t *testing.T) {
		src, err := os.ReadFile("testdata/deploy.mcp")
		if err != nil {
			t.Fatal(err)
		}
		rep, out := runText(t, "deploy.mcp", string(src), RunOptions{ConnectScript: connect})
		if !strings.HasSuffix(out, "deploy.mcp: 7 passed, 0 failed\n") || rep.ExitCode() != ExitOK {
			t.Fatalf("exit %d, output:\n%s", rep.ExitCode(), out)
		}
	})

	t.Run("every command", func(t *testing.T) {
		src, err := os.ReadFile("testdata/deployer-all.mcp")
		if err != nil {
			t.Fatal(err)
		}
		rep, out := runText(t, "deployer-all.mcp", string(src), RunOptions{ConnectScript: connect, Stdin: strings.NewReader("auth-service\n")})
		if rep.ExitCode() != ExitOK {
			t.Fatalf("exit %d, output:\n%s", rep.ExitCode(), out)
		}
	})

	t.Run("failures", func(t *testing.T) {
		src := `elicit_response accept '{"environment": "production", "confirm": true}'
call_tool deploy service:"auth-service"
assert_contains "to staging"
elicit_response accept '{"environment": "staging", "confirm": true}'
elicit_response decline
call_tool deploy service:"auth-service"
`
		rep, out := runText(t, "fail.mcp", src, RunOptions{ConnectScript: connect})
		if p, f := rep.Counts(); p != 4 || f != 2 || rep.ExitCode() != ExitFailed {
			t.Fatalf("counts %d/%d exit %d, output:\n%s", p, f, rep.ExitCode(), out)
		}
		for _, want := range []string{
			`✗ assert_contains "to staging" (line 3)`,
			`expected: text containing "to staging"`,
			`actual:   "Rolling out auth-service 2.4.1 to production."`,
			`✗ elicit_response decline (line 5)`,
			"the answer was never used: the server asked only 1 question(s) during call_tool (line 6)",
			"fail.mcp: 4 passed, 2 failed",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})

	// Two answers alike: the server asks once, and the answer it did not
	// take is the second one, so that is the line that fails.
	t.Run("the unused answer of two alike", func(t *testing.T) {
		src := `elicit_response decline
elicit_response decline
call_tool deploy service:"auth-service"
`
		rep, out := runText(t, "alike.mcp", src, RunOptions{ConnectScript: connect})
		if p, f := rep.Counts(); p != 2 || f != 1 {
			t.Fatalf("counts %d/%d, output:\n%s", p, f, out)
		}
		want := "  ✓ elicit_response decline (line 1)\n  ✗ elicit_response decline (line 2)\n" +
			"      the answer was never used: the server asked only 1 question(s) during call_tool (line 3)\n"
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	})

	t.Run("parallel equals serial", func(t *testing.T) {
		var scripts []*Script
		for i := range 6 {
			src := "elicit_response accept '{\"environment\": \"staging\", \"confirm\": true}'\ncall_tool deploy service:s" + strconv.Itoa(i) + "\nassert_contains \"s" + strconv.Itoa(i) + " 2.4.1 to staging\"\nassert_elicited \"s" + strconv.Itoa(i) + " version\"\n"
			if i%3 == 0 {
				src += "elicit_response decline\nping\n" // fails: never used
			}
			scripts = append(scripts, mustParse(t, fmt.Sprintf("p%d.mcp", i), src))
		}
		run := func(jobs int) string {
			var out strings.Builder
			RunAll(context.Background(), scripts, RunOptions{ConnectScript: connect, Jobs: jobs, Progress: &out})
			return out.String()
		}
		serial, parallel := run(1), run(3)
		if serial != parallel {
			t.Fatalf("serial:\n%s\nparallel:\n%s", serial, parallel)
		}
		if !strings.HasSuffix(serial, "total (6 scripts): 26 passed, 2 failed\n") {
			t.Fatalf("output:\n%s", serial)
		}
	})

	t.Run("could not connect", func(t *testing.T) {
		opts := deployerOptions(bin)
		opts.Target.Env = []string{"DEPLOY_STATE_KEY=short"}
		rep, out := runText(t, "deploy.mcp", "ping\n", RunOptions{ConnectScript: SessionConnectScript(opts)})
		if rep.ExitCode() != ExitConnect || !strings.Contains(out, "deploy.mcp: could not connect") {
			t.Fatalf("exit %d, output:\n%s", rep.ExitCode(), out)
		}
	})
}

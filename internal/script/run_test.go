package script

import (
	"context"
	"os"
	"strings"
	"testing"
)

// runText runs src against the test server and returns the report and the
// text printed while it ran.
func runText(t *testing.T, name, src string, opts RunOptions) (*Report, string) {
	t.Helper()
	s := mustParse(t, name, src)
	var out strings.Builder
	if opts.Connect == nil {
		opts.Connect = testConnect()
	}
	opts.Progress = &out
	rep := Run(context.Background(), s, opts)
	return rep, out.String()
}

func TestSeedDeployScript(t *testing.T) {
	src, err := os.ReadFile("testdata/deploy.mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, out := runText(t, "deploy.mcp", string(src), RunOptions{})
	want := `deploy.mcp
  ✓ elicit_response accept '{"environment": "staging", "confirm": true}' (line 1)
  ✓ call_tool deploy service:"auth-service" (line 2)
  ✓ assert_elicited "version 2.4.1" (line 3)
  ✓ assert_contains "to staging" (line 4)
  ✓ elicit_response decline (line 6)
  ✓ call_tool deploy service:"auth-service" (line 7)
  ✓ assert_contains "not started" (line 8)
deploy.mcp: 7 passed, 0 failed
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if rep.ExitCode() != ExitOK {
		t.Errorf("exit code %d, want %d", rep.ExitCode(), ExitOK)
	}
	var text strings.Builder
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if text.String() != want {
		t.Errorf("WriteText differs from the progress output:\n%s", text.String())
	}
}

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deployer returns the deploy example's server, built once per go test run,
// with its state key set.
func deployer(t *testing.T) string {
	t.Helper()
	t.Setenv("DEPLOY_STATE_KEY", "0123456789abcdef0123456789abcdef")
	return testbin.Path(t, "./examples/deployer")
}

func TestAPersonAnswers(t *testing.T) {
	bin := deployer(t)
	args := []string{"call", "deploy", "-c", bin, "--args", `{"service":"auth-service"}`}

	t.Run("no terminal: declined with a note", func(t *testing.T) {
		io, _, out, errOut := iostreams.Test()
		if code := Main(context.Background(), io, args); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out.String(), "→ decline") || !strings.Contains(errOut.String(), "no answer left: declined") {
			t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
		}
	})

	t.Run("--interactive on a pipe asks line by line and records", func(t *testing.T) {
		rec := filepath.Join(t.TempDir(), "deploy.mcp")
		io, in, out, errOut := iostreams.Test()
		in.WriteString("2\ny\n1\n")
		code := Main(context.Background(), io, append(args, "--interactive", "--record", rec))
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out.String(), "Rolling out auth-service 2.4.1 to production.") {
			t.Errorf("stdout:\n%s", out)
		}
		// The questions go to stderr, so that stdout holds only results.
		if !strings.Contains(errOut.String(), "deployer asks:") || strings.Contains(out.String(), "deployer asks:") {
			t.Errorf("the form went to the wrong stream:\nstdout:\n%s\nstderr:\n%s", out, errOut)
		}
		got, _ := os.ReadFile(rec)
		if !strings.Contains(string(got), `elicit_response accept '{"confirm":true,"environment":"production"}'`) {
			t.Errorf("recorded:\n%s", got)
		}
	})

	t.Run("--elicit comes first; the person answers only what is left", func(t *testing.T) {
		io, in, out, errOut := iostreams.Test()
		in.WriteString("1\n")
		code := Main(context.Background(), io, append(args, "--interactive", "--elicit", "decline"))
		if code != ExitOK || !strings.Contains(out.String(), "Deployment not started (decline).") || strings.Contains(errOut.String(), "asks:") {
			t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
}

func TestPersonIsNilWhenNobodyCanAnswer(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	if a := (&AnswerOptions{}).person(io); a != nil {
		t.Errorf("not a terminal, no --interactive: answerer = %#v, want nil", a)
	}
	io.SetTTY(true, true, true)
	if a := (&AnswerOptions{}).person(io); a == nil {
		t.Error("a terminal: want an answerer")
	}
}

func TestRecordPromptAndResource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.mcp")
	o := &AnswerOptions{Record: path}
	prompt := &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello Ada"}}}}
	if err := o.record("prompts/get", "greeting", map[string]string{"name": "Ada"}, nil, prompt); err != nil {
		t.Fatal(err)
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "config://x", Text: "mode=on"}}}
	if err := o.record("resources/read", "config://x", nil, nil, res); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{"get_prompt greeting name:\"Ada\"\nassert_contains \"Hello Ada\"\n", "read_resource \"config://x\"\nassert_contains \"mode=on\"\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("recorded:\n%s\nlacks:\n%s", got, want)
		}
	}
	if err := (&AnswerOptions{}).record("tools/call", "x", nil, nil, nil); err != nil {
		t.Errorf("no --record: %v", err)
	}
}

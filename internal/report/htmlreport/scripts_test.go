package htmlreport_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/script"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixedMeta is the Meta of every test page: a fixed clock.
var fixedMeta = htmlreport.Meta{Command: "mcp-tester test", Target: "bin/deployer", Version: "v1.2.3",
	Generated: time.Date(2026, 12, 24, 9, 30, 0, 0, time.UTC)}

func sampleScripts() *script.Report {
	q := exchange.Entry{Seq: 1, Method: "tools/call", Name: "deploy", Via: exchange.ViaInputRequired, Key: "target", Round: 1,
		Params: &mcp.ElicitParams{Message: "Roll out auth-service version 2.4.1 – where to?", RequestedSchema: map[string]any{"type": "object"}},
		Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "confirm": true}}}
	return &script.Report{Duration: 1500 * time.Millisecond, Scripts: []*script.ScriptResult{
		{Name: "examples/deployer/deploy.mcp", Duration: time.Second, Steps: []*script.StepResult{
			{Line: 1, Col: 1, Command: "elicit_response", Text: `elicit_response accept '{"environment": "staging", "confirm": true}'`, Passed: true},
			{Line: 2, Col: 1, Command: "call_tool", Text: `call_tool deploy service:"auth-service"`, Passed: true, Questions: []exchange.Entry{q}, Duration: 20 * time.Millisecond},
			{Line: 4, Col: 1, Command: "assert_contains", Text: `assert_contains "to production"`, Passed: false,
				Message: "the response does not contain the text", Expected: "to production", Actual: "Rolling out auth-service 2.4.1 to staging."},
		}},
		{Name: "broken.mcp", Err: errors.New("could not connect: connection refused")},
	}}
}

func TestScriptsPage(t *testing.T) {
	var a, b bytes.Buffer
	if err := htmlreport.WriteScripts(&a, fixedMeta, sampleScripts()); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteScripts(&b, fixedMeta, sampleScripts()); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("the same report gave two pages")
	}
	page := a.String()
	for _, want := range []string{"2 passed, 1 failed, 1 script could not run", "examples/deployer/deploy.mcp:4:1", "2026-12-24 09:30:00 UTC"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if dir := os.Getenv("HTMLREPORT_OUT"); dir != "" {
		os.WriteFile(dir+"/scripts.html", a.Bytes(), 0o644)
	}
}

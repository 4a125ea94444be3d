package htmlreport_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/loadgen"
	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/checks/grade"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/report/htmlreport"
	"github.com/askback/askback/internal/script"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// evil is what a hostile server writes into every field: markup, an
// escape sequence, a right-to-left override, and a secret of the command
// line it echoes.
const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>` + "\x1b[2J\u202e" + "sk-secret-123"

// Every page shows what a server sent as text: no element of it, no raw
// control character, the secret hidden; twice the same data, twice the
// same page.
func TestPagesEscapeWhatServersSent(t *testing.T) {
	meta := fixedMeta
	meta.Target = "command " + evil
	meta.Hide = func(s string) string { return strings.ReplaceAll(s, "sk-secret-123", "[redacted]") }
	q := exchange.Entry{Key: evil, Via: exchange.ViaInputRequired, Round: 1, Note: evil,
		Params: &mcp.ElicitParams{Message: evil, URL: "https://x.example/" + evil, Mode: "url"},
		Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{evil: evil}}}
	scripts := &script.Report{Scripts: []*script.ScriptResult{
		{Name: evil, Steps: []*script.StepResult{{Line: 1, Col: 1, Text: evil, Message: evil, Expected: evil, Actual: evil, Response: evil, Output: evil, Questions: []exchange.Entry{q}}}},
		{Name: evil, Err: errors.New(evil)},
	}}
	aud := &audit.Report{Server: evil, Target: evil, Protocol: evil, Unprobed: []string{evil}, Stopped: evil, Subjects: []*audit.Subject{
		{Kind: "tool", Name: evil, Results: []*audit.Result{{Rule: audit.RuleTamper, Status: audit.Fail, Note: evil, Evidence: []audit.Evidence{{What: evil, Sent: evil, Got: evil}}}}},
		{Kind: "tool", Name: evil, Skipped: evil},
		{Kind: "prompt", Name: evil, Results: []*audit.Result{{Rule: audit.RuleTamper, Status: audit.NA, Note: "asks nothing: " + evil}}},
	}}
	ins := &inspect.Report{Server: evil, Version: evil, Protocol: evil, Declares: []string{evil}, Score: 40,
		Criteria: []inspect.Criterion{{ID: "descriptions", Name: "Tool descriptions", Weight: 20, Points: 5, Applies: true, Findings: []inspect.Finding{{Subject: evil, Problem: evil, Advice: evil}}}},
		Errors:   []inspect.Finding{{Subject: evil, Problem: evil}},
		Elicit:   inspect.Elicitation{Tools: []inspect.ElicitingTool{{Name: evil, Asked: []inspect.Question{{Key: evil, Mode: "form", Message: evil}}}}}}
	probes := []inspect.Probe{{Tool: evil, Args: map[string]any{evil: evil}, Error: evil, Questions: []inspect.Question{{Mode: evil, Message: evil}}}}
	icons := []inspect.IconCheck{{Owner: evil, Source: evil, Problem: evil}}
	bench := &loadgen.Report{Concurrency: 1, Flows: 1, Failed: 1, Elapsed: time.Second, Errors: []string{evil},
		Flow: loadgen.Summary{Count: 1, Histogram: []loadgen.Bucket{{From: time.Millisecond, To: 1200 * time.Microsecond, Count: 1}}}}
	sc := &scan.Report{Servers: []scan.ServerSummary{{Name: evil, Version: evil, ClientCapabilities: []string{evil}}}, Counts: scan.Counts{High: 1},
		Findings: []scan.Finding{{Rule: "MCPS001", Name: evil, Severity: scan.High, Server: evil, Subject: evil, Path: evil, Reason: evil, Excerpt: evil}}}
	gr := &grade.Grade{Server: evil, Version: evil, Protocol: evil, Letter: "F", Score: 10, Evidence: "partial", Caps: []string{evil},
		Items: []grade.Item{{Category: grade.Safety, ID: evil, Title: evil, Status: grade.Fail, Weight: 10, Why: evil}}}

	pages := map[string]func(*bytes.Buffer) error{
		"scan":    func(b *bytes.Buffer) error { return htmlreport.WriteScan(b, meta, sc, []string{evil}) },
		"grade":   func(b *bytes.Buffer) error { return htmlreport.WriteGrade(b, meta, gr) },
		"test":    func(b *bytes.Buffer) error { return htmlreport.WriteScripts(b, meta, scripts) },
		"audit":   func(b *bytes.Buffer) error { return htmlreport.WriteAudit(b, meta, aud) },
		"inspect": func(b *bytes.Buffer) error { return htmlreport.WriteInspect(b, meta, ins, probes, icons) },
		"bench":   func(b *bytes.Buffer) error { return htmlreport.WriteBench(b, meta, "tool "+evil, bench) },
	}
	for name, write := range pages {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := write(&a); err != nil {
				t.Fatal(err)
			}
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			page := a.String()
			if page != b.String() {
				t.Error("the same data gave two pages")
			}
			for _, bad := range []string{"<script", "<img", "\x1b", "\u202e", "sk-secret-123"} {
				if strings.Contains(page, bad) {
					t.Errorf("the page holds %q", bad)
				}
			}
			for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b[2J\u202e[redacted]`} {
				if !strings.Contains(page, want) {
					t.Errorf("the page does not show %q", want)
				}
			}
		})
	}
}

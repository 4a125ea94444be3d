package audit_test

import (
	"context"
	"testing"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkAudit measures a whole audit of the good fixture over HTTP (two
// identities, four subjects that ask) against a baseline measured in the
// same run: one two-round call of one tool with a plain go-sdk client. The
// metric "calls/audit" is how many such calls an audit costs.
func BenchmarkAudit(b *testing.B) {
	url := startHTTPB(b, "good")
	ctx := context.Background()

	client := mcp.NewClient(&mcp.Implementation{Name: "baseline"}, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	oneCall := func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "quote", Arguments: map[string]any{"item": "x"}})
		if err != nil || !res.NeedsInput() {
			b.Fatalf("round 1: %v", err)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "quote", Arguments: map[string]any{"item": "x"},
			InputResponses: mcp.InputResponseMap{"details": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"size": "small"}}},
			RequestState:   res.RequestState})
		if err != nil || res.NeedsInput() || res.IsError {
			b.Fatalf("round 2: %v", err)
		}
	}

	var auditTime, callTime time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		rep, err := audit.Run(ctx, audit.Options{
			Target:       &target.Target{URL: url, Headers: []string{"Authorization: Bearer alice"}},
			OtherHeaders: []string{"Authorization: Bearer bob"},
			Timeout:      10 * time.Second,
		})
		if err != nil || rep.Failed() {
			b.Fatalf("audit: %v", err)
		}
		auditTime += time.Since(start)
		start = time.Now()
		for range 20 {
			oneCall()
		}
		callTime += time.Since(start) / 20
	}
	b.ReportMetric(float64(auditTime)/float64(callTime), "calls/audit")
	b.ReportMetric(float64(callTime.Microseconds())/float64(b.N), "µs/call")
}

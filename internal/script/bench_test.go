package script

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/session"
	"github.com/askback/askback/internal/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchSteps is the number of call-and-assert pairs of the benchmark script.
const benchSteps = 1000

func benchServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return textResult("echo: " + a.Text), nil, nil
	})
	return s
}

func benchScript() string {
	var b strings.Builder
	for i := range benchSteps {
		fmt.Fprintf(&b, "call_tool echo text:\"hello-%d\"\nassert_contains \"echo: hello-%d\"\n", i, i)
	}
	return b.String()
}

// plainLoop makes the script's calls with the go-sdk alone: connect, call,
// check the text, close. With bounded, each call has its own deadline, as
// the runner gives each step (and as every call to a peer should have).
func plainLoop(ctx context.Context, s *mcp.Server, bounded bool) error {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		return err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	return plainCalls(ctx, cs, bounded)
}

func plainCalls(ctx context.Context, cs *mcp.ClientSession, bounded bool) error {
	for i := range benchSteps {
		want := fmt.Sprintf("hello-%d", i)
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if bounded {
			cctx, cancel = context.WithTimeout(ctx, DefaultStepTimeout)
		}
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": want}})
		cancel()
		if err != nil {
			return err
		}
		if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "echo: "+want) {
			return fmt.Errorf("step %d: wrong text", i)
		}
	}
	return nil
}

// runScript parses and runs the benchmark script on a fresh in-memory
// session.
func runScript(ctx context.Context, s *mcp.Server, src string) error {
	sc, err := ParseFile("bench.mcp", []byte(src))
	if err != nil {
		return err
	}
	rep := Run(ctx, sc, RunOptions{Connect: func(ctx context.Context) (Conn, error) { return connectInMemory(ctx, s) }})
	if p, f := rep.Counts(); f != 0 || p != 2*benchSteps {
		return fmt.Errorf("%d passed, %d failed", p, f)
	}
	return nil
}

// BenchmarkScriptVsPlainLoop runs 1,000 call-and-assert pairs (2,000 steps)
// as a script and the same 1,000 calls as a plain go-sdk loop, in turn in
// the same run, and reports the ratios of their times: script/bounded
// against a loop that gives each call a deadline (as the runner gives each
// step), script/plain against one that does not.
func BenchmarkScriptVsPlainLoop(b *testing.B) {
	ctx := context.Background()
	s := benchServer()
	src := benchScript()
	compare(b,
		func() error { return plainLoop(ctx, s, false) },
		func() error { return plainLoop(ctx, s, true) },
		func() error { return runScript(ctx, s, src) })
}

// compare times plain, bounded and script in turn, rotating which goes
// first each iteration so that none pays for another's garbage, and
// reports the ratios of the totals.
func compare(b *testing.B, plain, bounded, script func() error) {
	fs := []func() error{plain, bounded, script}
	totals := make([]time.Duration, 3)
	i := 0
	for b.Loop() {
		for k := range 3 {
			j := (i + k) % 3
			start := time.Now()
			if err := fs[j](); err != nil {
				b.Fatal(err)
			}
			totals[j] += time.Since(start)
		}
		i++
	}
	b.ReportMetric(float64(totals[2])/float64(totals[1]), "script/bounded")
	b.ReportMetric(float64(totals[2])/float64(totals[0]), "script/plain")
	b.ReportMetric(float64(totals[0].Nanoseconds())/float64(b.N*benchSteps), "plain-ns/call")
	b.ReportMetric(float64(totals[2].Nanoseconds())/float64(b.N*benchSteps), "script-ns/call")
}

// BenchmarkSessionScriptVsPlainLoopHTTP is the same comparison through the
// whole mcp-tester stack: the script runs on SessionConn (the session that
// drives rounds, logs and validates), the baseline is a plain go-sdk client,
// both over Streamable HTTP to the same local server.
func BenchmarkSessionScriptVsPlainLoopHTTP(b *testing.B) {
	ctx := context.Background()
	s := benchServer()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	src := benchScript()
	sopts := session.Options{Target: &target.Target{URL: srv.URL}, Capabilities: session.Capabilities{Form: true, URL: true}, Validate: true, Timeout: 30 * time.Second}
	plain := func(bounded bool) error {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		return plainCalls(ctx, cs, bounded)
	}
	run := func() error {
		sc, err := ParseFile("bench.mcp", []byte(src))
		if err != nil {
			return err
		}
		rep := Run(ctx, sc, RunOptions{ConnectScript: SessionConnectScript(sopts)})
		if p, f := rep.Counts(); f != 0 || p != 2*benchSteps {
			return fmt.Errorf("%d passed, %d failed", p, f)
		}
		return nil
	}
	compare(b, func() error { return plain(false) }, func() error { return plain(true) }, run)
}

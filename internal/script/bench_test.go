package script

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/askback/askback/internal/bench/cpuuse"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/testsupport/testbin"
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
// the same run, over the in-memory transport to a server in this process:
// the runner's own cost (parse, per-step contexts, checks, report), since
// the Conn is a bare go-sdk session. It reports the ratios of their CPU
// time: script/bounded against a loop that gives each call a deadline (as
// the runner gives each step), script/plain against one that does not.
// Each iteration runs the three once; the ratios are given with their
// range over the iterations (-benchtime 10x: ten).
func BenchmarkScriptVsPlainLoop(b *testing.B) {
	ctx := context.Background()
	s := benchServer()
	src := benchScript()
	compare(b,
		func() error { return plainLoop(ctx, s, false) },
		func() error { return plainLoop(ctx, s, true) },
		func() error { return runScript(ctx, s, src) })
}

// compare runs plain, bounded and script in turn, rotating which goes
// first each iteration so that none always pays for another's garbage, and
// reports the ratios of their CPU time (this process's, all threads, the
// garbage collector's included) with their range over the iterations, the
// CPU time and the allocations per call of each, and the collections each
// run saw (collections-script/bounded: the script's against the bounded
// loop's, with their range; at this small a heap a collection's cost is
// mostly fixed, so their number is much of the garbage collector's part). With -cpuprofile, the
// samples of each carry the label run=plain, bounded or script (pprof
// -tagfocus); the garbage collector's and the scheduler's carry none.
func compare(b *testing.B, plain, bounded, script func() error) {
	done := benchratio.LoadWatch(b)
	fs := []func() error{plain, bounded, script}
	cpu := make([][]float64, 3)
	mallocs := make([]uint64, 3)
	gcs := make([][]float64, 3)
	names := []string{"plain", "bounded", "script"}
	i := 0
	var ms runtime.MemStats
	for b.Loop() {
		for k := range 3 {
			j := (i + k) % 3
			runtime.ReadMemStats(&ms)
			m0, g0 := ms.Mallocs, ms.NumGC
			c0, err := cpuuse.Self()
			if err != nil {
				b.Fatal(err)
			}
			pprof.Do(context.Background(), pprof.Labels("run", names[j]), func(context.Context) { err = fs[j]() })
			if err != nil {
				b.Fatal(err)
			}
			c1, _ := cpuuse.Self()
			runtime.ReadMemStats(&ms)
			mallocs[j] += ms.Mallocs - m0
			gcs[j] = append(gcs[j], float64(ms.NumGC-g0))

			cpu[j] = append(cpu[j], float64(c1-c0))
		}
		i++
	}
	calls := float64(b.N * benchSteps)
	benchratio.Summarize(benchratio.Ratios(cpu[2], cpu[1])).Report(b, "script/bounded")
	benchratio.Summarize(benchratio.Ratios(cpu[2], cpu[0])).Report(b, "script/plain")
	b.ReportMetric(sum(cpu[0])/calls, "plain-cpu-ns/call")
	b.ReportMetric(sum(cpu[1])/calls, "bounded-cpu-ns/call")
	b.ReportMetric(sum(cpu[2])/calls, "script-cpu-ns/call")
	b.ReportMetric(float64(mallocs[1])/calls, "bounded-allocs/call")
	b.ReportMetric(float64(mallocs[2])/calls, "script-allocs/call")
	atLeastOne := func(v []float64) []float64 { // a ratio for each run, even one with no collection
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = max(x, 1)
		}
		return out
	}
	benchratio.Summarize(benchratio.Ratios(atLeastOne(gcs[2]), atLeastOne(gcs[1]))).Report(b, "collections-script/bounded")
	for j, name := range names {
		b.ReportMetric(sum(gcs[j])/float64(b.N), name+"-collections/run")
	}
	b.Logf("script/bounded %s, script/plain %s", benchratio.Summarize(benchratio.Ratios(cpu[2], cpu[1])), benchratio.Summarize(benchratio.Ratios(cpu[2], cpu[0])))
	done()
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// BenchmarkScriptVsPlainLoopStdio is the comparison as a user runs it: the
// script on the whole mcp-tester session (SessionConn: rounds, the exchange
// log, answer validation, the tasks extension, the wire checks) with its
// text report written (to nowhere), against a plain go-sdk loop with a
// deadline per call, both over stdio to `yardstick serve`, a server
// process of its own: the CPU time of this process is the clients' alone.
func BenchmarkScriptVsPlainLoopStdio(b *testing.B) {
	ctx := context.Background()
	server := filepath.Join(testbin.Need(b, "./internal/testsupport/fixtures/yardstick"), "yardstick") + " serve"
	src := benchScript()
	plain := func(bounded bool) error {
		cmd := exec.Command("/bin/sh", "-c", "exec "+server)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		return plainCalls(ctx, cs, bounded)
	}
	sopts := session.Options{Target: &target.Target{Command: server}, Capabilities: session.Capabilities{Form: true, URL: true},
		Validate: true, Tasks: true, Timeout: 30 * time.Second, ClientName: "mcp-tester", ClientVersion: "bench"}
	run := func() error {
		sc, err := ParseFile("bench.mcp", []byte(src))
		if err != nil {
			return err
		}
		rep := Run(ctx, sc, RunOptions{ConnectScript: SessionConnectScript(sopts), Progress: io.Discard})
		if p, f := rep.Counts(); f != 0 || p != 2*benchSteps {
			return fmt.Errorf("%d passed, %d failed", p, f)
		}
		return nil
	}
	compare(b, func() error { return plain(false) }, func() error { return plain(true) }, run)
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

// BenchmarkScriptProfile says where a step's time goes: the benchmark
// script (1,000 call_tool + assert_contains pairs) runs as
// BenchmarkScriptVsPlainLoopStdio runs it (the whole mcp-tester session
// over stdio to `yardstick serve`, a process of its own) with this
// process's CPU profiled, profileRuns times per iteration (-benchtime 3x:
// three profiles), and each part of scriptParts is reported as a share of the
// samples (gc-%, sdk-json-%, syscalls-%, runner-%, session-%,
// sdk-other-%, rest-%) with its range. Needs `go tool pprof`.
func BenchmarkScriptProfile(b *testing.B) {
	ctx := context.Background()
	server := filepath.Join(testbin.Need(b, "./internal/testsupport/fixtures/yardstick"), "yardstick") + " serve"
	src := benchScript()
	sopts := session.Options{Target: &target.Target{Command: server}, Capabilities: session.Capabilities{Form: true, URL: true},
		Validate: true, Tasks: true, Timeout: 30 * time.Second, ClientName: "mcp-tester", ClientVersion: "bench"}
	done := benchratio.LoadWatch(b)
	benchratio.ReportProfiles(b, scriptParts, func() error {
		for range profileRuns {
			sc, err := ParseFile("bench.mcp", []byte(src))
			if err != nil {
				return err
			}
			rep := Run(ctx, sc, RunOptions{ConnectScript: SessionConnectScript(sopts), Progress: io.Discard})
			if p, f := rep.Counts(); f != 0 || p != 2*benchSteps {
				return fmt.Errorf("%d passed, %d failed", p, f)
			}
		}
		return nil
	})
	done()
}

// profileRuns is how many runs of the script one profile holds: one run
// is a few dozen samples.
const profileRuns = 5

// scriptOwners are the code a sample's time is counted for (see
// benchratio.Owner): the runner, the rest of the project, the go-sdk.
var scriptOwners = []string{"github.com/askback/askback/internal/script.", "github.com/askback/askback/", "github.com/modelcontextprotocol/go-sdk/"}

// scriptParts are the parts a CPU sample of a script's run is counted in,
// in the order they are tried.
var scriptParts = []benchratio.Part{
	benchratio.GC,
	benchratio.SDKJSON,
	{Name: "syscalls", What: "system calls: the reads and writes of the server's pipes, the server process started and reaped",
		In: benchratio.AnyPrefix("syscall.")},
	{Name: "runner", What: "the script runner (internal/script): parsing a step's line, the per-step time limit, the checks, the report (with the standard library it calls)",
		In: benchratio.Owner(scriptOwners, "github.com/askback/askback/internal/script.")},
	{Name: "session", What: "the rest of mcp-tester's client: the session (rounds, the exchange log, answer validation), the tasks extension's wrapper, the wire checks (jsonscan), the transport wrapper",
		In: benchratio.Owner(scriptOwners, "github.com/askback/askback/")},
	{Name: "sdk-other", What: "the rest of the go-sdk's client: JSON-RPC, the stdio transport, encoding the requests, the result's types",
		In: benchratio.Owner(scriptOwners, "github.com/modelcontextprotocol/go-sdk/")},
	{Name: "rest", What: "everything else: the scheduler (goroutines parked and woken, threads spinning for work, the runtime's own system calls to wake them), timers", In: func([]string) bool { return true }},
}

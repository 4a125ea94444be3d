package cli

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bench tests stay serial: bench reports (and warns about) the CPU its
// own process used, which tests running beside it would add to.
//
// benchServer serves, over stateless Streamable HTTP, a tool "confirm"
// that asks one question (multi round-trip) and answers with what it got,
// and a tool "broken" that reports an error.
func benchServer(t *testing.T) string {
	t.Helper()
	url, _ := countingBenchServer(t, 0)
	return url
}

// countingBenchServer is benchServer counting the connections it accepts.
// With linger, every response's body ends that long after its last event
// has been sent (as when a busy server is slow to finish a stream).
func countingBenchServer(t *testing.T, linger time.Duration) (string, *scaleout.CountingListener) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-fixture", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "confirm", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, ok := req.Params.InputResponses["ok"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"ok": &mcp.ElicitParams{
				Message:         "Go?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"go": map[string]any{"type": "boolean"}}},
			}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "got " + a.Action}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "broken", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it broke"}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if linger > 0 {
			http.NewResponseController(w).Flush()
			time.Sleep(linger)
		}
	}))
	l := scaleout.CountAccepts(srv.Listener)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, l
}

// A run opens at most one connection per worker, even when the server is
// slow to end each response after its answer: the call that got its answer
// returns and releases its context, and the rest of the body is still
// read, so the connection goes back to the pool.
func TestBenchKeepsOneConnectionPerWorker(t *testing.T) {
	url, accepts := countingBenchServer(t, 20*time.Millisecond)
	code, out, errOut := bench(t, "confirm", "-u", url, "--elicit", "accept:{\"go\":true}", "--concurrency", "3", "--requests", "24", "--timeout", "30s")
	if code != 0 || !strings.Contains(out, "24 completed, 0 failed") {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	if n := accepts.Accepted(); n > 3 {
		t.Errorf("3 workers, 48 requests: the server accepted %d connections, want at most 3", n)
	}
}

func bench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	code := Main(context.Background(), io, append([]string{"bench"}, args...))
	return code, out.String(), errOut.String()
}

func TestBenchCallReportsRounds(t *testing.T) {
	url := benchServer(t)
	code, out, errOut := bench(t, "confirm", "-u", url, "--elicit", "accept:{\"go\":true}", "--concurrency", "3", "--requests", "30", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Concurrency int `json:"concurrency"`
		Flows       int `json:"flows"`
		Failed      int `json:"failed"`
		Flow        struct {
			Count int     `json:"count"`
			P50Ms float64 `json:"p50Ms"`
			P99Ms float64 `json:"p99Ms"`
		} `json:"flow"`
		Rounds []struct {
			Count int `json:"count"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Flows != 30 || rep.Failed != 0 || rep.Concurrency != 3 {
		t.Errorf("report: %+v", rep)
	}
	if len(rep.Rounds) != 2 || rep.Rounds[0].Count != 30 || rep.Rounds[1].Count != 30 {
		t.Errorf("a two-round flow must report two rounds of 30: %+v", rep.Rounds)
	}
	if rep.Flow.P50Ms <= 0 || rep.Flow.P99Ms < rep.Flow.P50Ms {
		t.Errorf("percentiles: %+v", rep.Flow)
	}
	if strings.Contains(errOut, "flows/s") {
		t.Errorf("no terminal, no progress bar; stderr: %q", errOut)
	}
}

func TestBenchTextAndProgressBar(t *testing.T) {
	url := benchServer(t)
	io, _, out, errOut := iostreams.Test()
	io.SetTTY(false, false, true)
	code := Main(context.Background(), io, []string{"bench", "confirm", "-u", url, "--elicit", "decline", "-n", "5"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"bench tool confirm against", "5 completed, 0 failed", "round 1", "round 2", "p90"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut.String(), "100%") {
		t.Errorf("progress bar on a terminal: %q", errOut)
	}
}

func TestBenchFailedFlows(t *testing.T) {
	url := benchServer(t)
	code, out, _ := bench(t, "broken", "-u", url, "-n", "4")
	if code != ExitFailed || !strings.Contains(out, "0 completed, 4 failed") || !strings.Contains(out, "it broke") {
		t.Errorf("exit %d, report:\n%s", code, out)
	}
}

func TestBenchScript(t *testing.T) {
	url := benchServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "flow.mcp")
	os.WriteFile(file, []byte("elicit_response accept '{\"go\": true}'\ncall_tool confirm\nassert_contains \"got accept\"\n"), 0o600)
	code, out, errOut := bench(t, "--script", file, "-u", url, "-n", "6", "--concurrency", "2")
	if code != 0 || !strings.Contains(out, "6 completed, 0 failed") || !strings.Contains(out, "round 2") {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	os.WriteFile(file, []byte("elicit_response decline\ncall_tool confirm\nassert_contains \"got accept\"\n"), 0o600)
	code, out, _ = bench(t, "--script", file, "-u", url, "-n", "3")
	if code != ExitFailed || !strings.Contains(out, "3 failed") || !strings.Contains(out, "flow.mcp:3") {
		t.Errorf("a failing step must fail the flow: exit %d\n%s", code, out)
	}
}

// Only loopback targets, unless the host is named.
func TestBenchRefusesRemoteTargets(t *testing.T) {
	for _, u := range []string{"http://10.1.2.3/mcp", "http://example.test:8080/mcp", "http://[2001:db8::1]/mcp"} {
		code, _, errOut := bench(t, "deploy", "-u", u, "-n", "1")
		if code != ExitUsage || !strings.Contains(errOut, "--allow-remote") {
			t.Errorf("%s: exit %d, %s", u, code, errOut)
		}
	}
	// Naming another host does not allow this one.
	code, _, errOut := bench(t, "deploy", "-u", "http://10.1.2.3/mcp", "--allow-remote", "10.1.2.4", "-n", "1")
	if code != ExitUsage {
		t.Errorf("allow-remote of another host: exit %d, %s", code, errOut)
	}
}

func TestBenchUsage(t *testing.T) {
	url := benchServer(t)
	for _, args := range [][]string{
		{"-u", url}, // neither tool nor script
		{"confirm", "--script", "x.mcp", "-u", url}, // both
		{"confirm", "-u", url, "--concurrency", "0"},
		{"confirm", "-u", url, "--concurrency", "100000"},
		{"confirm", "-u", url, "--duration", "5h"},
		{"confirm", "-u", url, "--format", "xml"},
	} {
		if code, _, _ := bench(t, args...); code != ExitUsage {
			t.Errorf("bench %v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}

func TestBenchUnreachable(t *testing.T) {
	code, _, errOut := bench(t, "confirm", "-u", "http://127.0.0.1:1/mcp", "-n", "1", "--timeout", "2s")
	if code != ExitUnreachable {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// Addresses that look local but are not, and ones that are.
func TestBenchTargetCheck(t *testing.T) {
	for _, u := range []string{
		"http://127.0.0.1.evil.test/mcp",
		"http://localhost.evil.test/mcp",
		"http://127.0.0.1@10.0.0.1/mcp",
		"http://[::ffff:10.0.0.1]/mcp",
		"http://0x7f000001/mcp",
		"http://0.0.0.0:8080/mcp",
		"http://169.254.169.254/latest",
	} {
		if err := checkBenchTarget(u, nil); err == nil {
			t.Errorf("%s was taken for a loopback target", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080/mcp", "http://127.9.9.9/mcp", "http://[::1]:80/mcp", "http://LOCALHOST/mcp", "http://[::ffff:127.0.0.1]/mcp"} {
		if err := checkBenchTarget(u, nil); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	if err := checkBenchTarget("http://bench.example.test/mcp", []string{"bench.example.test"}); err != nil {
		t.Errorf("--allow-remote naming the host: %v", err)
	}
}

// Whatever the URL, bench loads it without --allow-remote only if its host
// is loopback.
func FuzzBenchTargetCheck(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/mcp", "http://localhost/mcp", "http://127.0.0.1@10.0.0.1/", "http://[::1]/", "http://10.0.0.1/", "http://127.0.0.1.evil.test/", "%", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if raw == "" || checkBenchTarget(raw, nil) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%q accepted but does not parse: %v", raw, err)
		}
		h := u.Hostname()
		if ip := net.ParseIP(h); !strings.EqualFold(h, "localhost") && (ip == nil || !ip.IsLoopback()) {
			t.Fatalf("%q accepted as loopback: host %q", raw, h)
		}
	})
}

func TestNewBenchCmd(t *testing.T) {
	conn := connDefaults("./deployer", true)
	runFlagCases(t, newBenchCmd, []flagCase[BenchOptions]{
		{name: "a tool", args: []string{"deploy", "-c", "./deployer", "--args", `{"service":"a"}`, "--elicit", "accept", "--concurrency", "8", "--duration", "5s"},
			want: BenchOptions{Tool: "deploy", Args: `{"service":"a"}`, Concurrency: 8, Duration: 5 * time.Second, Format: "text",
				Conn: conn, Answers: AnswerOptions{Elicit: []string{"accept"}}}},
		{name: "a script", args: []string{"--script", "deploy.mcp", "-c", "./deployer", "-n", "200", "--format", "json", "--html", "b.html", "--allow-remote", "a.example", "--allow-remote", "b.example"},
			want: BenchOptions{Script: "deploy.mcp", Args: "{}", Concurrency: 1, Requests: 200, Format: "json", HTML: "b.html", AllowRemote: []string{"a.example", "b.example"}, Conn: conn}},
		{name: "two tools", args: []string{"a", "b"}, wantErr: "accepts at most 1 arg(s)"},
		{name: "no person", args: []string{"deploy", "--interactive"}, wantErr: "unknown flag: --interactive"},
	})
}

// benchUsing runs bench with the tester's CPU time read from cpu.
func benchUsing(t *testing.T, cpu func() (time.Duration, error), args ...string) (string, string, error) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	cmd := newBenchCmd(io, func(ctx context.Context, o *BenchOptions) error {
		o.cpuTime = cpu
		return runBench(ctx, o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// cpuClock reads 0, then used: the CPU time a run took.
func cpuClock(used time.Duration) func() (time.Duration, error) {
	var n atomic.Int64
	return func() (time.Duration, error) {
		if n.Add(1) == 1 {
			return 0, nil
		}
		return used, nil
	}
}

// The report says what the tester's own process used, next to the
// server's throughput, and bench warns when that was more than a quarter
// of the cores it shares with a server on this machine.
func TestBenchReportsItsOwnCPU(t *testing.T) {
	url := benchServer(t) // in this process: it shares the tester's cores
	args := []string{"confirm", "-u", url, "--elicit", "decline", "-n", "4"}
	out, errOut, err := benchUsing(t, cpuClock(time.Hour), args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "tester CPU:  1h0m0s, 900000.00ms per flow") || !strings.Contains(out, "(shared with the server)") {
		t.Errorf("text report:\n%s", out)
	}
	if !strings.Contains(errOut, "warning: the tester used") || !strings.Contains(errOut, "more than 25%") || !strings.Contains(errOut, "taskset") {
		t.Errorf("an hour of CPU in a short run: stderr %q", errOut)
	}

	out, errOut, err = benchUsing(t, cpuClock(time.Microsecond), append(args, "--format", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	if errOut != "" {
		t.Errorf("a microsecond of CPU: stderr %q", errOut)
	}
	// A short run whose share is over the quarter by less than
	// benchShareMinExcess of CPU (mostly the session's start) warns of
	// nothing: its share says nothing of what the server had.
	if _, errOut, err := benchUsing(t, cpuClock(50*time.Millisecond), args...); err != nil || errOut != "" {
		t.Errorf("50ms of CPU in a short run: %v, stderr %q", err, errOut)
	}
	var rep struct {
		Tester *struct {
			CPUMs        float64  `json:"cpuMs"`
			CPUPerFlowMs float64  `json:"cpuPerFlowMs"`
			Cores        int      `json:"cores"`
			CoreShare    *float64 `json:"coreShare"`
			Shares       bool     `json:"sharesCoresWithServer"`
		} `json:"tester"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Tester == nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if tr := rep.Tester; tr.CPUMs != 0.001 || tr.CPUPerFlowMs != 0.00025 || tr.Cores < 1 || tr.CoreShare == nil || !tr.Shares {
		t.Errorf("tester: %+v\n%s", *tr, out)
	}
}

// A server on another machine does not share the tester's cores: no
// warning, however much CPU the tester used.
func TestTesterCores(t *testing.T) {
	if _, shared := testerCores(&target.Target{URL: "http://bench.example.test:8080/mcp"}); shared {
		t.Error("a remote server shares the tester's cores")
	}
	if n, shared := testerCores(&target.Target{Command: "./deployer"}); !shared || n < 1 {
		t.Errorf("a command server: %d cores, shared %v", n, shared)
	}
	url := benchServer(t)
	if _, shared := testerCores(&target.Target{URL: url}); !shared {
		t.Error("a server in this very process does not share its cores")
	}
}

// Once a run has returned, nothing of it keeps running in the process: no
// goroutine, no timer left to fire (each request whose call returned before
// its body ended once left a timer that started a goroutine a second after
// the run, and the pools' close another), no connection.
func TestBenchLeavesNothingRunning(t *testing.T) {
	url, _ := countingBenchServer(t, 20*time.Millisecond)
	base := runtime.NumGoroutine()
	code, out, errOut := bench(t, "confirm", "-u", url, "--elicit", "accept:{\"go\":true}", "--concurrency", "3", "--requests", "24")
	if code != 0 || !strings.Contains(out, "24 completed, 0 failed") {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	before := goroutinesCreated()
	time.Sleep(target.DefaultDrainGrace + 500*time.Millisecond) // what a run leaves behind runs by now
	if n := goroutinesCreated() - before; n != 0 {
		t.Errorf("%d goroutines started after the run had returned, want none", n)
	}
	deadline := time.Now().Add(time.Minute) // against a hang
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left after the run, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// goroutinesCreated is how many goroutines this process has started so far.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A bench in which no flow ran (a --duration shorter than the start of the
// first flow) measured nothing: it fails, saying so, and prints no report
// of zero latencies and shares of the cores; with --format json its
// document is the error.
func TestBenchNothingMeasured(t *testing.T) {
	url := benchServer(t)
	code, out, errOut := bench(t, "confirm", "-u", url, "--elicit", "decline", "--duration", "1ns")
	if code != ExitFailed || out != "" || !strings.Contains(errOut, "mcp-tester: no flow ran in --duration 1ns: nothing was measured") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, and no flow ran", code, out, errOut)
	}
	code, out, _ = bench(t, "confirm", "-u", url, "--elicit", "decline", "--duration", "1ns", "--format", "json")
	if code != ExitFailed || !strings.Contains(out, `"exitCode": 1`) || strings.Contains(out, "cores") {
		t.Errorf("--format json: exit %d, stdout %q; want 1 and the error document", code, out)
	}
}

// Ctrl-C in the middle of a run: the flow it cuts short is "interrupted",
// neither completed nor failed, no error is blamed on the server, and the
// command says it was interrupted (exit 130) after its report.
func TestBenchInterruptedFlowIsNoFailure(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		// The second call hangs until the run is interrupted (or the test
		// ends), and says when it has come.
		s := mcp.NewServer(&mcp.Implementation{Name: "bench-fixture", Version: "1.0.0"}, nil)
		var calls atomic.Int64
		called, release := make(chan struct{}, 8), make(chan struct{})
		s.AddTool(&mcp.Tool{Name: "second-hangs", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if calls.Add(1) > 1 {
				called <- struct{}{}
				select {
				case <-ctx.Done():
				case <-release:
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
		srv := httptest.NewServer(h)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-called; cancel() }()
		io, _, out, errOut := iostreams.Test()
		code := Main(ctx, io, []string{"bench", "second-hangs", "-u", srv.URL, "--duration", "10m", "--format", format})
		cancel()
		close(release)
		srv.Close()
		if code != ExitInterrupted || !strings.Contains(errOut.String(), "mcp-tester: interrupted") {
			t.Errorf("%s: exit %d, want %d and 'interrupted'; stderr:\n%s", format, code, ExitInterrupted, errOut)
		}
		want := "1 completed, 0 failed, 1 interrupted in"
		if format == "json" {
			want = `"failed": 0,
  "interrupted": 1,`
		}
		if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "error:") || strings.Contains(out.String(), "canceled") {
			t.Errorf("%s report: want %q and no error:\n%s", format, want, out)
		}
	}
}

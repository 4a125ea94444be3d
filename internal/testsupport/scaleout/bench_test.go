package scaleout_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/server/debugstats"
	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The figures of BENCHMARKS.md ("Scale-out"). Each benchmark does its work
// once, whatever b.N (run them with -benchtime 1x), and reports ratios
// measured in the same run. scripts/bench.sh runs them.

// pendingCount is how many questions are held pending at once:
// SCALEOUT_PENDING, default 10,000.
func pendingCount(b *testing.B) int {
	if s := os.Getenv("SCALEOUT_PENDING"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 15000 {
			b.Fatalf("SCALEOUT_PENDING=%q: want 1..15000 (each old-way question holds a connection)", s)
		}
		return n
	}
	return 10_000
}

func stats(b *testing.B, in *scaleout.Instance) debugstats.Stats {
	b.Helper()
	resp, err := http.Get(in.Base() + "/debug/stats")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var s debugstats.Stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		b.Fatal(err)
	}
	return s
}

// httpClient is the benchmarks' HTTP client: its connections to one server
// are bounded below the example servers' bound per client address
// (httpserve.DefaultMaxConnsPerClient, 128), as a client of a server that
// bounds them must be. Unbounded, a pool serving 64 callers grew past it over
// 10,000 requests (a connection dialled while another was on its way back
// to the pool) and the server refused the next with 503.
func httpClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 20000, MaxIdleConnsPerHost: 20000, MaxConnsPerHost: 100, IdleConnTimeout: 30 * time.Second}}
}

var formCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

// parallel runs f(i) for i in [0, n) on k goroutines and returns the first
// error.
func parallel(n, k int, f func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// BenchmarkPendingQuestions holds N questions pending at once on each
// server and reports what each pending question costs the server: heap in
// use and goroutines. The old way (examples/oldway, 2025-11-25) holds each
// call open while it waits; the MRTR deployer has answered round 1 and
// holds nothing until round 2 arrives.
func BenchmarkPendingQuestions(b *testing.B) {
	n := pendingCount(b)
	if max, ok := openFileLimit(); ok && max < uint64(n)+1000 {
		b.Fatalf("%d pending old-way questions need %d open files in this process and in the server; the limit is %d: raise it (ulimit -Hn) or set SCALEOUT_PENDING lower", n, n+1000, max)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	hc := httpClient()

	// The old way: N sessions, each with a call waiting for its answer.
	// Every question comes from this one client address: bound by nothing
	// but the count.
	many := strconv.Itoa(2*n + 1000)
	old := scaleout.StartInstance(b, "oldway", binary(b, "oldway"), nil, "-debug-stats", "-max-sessions", strconv.Itoa(n+100),
		"-max-sessions-per-caller", many, "-max-conns", many, "-max-conns-per-client", many)
	// Each token lets one waiting question be answered. The answers are
	// let go at most answerWindow at a time: every answer is a new request
	// while its call's connection is still open, and the client process may
	// hold only so many sockets.
	const answerWindow = 512
	const askWindow = 512
	release := make(chan struct{}, n+1)
	var asked atomic.Int64
	allAsked := make(chan struct{})
	var askedOnce sync.Once
	closeAsked := func() { askedOnce.Do(func() { close(allAsked) }) }
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities: formCaps,
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if asked.Add(1) == int64(n) {
				closeAsked()
			}
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return yes, nil
		},
	})
	// A fresh connection per request: a request sent on a kept-alive
	// connection as the server lets it go fails with EOF, which at this
	// scale happens.
	oldHC := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	connectOld := func() (*mcp.ClientSession, error) {
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: old.Endpoint(), HTTPClient: oldHC, DisableStandaloneSSE: true, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}
	// Warm up: one full flow, so that the baseline includes what the
	// server allocates once.
	release <- struct{}{}
	if cs, err := connectOld(); err != nil {
		b.Fatal(err)
	} else {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs}); err != nil {
			b.Fatal(err)
		}
		cs.Close()
	}
	asked.Store(0)
	old0 := stats(b, old)

	sessions := make([]*mcp.ClientSession, n)
	if err := parallel(n, 64, func(i int) error {
		cs, err := connectOld()
		sessions[i] = cs
		return err
	}); err != nil {
		b.Fatalf("open %d old-way sessions: %v", n, err)
	}
	var completed, finished atomic.Int64
	callErr := make(chan error, 1)
	var errMu sync.Mutex
	var errs []string
	var calls sync.WaitGroup
	oldStart := time.Now()
	for k, cs := range sessions {
		// At most askWindow calls on their way at once: a burst of
		// thousands of connections overflows the server's accept queue.
		for int64(k)-asked.Load() >= askWindow && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		calls.Add(1)
		go func() {
			defer calls.Done()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs})
			defer finished.Add(1)
			if err == nil && textOf(res) == deployed {
				completed.Add(1)
			} else {
				e := fmt.Errorf("%v (result %v)", err, res)
				errMu.Lock()
				if len(errs) < 3 {
					errs = append(errs, e.Error())
				}
				errMu.Unlock()
				select {
				case callErr <- e:
				default:
				}
			}
		}()
	}
	select {
	case <-allAsked:
	case err := <-callErr:
		out := old.Output()
		if len(out) > 2000 {
			out = out[len(out)-2000:]
		}
		b.Fatalf("old way: a call failed after %d of %d questions arrived: %v\nserver output: %s", asked.Load(), n, err, out)
	case <-ctx.Done():
		b.Fatalf("only %d of %d old-way questions arrived", asked.Load(), n)
	}
	oldAsked := time.Since(oldStart)
	old1 := stats(b, old)
	answerStart := time.Now()
	for fed := 0; fed < n; fed++ {
		for int64(fed)-finished.Load() >= answerWindow && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		release <- struct{}{}
	}
	calls.Wait()
	oldAnswered := time.Since(answerStart)
	if int(completed.Load()) != n {
		b.Fatalf("old way: %d of %d flows completed; errors: %q", completed.Load(), n, errs)
	}
	parallel(n, 64, func(i int) error { return sessions[i].Close() })
	old.Stop()

	// MRTR: N round-1 answers held by the client; the server holds nothing.
	dep := scaleout.StartInstance(b, "deployer", binary(b, "deployer"), []string{stateKey}, "-debug-stats")
	const clients = 64
	css := make([]*mcp.ClientSession, clients)
	mc := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: formCaps, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	for i := range css {
		cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: dep.Endpoint(), HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		css[i] = cs
		defer cs.Close()
	}
	cl := &client2{css}
	// Warm up: one full flow on every client, so that the baseline holds
	// their connections.
	if err := parallel(clients, clients, func(i int) error {
		st, err := cl.round1(ctx, i)
		if err == nil {
			_, err = cl.round2(ctx, i, st)
		}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	new0 := stats(b, dep)
	states := make([]string, n)
	newStart := time.Now()
	if err := parallel(n, clients, func(i int) error {
		var err error
		states[i], err = cl.round1(ctx, i)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	newAsked := time.Since(newStart)
	new1 := stats(b, dep)
	answerStart = time.Now()
	if err := parallel(n, clients, func(i int) error {
		got, err := cl.round2(ctx, i, states[i])
		if err == nil && got != deployed {
			err = fmt.Errorf("round 2: %q", got)
		}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	newAnswered := time.Since(answerStart)

	per := func(a, z uint64) float64 { return (float64(z) - float64(a)) / float64(n) }
	oldHeap, newHeap := per(old0.HeapInuse, old1.HeapInuse), per(new0.HeapInuse, new1.HeapInuse)
	oldG := float64(old1.Goroutines-old0.Goroutines) / float64(n)
	newG := float64(new1.Goroutines-new0.Goroutines) / float64(n)
	b.ReportMetric(float64(n), "pending")
	b.ReportMetric(oldHeap, "old-heap-B/pending")
	b.ReportMetric(newHeap, "mrtr-heap-B/pending")
	b.ReportMetric(oldG, "old-goroutines/pending")
	b.ReportMetric(newG, "mrtr-goroutines/pending")
	b.Logf("%d pending: old way %.0f B and %.2f goroutines each (asked in %s, answered in %s); MRTR %.0f B and %.2f goroutines each (asked in %s, answered in %s)",
		n, oldHeap, oldG, oldAsked.Round(time.Millisecond), oldAnswered.Round(time.Millisecond), newHeap, newG, newAsked.Round(time.Millisecond), newAnswered.Round(time.Millisecond))
}

// client2 spreads MRTR calls over several sessions.
type client2 struct{ css []*mcp.ClientSession }

func (c *client2) round1(ctx context.Context, i int) (string, error) {
	res, err := c.css[i%len(c.css)].CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs})
	if err != nil {
		return "", err
	}
	if !res.NeedsInput() {
		return "", fmt.Errorf("round 1 did not ask: %s", textOf(res))
	}
	return res.RequestState, nil
}

func (c *client2) round2(ctx context.Context, i int, state string) (string, error) {
	res, err := c.css[i%len(c.css)].CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs,
		InputResponses: mcp.InputResponseMap{"target": yes}, RequestState: state})
	if err != nil {
		return "", err
	}
	return textOf(res), nil
}

// benchRun runs `mcp-tester bench` in process and returns its JSON report.
type benchReport struct {
	Flows          int     `json:"flows"`
	Failed         int     `json:"failed"`
	FlowsPerSecond float64 `json:"flowsPerSecond"`
	Flow           struct {
		P50Ms float64 `json:"p50Ms"`
		P99Ms float64 `json:"p99Ms"`
	} `json:"flow"`
	Errors []string `json:"errors"`
}

func benchRun(b *testing.B, args ...string) benchReport {
	b.Helper()
	io, _, out, errOut := iostreams.Test()
	code := cli.Main(context.Background(), io, append([]string{"bench", "--format", "json"}, args...))
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		b.Fatalf("bench %v: exit %d: %v\n%s%s", args, code, err, out, errOut)
	}
	if rep.Failed > 0 || rep.Flows == 0 {
		b.Fatalf("bench %v: %d failed, %d completed: %v", args, rep.Failed, rep.Flows, rep.Errors)
	}
	return rep
}

// benchSeconds is the length of each measured run: SCALEOUT_BENCH_SECONDS,
// default 3.
func benchSeconds() string {
	if s := os.Getenv("SCALEOUT_BENCH_SECONDS"); s != "" {
		return s + "s"
	}
	return "3s"
}

const answerYes = `accept:{"environment":"production","confirm":true}`

// BenchmarkFlows measures completed flows per second over loopback HTTP
// with `mcp-tester bench` (8 workers): the old way's held-open two-step
// flow against the MRTR deployer's two rounds, and the MRTR deploy against
// a one-round call of the same tool (a client that declares no elicitation
// gets a plain answer at once).
func BenchmarkFlows(b *testing.B) {
	old := scaleout.StartInstance(b, "oldway", binary(b, "oldway"), nil, "-max-sessions", "100000", "-max-sessions-per-caller", "100000")
	dep := scaleout.StartInstance(b, "deployer", binary(b, "deployer"), []string{stateKey})
	d := benchSeconds()
	common := []string{"--args", `{"service":"auth-service"}`, "--concurrency", "8", "--duration", d}
	oldRep := benchRun(b, append([]string{"deploy", "-u", old.Endpoint(), "--protocol", "2025-11-25", "--elicit", answerYes}, common...)...)
	newRep := benchRun(b, append([]string{"deploy", "-u", dep.Endpoint(), "--elicit", answerYes}, common...)...)
	oneRep := benchRun(b, append([]string{"deploy", "-u", dep.Endpoint(), "--no-elicitation"}, common...)...)
	b.ReportMetric(oldRep.FlowsPerSecond, "old-flows/s")
	b.ReportMetric(newRep.FlowsPerSecond, "mrtr-flows/s")
	b.ReportMetric(oneRep.FlowsPerSecond, "one-round-calls/s")
	b.ReportMetric(newRep.FlowsPerSecond/oldRep.FlowsPerSecond, "mrtr/old")
	b.ReportMetric(newRep.FlowsPerSecond/oneRep.FlowsPerSecond, "mrtr/one-round")
	b.Logf("p50/p99 ms: old %.2f/%.2f, MRTR %.2f/%.2f, one round %.2f/%.2f",
		oldRep.Flow.P50Ms, oldRep.Flow.P99Ms, newRep.Flow.P50Ms, newRep.Flow.P99Ms, oneRep.Flow.P50Ms, oneRep.Flow.P99Ms)
}

// BenchmarkInstances measures two-round deploy flows per second through
// the reverse proxy in front of 1, 2 and 4 deployer instances sharing one
// Redis, with round robin and no affinity, with `mcp-tester bench`
// (16 workers). The load generator, the proxy, Redis and the instances
// share this machine's cores.
func BenchmarkInstances(b *testing.B) {
	r := scaleout.StartRedis(b, nil)
	ins := scaleout.StartInstances(b, 4, binary(b, "deployer"), []string{stateKey}, "-redis", r.URL)
	d := benchSeconds()
	var base float64
	for _, k := range []int{1, 2, 4} {
		var bases []string
		for _, in := range ins[:k] {
			bases = append(bases, in.Base())
		}
		p, err := scaleout.NewProxy(bases...)
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(p)
		rep := benchRun(b, "deploy", "-u", srv.URL+"/mcp", "--args", `{"service":"auth-service"}`, "--elicit", answerYes, "--concurrency", "16", "--duration", d)
		srv.Close()
		b.Logf("%d instances: %d flows, %.1f flows/s, p50 %.2f ms, p99 %.2f ms, requests per instance %v", k, rep.Flows, rep.FlowsPerSecond, rep.Flow.P50Ms, rep.Flow.P99Ms, p.Hits())
		if k == 1 {
			base = rep.FlowsPerSecond
		}
		b.ReportMetric(rep.FlowsPerSecond, fmt.Sprintf("flows/s-%d-instances", k))
		if k > 1 {
			b.ReportMetric(rep.FlowsPerSecond/base, fmt.Sprintf("x-%d/1", k))
		}
	}
}

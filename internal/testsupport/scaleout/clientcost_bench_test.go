package scaleout_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/cpuuse"
	"github.com/askback/askback/internal/cli"
	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	costWorkers = 8
	costFlows   = 400 // per measured run
	costRepeats = 3
)

var deployAnswer = map[string]any{"environment": "production", "confirm": true}

// BenchmarkClientCost compares the CPU time `mcp-tester bench` spends per
// two-round deploy flow with that of a minimal go-sdk client doing the same
// flows over kept-alive connections, both against the same deployer
// process, alternating in one run (costRepeats times costFlows flows each,
// 8 workers). Only this process's CPU time is counted (getrusage): the
// server runs in another process. Whatever b.N, it does its work once (run
// it with -benchtime 1x). With -cpuprofile, the samples of each client
// carry the label client=tester or client=floor (pprof -tagfocus).
func BenchmarkClientCost(b *testing.B) {
	dep := scaleout.StartInstance(b, "deployer", testbin.Path(b, "./examples/deployer"), []string{stateKey})
	// Warm up: the first run of each pays for what a process does once.
	floorRun(b, dep.Endpoint(), 40)
	testerRun(b, dep.Endpoint(), 40)
	var tester, floor []float64
	for range costRepeats {
		pprof.Do(context.Background(), pprof.Labels("client", "floor"), func(context.Context) {
			floor = append(floor, perFlow(b, func() int { return floorRun(b, dep.Endpoint(), costFlows) }))
		})
		pprof.Do(context.Background(), pprof.Labels("client", "tester"), func(context.Context) {
			tester = append(tester, perFlow(b, func() int { return testerRun(b, dep.Endpoint(), costFlows) }))
		})
	}
	// Each ratio compares the two runs next to each other in time.
	var ratios []float64
	for i := range tester {
		ratios = append(ratios, tester[i]/floor[i])
	}
	b.Logf("CPU per flow: mcp-tester bench %.0f µs, minimal go-sdk client %.0f µs; ratios %.2f", tester, floor, ratios)
	b.ReportMetric(median(tester), "tester-cpu-µs/flow")
	b.ReportMetric(median(floor), "floor-cpu-µs/flow")
	b.ReportMetric(median(ratios), "tester/floor")
	b.ReportMetric(slices.Min(ratios), "tester/floor-min")
	b.ReportMetric(slices.Max(ratios), "tester/floor-max")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// perFlow runs run and returns this process's CPU time per completed flow,
// in microseconds.
func perFlow(b *testing.B, run func() int) float64 {
	b.Helper()
	c0, err := cpuuse.Self()
	if err != nil {
		b.Fatal(err)
	}
	n := run()
	c1, _ := cpuuse.Self()
	return float64(c1-c0) / float64(time.Microsecond) / float64(n)
}

func testerRun(b testing.TB, url string, n int) int {
	b.Helper()
	io, _, out, errOut := iostreams.Test()
	code := cli.Main(context.Background(), io, []string{"bench", "deploy", "-u", url, "--format", "json",
		"--args", `{"service":"auth-service"}`, "--elicit", `accept:{"environment":"production","confirm":true}`,
		"--concurrency", strconv.Itoa(costWorkers), "--requests", strconv.Itoa(n)})
	var rep struct{ Flows, Failed int }
	if err := json.Unmarshal(out.Bytes(), &rep); code != 0 || err != nil || rep.Flows != n {
		b.Fatalf("bench: exit %d, %v: %s%s", code, err, out, errOut)
	}
	return rep.Flows
}

// floorRun runs n deploy flows with the go-sdk's own client: its multi
// round-trip loop answers the question, every worker has its session, and
// one HTTP transport keeps a connection per worker alive.
func floorRun(b testing.TB, url string, n int) int {
	b.Helper()
	ctx := context.Background()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: costWorkers}}
	defer hc.CloseIdleConnections()
	c := mcp.NewClient(&mcp.Implementation{Name: "floor", Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: deployAnswer}, nil
		},
	})
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range costWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: 2}, nil)
			if err != nil {
				once.Do(func() { first = err })
				return
			}
			defer cs.Close()
			for next.Add(1) <= int64(n) {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: deployArgs})
				if err == nil && (res.IsError || len(res.Content) == 0) {
					err = fmt.Errorf("deploy: %+v", res)
				}
				if err != nil {
					once.Do(func() { first = err })
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
	return int(done.Load())
}

package loadgen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/internal/bench/loadgen"
)

// fake is a worker whose flows take two rounds of fixed length, and fail
// every failEvery-th time.
type fake struct {
	n         *atomic.Int64
	failEvery int64
	round     time.Duration
	closed    *atomic.Int64
}

func (f *fake) Flow(ctx context.Context, r *loadgen.Rounds) error {
	k := f.n.Add(1)
	if f.failEvery > 0 && k%f.failEvery == 0 {
		return fmt.Errorf("flow failed: boom %d", k%2)
	}
	for range 2 {
		t0 := time.Now()
		select {
		case <-time.After(f.round):
		case <-ctx.Done():
			return ctx.Err()
		}
		r.Add(time.Since(t0))
	}
	return nil
}

func (f *fake) Close() error { f.closed.Add(1); return nil }

func opener(f fake) (func(context.Context) (loadgen.Worker, error), *atomic.Int64, *atomic.Int64) {
	var n, closed atomic.Int64
	return func(context.Context) (loadgen.Worker, error) {
		w := f
		w.n, w.closed = &n, &closed
		return &w, nil
	}, &n, &closed
}

func TestRequestsBoundTheRun(t *testing.T) {
	open, n, closed := opener(fake{round: time.Millisecond})
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 4, Requests: 37, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Flows != 37 || n.Load() != 37 || rep.Failed != 0 {
		t.Errorf("37 requests ran %d flows (%d completed)", n.Load(), rep.Flows)
	}
	if len(rep.Rounds) != 2 || rep.Rounds[0].Count != 37 || rep.Rounds[1].Count != 37 {
		t.Errorf("rounds: %+v", rep.Rounds)
	}
	if rep.Flow.P50 < 2*time.Millisecond || rep.Flow.P50 > rep.Flow.P99 || rep.Flow.P99 > rep.Flow.Max {
		t.Errorf("flow latencies out of order: %+v", rep.Flow)
	}
	if closed.Load() != 4 {
		t.Errorf("%d of 4 workers closed", closed.Load())
	}
}

// In fake time (testing/synctest): a busy machine stretches no part of it.
func TestDurationBoundsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		open, _, _ := opener(fake{round: time.Millisecond})
		start := time.Now()
		rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 2, Duration: 200 * time.Millisecond, Open: open})
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 250*time.Millisecond {
			t.Errorf("a 200ms run took %s", d)
		}
		if rep.Flows == 0 || rep.Throughput <= 0 {
			t.Errorf("no flows in 200ms: %+v", rep)
		}
	})
}

func TestFailuresAreCountedAndSampled(t *testing.T) {
	open, _, _ := opener(fake{round: 0, failEvery: 3})
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 1, Requests: 30, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Flows != 20 || rep.Failed != 10 {
		t.Errorf("completed %d, failed %d; want 20 and 10", rep.Flows, rep.Failed)
	}
	if len(rep.Errors) != 2 {
		t.Errorf("distinct errors: %q", rep.Errors)
	}
}

// A target where nothing works ends the run early instead of spinning.
func TestNothingWorksStopsEarly(t *testing.T) {
	open, n, _ := opener(fake{failEvery: 1})
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 1, Requests: 100000, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() > 100 || rep.Flows != 0 {
		t.Errorf("ran %d flows against a target that fails them all", n.Load())
	}
}

func TestLimits(t *testing.T) {
	open, _, _ := opener(fake{})
	for _, o := range []loadgen.Options{
		{Concurrency: loadgen.MaxConcurrency + 1, Open: open},
		{Requests: -1, Open: open},
		{Duration: 2 * loadgen.MaxDuration, Open: open},
		{Requests: 1},
	} {
		if _, err := loadgen.Run(context.Background(), o); err == nil {
			t.Errorf("Run(%+v) accepted", o)
		}
	}
	boom := errors.New("cannot connect")
	_, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 3, Requests: 1,
		Open: func(context.Context) (loadgen.Worker, error) { return nil, boom }})
	if !errors.Is(err, boom) {
		t.Errorf("Open error: %v", err)
	}
}

func TestReports(t *testing.T) {
	open, _, _ := opener(fake{round: time.Millisecond})
	var last loadgen.Progress
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 2, Requests: 10, Open: open, Progress: func(p loadgen.Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if bar := last.String(); !strings.HasPrefix(bar, "[##############################] 100%  10 done  0 failed") {
		t.Errorf("progress did not end at 100%%: %q", bar)
	}
	var text bytes.Buffer
	loadgen.WriteText(&text, "bench", rep)
	for _, want := range []string{"flows:       10 completed, 0 failed", "round 2", "p99"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	loadgen.WriteJSON(&js, rep)
	var got struct {
		Flows  int `json:"flows"`
		Rounds []struct {
			Count int     `json:"count"`
			P99Ms float64 `json:"p99Ms"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.Flows != 10 || len(got.Rounds) != 2 || got.Rounds[1].P99Ms <= 0 {
		t.Errorf("JSON report: %v\n%s", err, js.String())
	}
}

// The report carries the tester's own CPU time over the run, or nothing
// when it cannot be read.
func TestReportsTesterCPU(t *testing.T) {
	synctest.Test(t, testReportsTesterCPU)
}

func testReportsTesterCPU(t *testing.T) {
	open, _, _ := opener(fake{round: time.Millisecond})
	reads := 0
	// 10 flows of 2 ms on 2 workers end before the first tick reads the
	// CPU time: it is read at the start and at the end.
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 2, Requests: 10, Open: open,
		CPUTime: func() (time.Duration, error) { reads++; return time.Duration(reads) * 30 * time.Millisecond, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Tester.Measured || rep.Tester.CPU != 30*time.Millisecond || rep.Tester.PerFlow(rep.Flows) != 3*time.Millisecond {
		t.Errorf("tester: %+v", rep.Tester)
	}
	var text bytes.Buffer
	loadgen.WriteText(&text, "", rep)
	if !strings.Contains(text.String(), "tester CPU:  30ms, 3.00ms per flow\n") {
		t.Errorf("text report:\n%s", text.String())
	}

	rep, err = loadgen.Run(context.Background(), loadgen.Options{Concurrency: 1, Requests: 2, Open: open,
		CPUTime: func() (time.Duration, error) { return 0, errors.New("no getrusage here") }})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	loadgen.WriteText(&text, "", rep)
	var js bytes.Buffer
	loadgen.WriteJSON(&js, rep)
	if strings.Contains(text.String(), "tester CPU") || !strings.Contains(js.String(), `"tester": null`) {
		t.Errorf("CPU time unknown:\n%s\n%s", text.String(), js.String())
	}
}

// Opening the workers counts against the run's bound: a server that lets
// each session open only just within its time limit cannot hold a run of
// many workers for hours (1000 workers × 30 s) before the first flow.
func TestOpeningIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opened := 0
		slow := func(ctx context.Context) (loadgen.Worker, error) {
			select {
			case <-time.After(29 * time.Second): // just within a 30 s limit
				opened++
				return &fake{n: &atomic.Int64{}, closed: &atomic.Int64{}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		start := time.Now()
		_, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: loadgen.MaxConcurrency, Duration: time.Second, Open: slow})
		if !errors.Is(err, loadgen.ErrRunTooLong) {
			t.Fatalf("err = %v, want ErrRunTooLong", err)
		}
		if took := time.Since(start); took > loadgen.MaxDuration {
			t.Errorf("opening took %s, more than %s", took, loadgen.MaxDuration)
		}
		if opened >= loadgen.MaxConcurrency {
			t.Errorf("opened all %d workers", opened)
		}
	})
}

// The report keeps the run over time: slices of 100 ms, doubled as the run
// grows so that a chart has at most 120 points, each with the flows that
// ended in it, their latency, and the tester's CPU time read in it; and a
// latency histogram of every flow and round, nothing sampled away.
func TestTimelineAndHistograms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Rounds of 10 ms (a flow: 20 ms) on 2 workers: 3000 flows in 30 s.
		open, _, _ := opener(fake{round: 10 * time.Millisecond})
		var cpu time.Duration
		start := time.Now()
		rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 2, Requests: 3000, Open: open,
			CPUTime: func() (time.Duration, error) {
				// A tester busy 10% of the time.
				cpu = time.Since(start) / 10
				return cpu, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Flows != 3000 || rep.Elapsed != 30*time.Second {
			t.Fatalf("%d flows in %s; want 3000 in 30s", rep.Flows, rep.Elapsed)
		}
		// 30 s: 300 slices of 100 ms, too many; 75 of 400 ms.
		if rep.Interval != 400*time.Millisecond || len(rep.Timeline) != 75 {
			t.Fatalf("interval %s, %d slices; want 400ms and 75", rep.Interval, len(rep.Timeline))
		}
		flows := 0
		var cpuSum time.Duration
		for i, in := range rep.Timeline {
			flows += in.Flows
			cpuSum += in.CPU
			if in.Start != time.Duration(i)*rep.Interval || in.End != in.Start+rep.Interval {
				t.Errorf("slice %d: %s to %s", i, in.Start, in.End)
			}
			if in.Flows != 40 || in.Throughput != 100 {
				t.Errorf("slice %d: %d flows, %.1f/s; want 40 and 100/s", i, in.Flows, in.Throughput)
			}
			if in.P50 != 20*time.Millisecond || in.P99 != 20*time.Millisecond || in.Max != 20*time.Millisecond {
				t.Errorf("slice %d: p50 %s p99 %s max %s; want 20ms", i, in.P50, in.P99, in.Max)
			}
		}
		if flows != rep.Flows || cpuSum != rep.Tester.CPU || rep.Tester.CPU != 3*time.Second {
			t.Errorf("slices hold %d flows and %s CPU; the run %d and %s (want 3s)", flows, cpuSum, rep.Flows, rep.Tester.CPU)
		}
		for _, s := range append([]loadgen.Summary{rep.Flow}, rep.Rounds...) {
			n := 0
			for _, b := range s.Histogram {
				n += b.Count
				if b.From > s.Max || b.To <= b.From {
					t.Errorf("bucket %s–%s beyond the max %s", b.From, b.To, s.Max)
				}
			}
			if n != s.Count || len(s.Histogram) != 1 {
				t.Errorf("histogram %+v counts %d of %d", s.Histogram, n, s.Count)
			}
		}
		if b := rep.Flow.Histogram[0]; b.From != 20*time.Millisecond || b.To != 25*time.Millisecond {
			t.Errorf("20 ms flows in the bucket %s–%s; want 20ms–25ms", b.From, b.To)
		}
		var js bytes.Buffer
		if err := loadgen.WriteJSON(&js, rep); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			IntervalMs float64 `json:"intervalMs"`
			Timeline   []struct {
				StartMs, EndMs, FlowsPerSecond, P99Ms float64
				TesterCPUMs                           *float64 `json:"testerCpuMs"`
			} `json:"timeline"`
			Flow struct {
				Histogram []struct {
					FromMs, ToMs float64
					Count        int
				} `json:"histogram"`
			} `json:"flow"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.IntervalMs != 400 || len(doc.Timeline) != 75 || doc.Timeline[1].StartMs != 400 || doc.Timeline[1].FlowsPerSecond != 100 ||
			doc.Timeline[1].P99Ms != 20 || doc.Timeline[1].TesterCPUMs == nil || *doc.Timeline[1].TesterCPUMs != 40 {
			t.Errorf("JSON timeline: %+v", doc.Timeline[:2])
		}
		if h := doc.Flow.Histogram; len(h) != 1 || h[0].FromMs != 20 || h[0].ToMs != 25 || h[0].Count != 3000 {
			t.Errorf("JSON histogram: %+v", h)
		}
	})
}

// A run shorter than a slice has one, as long as the run.
func TestTimelineOfAShortRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		open, _, _ := opener(fake{round: 5 * time.Millisecond})
		rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 1, Requests: 3, Open: open})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Timeline) != 1 || rep.Timeline[0].End != 30*time.Millisecond || rep.Timeline[0].Flows != 3 || rep.Timeline[0].Throughput != 100 {
			t.Errorf("timeline %+v", rep.Timeline)
		}
	})
}

// A flow in flight when the run's context ends (Ctrl-C) is interrupted:
// neither completed nor failed, and its error, the run's own, is no
// server's failure.
func TestInterruptedFlowsAreNotFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		open, _, _ := opener(fake{round: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Minute, cancel)
		rep, err := loadgen.Run(ctx, loadgen.Options{Concurrency: 3, Duration: 50 * time.Minute, FlowTimeout: 50 * time.Minute, Open: open})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Flows != 0 || rep.Failed != 0 || rep.Interrupted != 3 || len(rep.Errors) != 0 {
			t.Errorf("flows %d, failed %d, interrupted %d, errors %q; want 0, 0, 3, none", rep.Flows, rep.Failed, rep.Interrupted, rep.Errors)
		}
		var text, doc bytes.Buffer
		if err := loadgen.WriteText(&text, "", rep); err != nil || !strings.Contains(text.String(), "0 completed, 0 failed, 3 interrupted in") {
			t.Errorf("text report: %v\n%s", err, text.String())
		}
		if err := loadgen.WriteJSON(&doc, rep); err != nil || !strings.Contains(doc.String(), `"interrupted": 3`) {
			t.Errorf("JSON report: %v\n%s", err, doc.String())
		}
	})
}

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

	"github.com/askback/askback/internal/loadgen"
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

func TestDurationBoundsTheRun(t *testing.T) {
	open, _, _ := opener(fake{round: time.Millisecond})
	start := time.Now()
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 2, Duration: 200 * time.Millisecond, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a 200ms run took %s", d)
	}
	if rep.Flows == 0 || rep.Throughput <= 0 {
		t.Errorf("no flows in 200ms: %+v", rep)
	}
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
	var bars bytes.Buffer
	rep, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 2, Requests: 10, Open: open, Progress: loadgen.Bar(&bars)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(bars.String(), "\n") || !strings.Contains(bars.String(), "100%") {
		t.Errorf("progress bar did not end at 100%%: %q", bars.String())
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
	open, _, _ := opener(fake{round: time.Millisecond})
	reads := 0
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

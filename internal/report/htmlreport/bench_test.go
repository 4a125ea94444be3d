package htmlreport_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/internal/bench/loadgen"
	"github.com/askback/askback/internal/report/htmlreport"
)

// varied is a worker whose flows take two rounds of lengths that vary
// from flow to flow (the same sequence every run), a few much longer.
type varied struct{ n *atomic.Int64 }

func (v varied) Flow(ctx context.Context, r *loadgen.Rounds) error {
	k := v.n.Add(1)
	for i := range 2 {
		d := time.Duration(800+(k*37+int64(i)*101)%900) * time.Microsecond
		if k%50 == 0 {
			d *= 6
		}
		time.Sleep(d)
		r.Add(d)
	}
	return nil
}

func (varied) Close() error { return nil }

// benchReport is a bench run in fake time: 8 workers, 4000 flows, the
// tester's CPU at 20% of 2 cores.
func benchReport(t *testing.T) *loadgen.Report {
	var rep *loadgen.Report
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		start := time.Now()
		r, err := loadgen.Run(context.Background(), loadgen.Options{Concurrency: 8, Requests: 4000,
			Open:    func(context.Context) (loadgen.Worker, error) { return varied{&n}, nil },
			CPUTime: func() (time.Duration, error) { return time.Since(start) * 2 / 5, nil }})
		if err != nil {
			t.Fatal(err)
		}
		r.Tester.Cores, r.Tester.SharesCores = 2, true
		rep = r
	})
	return rep
}

func TestBenchPage(t *testing.T) {
	rep := benchReport(t)
	var a, b bytes.Buffer
	meta := fixedMeta
	meta.Command = "mcp-tester bench"
	if err := htmlreport.WriteBench(&a, meta, "tool deploy", rep); err != nil {
		t.Fatal(err)
	}
	htmlreport.WriteBench(&b, meta, "tool deploy", rep)
	if a.String() != b.String() {
		t.Error("the same report gave two pages")
	}
	for _, want := range []string{`id="chart-throughput"`, `id="chart-latency"`, `id="chart-cpu"`, `id="histogram-flow"`, `id="histogram-round-2"`, "20.0%"} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if dir := os.Getenv("HTMLREPORT_OUT"); dir != "" {
		os.WriteFile(dir+"/bench.html", a.Bytes(), 0o644)
	}
}

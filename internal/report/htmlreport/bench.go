package htmlreport

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/askback/askback/internal/bench/loadgen"
)

// benchPage is the body of a `bench` report.
type benchPage struct {
	What        string
	Flows       int
	Failed      int
	Elapsed     string
	Throughput  string
	Concurrency int
	Tester      string // the tester's CPU: time, per flow, share of its cores
	TesterShare string // "12.5%", or "" when unknown
	Shares      string // "shared with the server" or "not shared with the server"
	Latency     []latencyRow
	Charts      []*chart
	Histograms  []*chart
	Timeline    []intervalRow
	Interval    string
	Errors      []string
}

type latencyRow struct {
	Name                     string
	Count                    int
	Mean, P50, P90, P99, Max string
}

type intervalRow struct {
	Span, Flows, Failed, Throughput, P50, P90, P99, Max, CPU string
}

// WriteBench writes the page of a bench run: throughput, the flows'
// latency percentiles and the tester's own CPU share over the run, a
// latency histogram of the flows and of each round, and the figures
// behind them. what names what was loaded ("tool deploy").
//
// The figures on the charts are those of the JSON report
// (loadgen.WriteJSON) rounded as they are shown: seconds with one decimal,
// milliseconds with three, flows per second with one, shares in percent
// with one; the histograms' edges exactly.
func WriteBench(w io.Writer, m Meta, what string, r *loadgen.Report) error {
	t := text{m.Hide}
	body := benchPage{
		What:        t.line(what),
		Flows:       r.Flows,
		Failed:      r.Failed,
		Elapsed:     duration(r.Elapsed),
		Throughput:  flowsPerSecond(r.Throughput),
		Concurrency: r.Concurrency,
		Interval:    duration(r.Interval),
	}
	if tc := r.Tester; tc.Measured {
		body.Tester = fmt.Sprintf("%s of CPU, %s ms per flow", duration(tc.CPU), ms(tc.PerFlow(r.Flows)))
		if tc.Cores > 0 {
			body.TesterShare = percent(tc.Share(r.Elapsed))
			body.Shares = fmt.Sprintf("of %d core%s, not shared with the server", tc.Cores, plural(tc.Cores))
			if tc.SharesCores {
				body.Shares = fmt.Sprintf("of %d core%s, shared with the server", tc.Cores, plural(tc.Cores))
			}
		}
	}
	row := func(name string, s loadgen.Summary) latencyRow {
		return latencyRow{Name: name, Count: s.Count, Mean: ms(s.Mean), P50: ms(s.P50), P90: ms(s.P90), P99: ms(s.P99), Max: ms(s.Max)}
	}
	body.Latency = append(body.Latency, row("flow", r.Flow))
	for k, s := range r.Rounds {
		body.Latency = append(body.Latency, row(fmt.Sprintf("round %d", k+1), s))
	}
	for _, e := range r.Errors {
		body.Errors = append(body.Errors, t.line(e))
	}
	body.Charts = timelineCharts(r)
	body.Histograms = append(body.Histograms, histogramChart("histogram-flow", "Latency of whole flows", r.Flow))
	for k, s := range r.Rounds {
		body.Histograms = append(body.Histograms, histogramChart(fmt.Sprintf("histogram-round-%d", k+1), fmt.Sprintf("Latency of round %d", k+1), s))
	}
	for _, in := range r.Timeline {
		ir := intervalRow{Span: span(in), Flows: strconv.Itoa(in.Flows), Failed: strconv.Itoa(in.Failed), Throughput: flowsPerSecond(in.Throughput),
			P50: ms(in.P50), P90: ms(in.P90), P99: ms(in.P99), Max: ms(in.Max)}
		if share, ok := r.IntervalShare(in); ok {
			ir.CPU = percent(share)
		}
		body.Timeline = append(body.Timeline, ir)
	}
	verdict, title := "passed", fmt.Sprintf("%s flows/s, %d flows completed", body.Throughput, r.Flows)
	if r.Failed > 0 {
		verdict, title = "failed", title+fmt.Sprintf(", %d failed", r.Failed)
	}
	sub := fmt.Sprintf("%s, %d worker%s, %s", body.What, r.Concurrency, plural(r.Concurrency), body.Elapsed)
	return render(w, m, "bench", title, sub, verdict, body)
}

// ms writes d in milliseconds with three decimals, as the charts label it.
func ms(d time.Duration) string { return strconv.FormatFloat(loadgen.Ms(d), 'f', 3, 64) }

func flowsPerSecond(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// seconds writes d in seconds with one decimal.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) }

// span is an interval's bounds in seconds: "0.4–0.8 s".
func span(in loadgen.Interval) string { return seconds(in.Start) + "–" + seconds(in.End) + " s" }

// timelineCharts are the charts over the run's time: throughput, latency
// percentiles and, when known, the tester's CPU share.
func timelineCharts(r *loadgen.Report) []*chart {
	if len(r.Timeline) == 0 {
		return nil
	}
	end := r.Elapsed.Seconds()
	var done, failed, p50, p90, p99, cpu []point
	anyFailed, cpuKnown := false, true
	for _, in := range r.Timeline {
		x := in.End.Seconds()
		sp := span(in)
		done = append(done, point{x, in.Throughput, fmt.Sprintf("%s: %s flows/s (%d completed, %d failed)", sp, flowsPerSecond(in.Throughput), in.Flows, in.Failed)})
		width := (in.End - in.Start).Seconds()
		fail := 0.0
		if width > 0 {
			fail = float64(in.Failed) / width
		}
		anyFailed = anyFailed || in.Failed > 0
		failed = append(failed, point{x, fail, fmt.Sprintf("%s: %d failed", sp, in.Failed)})
		if in.Flows > 0 {
			lat := fmt.Sprintf("%s: p50 %s ms, p90 %s ms, p99 %s ms (%d flows)", sp, ms(in.P50), ms(in.P90), ms(in.P99), in.Flows)
			p50 = append(p50, point{x, loadgen.Ms(in.P50), lat})
			p90 = append(p90, point{x, loadgen.Ms(in.P90), lat})
			p99 = append(p99, point{x, loadgen.Ms(in.P99), lat})
		}
		if share, ok := r.IntervalShare(in); ok {
			cpu = append(cpu, point{x, 100 * share, fmt.Sprintf("%s: %s of %d cores", sp, percent(share), r.Tester.Cores)})
		} else {
			cpuKnown = false
		}
	}
	const xTitle = "time since the start (s)"
	tp := []series{{Name: "completed", Class: "s1", Points: done}}
	if anyFailed {
		tp = append(tp, series{Name: "failed", Class: "s3", Points: failed})
	}
	out := []*chart{
		lineChart("chart-throughput", fmt.Sprintf("Throughput over time (flows per second, every %s)", duration(r.Interval)), xTitle, "flows per second", end, tp),
		lineChart("chart-latency", "Latency of the flows over time (percentiles, ms)", xTitle, "latency (ms)", end, []series{
			{Name: "p50", Class: "s1", Points: p50}, {Name: "p90", Class: "s2", Points: p90}, {Name: "p99", Class: "s3", Points: p99}}),
	}
	if cpuKnown {
		out = append(out, lineChart("chart-cpu", fmt.Sprintf("The tester's own CPU over time (share of its %d cores)", r.Tester.Cores), xTitle, "tester CPU (%)", end,
			[]series{{Name: "tester CPU", Class: "s2", Points: cpu}}))
	}
	return out
}

// histogramChart draws a series' latency histogram: a bar per bucket,
// labelled with its edges on the x axis and its count above.
func histogramChart(id, title string, s loadgen.Summary) *chart {
	var cols []column
	for _, b := range s.Histogram {
		cols = append(cols, column{Value: float64(b.Count), Edge: edge(b.From),
			Title: fmt.Sprintf("%s–%s: %d", edge(b.From), edge(b.To), b.Count), Label: strconv.Itoa(b.Count)})
	}
	last := ""
	if n := len(s.Histogram); n > 0 {
		last = edge(s.Histogram[n-1].To)
	}
	return barChart(id, fmt.Sprintf("%s (%d)", title, s.Count), "latency (lower edge of each bar)", "count", cols, last)
}

// edge writes a histogram's edge (1, 1.2, 1.5 … × 10^k) exactly, in the
// unit that reads best: "500 µs", "1.2 ms", "2.5 s".
func edge(d time.Duration) string {
	f := func(v float64, unit string) string { return strconv.FormatFloat(v, 'f', -1, 64) + " " + unit }
	switch {
	case d < time.Millisecond:
		return f(float64(d)/1e3, "µs")
	case d < time.Second:
		return f(float64(d)/1e6, "ms")
	}
	return f(d.Seconds(), "s")
}

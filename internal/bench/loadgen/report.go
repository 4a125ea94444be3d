package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askback/askback/internal/text/termsafe"
)

// WriteText writes the report as a short table.
func WriteText(w io.Writer, title string, r *Report) error {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "%s\n", termsafe.Line(title))
	}
	interrupted := ""
	if r.Interrupted > 0 {
		interrupted = fmt.Sprintf(", %d interrupted", r.Interrupted)
	}
	fmt.Fprintf(&b, "flows:       %d completed, %d failed%s in %s (concurrency %d)\n", r.Flows, r.Failed, interrupted, r.Elapsed.Round(time.Millisecond), r.Concurrency)
	fmt.Fprintf(&b, "throughput:  %.1f flows/s\n", r.Throughput)
	if t := r.Tester; t.Measured {
		fmt.Fprintf(&b, "tester CPU:  %s, %s per flow", t.CPU.Round(time.Millisecond), ms(t.PerFlow(r.Flows)))
		if t.Cores > 0 {
			where := "not shared with the server"
			if t.SharesCores {
				where = "shared with the server"
			}
			fmt.Fprintf(&b, ", %.0f%% of %d cores (%s)", 100*t.Share(r.Elapsed), t.Cores, where)
		}
		b.WriteString("\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency\tcount\tmean\tp50\tp90\tp99\tmax\t")
	row := func(name string, s Summary) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", name, s.Count, ms(s.Mean), ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max))
	}
	row("flow", r.Flow)
	for k, s := range r.Rounds {
		row(fmt.Sprintf("round %d", k+1), s)
	}
	tw.Flush()
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "error: %s\n", termsafe.Line(e))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

// jsonSummary is a Summary in milliseconds.
type jsonSummary struct {
	Count     int          `json:"count"`
	MeanMs    float64      `json:"meanMs"`
	P50Ms     float64      `json:"p50Ms"`
	P90Ms     float64      `json:"p90Ms"`
	P99Ms     float64      `json:"p99Ms"`
	MaxMs     float64      `json:"maxMs"`
	Histogram []jsonBucket `json:"histogram"`
}

// jsonBucket is a histogram's Bucket in milliseconds.
type jsonBucket struct {
	FromMs float64 `json:"fromMs"`
	ToMs   float64 `json:"toMs"`
	Count  int     `json:"count"`
}

// jsonInterval is an Interval in milliseconds; the tester's CPU is absent
// when it was not measured, its share when the cores are unknown.
type jsonInterval struct {
	StartMs        float64  `json:"startMs"`
	EndMs          float64  `json:"endMs"`
	Flows          int      `json:"flows"`
	Failed         int      `json:"failed"`
	FlowsPerSecond float64  `json:"flowsPerSecond"`
	P50Ms          float64  `json:"p50Ms"`
	P90Ms          float64  `json:"p90Ms"`
	P99Ms          float64  `json:"p99Ms"`
	MaxMs          float64  `json:"maxMs"`
	TesterCPUMs    *float64 `json:"testerCpuMs,omitempty"`
	TesterShare    *float64 `json:"testerCoreShare,omitempty"`
}

// Ms is d in milliseconds, as the JSON report writes durations.
func Ms(d time.Duration) float64 { return float64(d) / 1e6 }

func toJSON(s Summary) jsonSummary {
	out := jsonSummary{s.Count, Ms(s.Mean), Ms(s.P50), Ms(s.P90), Ms(s.P99), Ms(s.Max), []jsonBucket{}}
	for _, b := range s.Histogram {
		out.Histogram = append(out.Histogram, jsonBucket{Ms(b.From), Ms(b.To), b.Count})
	}
	return out
}

// IntervalShare is the part of its cores' capacity the tester used in the
// interval (see Tester.Share); ok is false when it is unknown.
func (r *Report) IntervalShare(in Interval) (share float64, ok bool) {
	if !r.Tester.Measured || r.Tester.Cores <= 0 || in.End <= in.Start {
		return 0, false
	}
	return float64(in.CPU) / (float64(in.End-in.Start) * float64(r.Tester.Cores)), true
}

// jsonTester is a Tester in milliseconds; null when not measured.
type jsonTester struct {
	CPUMs        float64 `json:"cpuMs"`
	CPUPerFlowMs float64 `json:"cpuPerFlowMs"`
	// Cores and CoreShare are absent when the cores are unknown.
	Cores       int      `json:"cores,omitempty"`
	CoreShare   *float64 `json:"coreShare,omitempty"`
	SharesCores bool     `json:"sharesCoresWithServer"`
}

// WriteJSON writes the report as one JSON object: durations in
// milliseconds, throughput in completed flows per second, the tester's own
// CPU ("tester": its CPU time, per flow, and the share of its cores it
// used) or null when it could not be read; each series (the flow, each
// round) with its latency histogram, and the timeline: the run cut into
// slices of intervalMs with the flows that ended in each, their throughput
// and latency percentiles, and the tester's CPU time in it.
func WriteJSON(w io.Writer, r *Report) error {
	out := struct {
		Concurrency    int            `json:"concurrency"`
		Flows          int            `json:"flows"`
		Failed         int            `json:"failed"`
		Interrupted    int            `json:"interrupted"`
		ElapsedMs      float64        `json:"elapsedMs"`
		FlowsPerSecond float64        `json:"flowsPerSecond"`
		Flow           jsonSummary    `json:"flow"`
		Rounds         []jsonSummary  `json:"rounds"`
		Errors         []string       `json:"errors"`
		Tester         *jsonTester    `json:"tester"`
		IntervalMs     float64        `json:"intervalMs"`
		Timeline       []jsonInterval `json:"timeline"`
	}{r.Concurrency, r.Flows, r.Failed, r.Interrupted, Ms(r.Elapsed), r.Throughput, toJSON(r.Flow), []jsonSummary{}, r.Errors, nil, Ms(r.Interval), []jsonInterval{}}
	if t := r.Tester; t.Measured {
		out.Tester = &jsonTester{CPUMs: float64(t.CPU) / 1e6, CPUPerFlowMs: float64(t.PerFlow(r.Flows)) / 1e6, Cores: t.Cores, SharesCores: t.SharesCores}
		if t.Cores > 0 {
			share := t.Share(r.Elapsed)
			out.Tester.CoreShare = &share
		}
	}
	for _, s := range r.Rounds {
		out.Rounds = append(out.Rounds, toJSON(s))
	}
	for _, in := range r.Timeline {
		ji := jsonInterval{StartMs: Ms(in.Start), EndMs: Ms(in.End), Flows: in.Flows, Failed: in.Failed, FlowsPerSecond: in.Throughput,
			P50Ms: Ms(in.P50), P90Ms: Ms(in.P90), P99Ms: Ms(in.P99), MaxMs: Ms(in.Max)}
		if r.Tester.Measured {
			cpu := Ms(in.CPU)
			ji.TesterCPUMs = &cpu
		}
		if share, ok := r.IntervalShare(in); ok {
			ji.TesterShare = &share
		}
		out.Timeline = append(out.Timeline, ji)
	}
	if out.Errors == nil {
		out.Errors = []string{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(termsafe.JSON(b.Bytes()))
	return err
}

// String is the progress as one line of a terminal's status: a bar, the
// share done, the flows done and failed, and the rate so far.
func (p Progress) String() string {
	const width = 30
	f := p.Fraction()
	n := int(f * width)
	rate := 0.0
	if p.Elapsed > 0 {
		rate = float64(p.Done) / p.Elapsed.Seconds()
	}
	return fmt.Sprintf("[%s%s] %3.0f%%  %d done  %d failed  %.0f flows/s",
		strings.Repeat("#", n), strings.Repeat(".", width-n), f*100, p.Done, p.Failed, rate)
}

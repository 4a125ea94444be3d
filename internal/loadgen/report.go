package loadgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askback/askback/internal/termsafe"
)

// WriteText writes the report as a short table.
func WriteText(w io.Writer, title string, r *Report) error {
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "%s\n", termsafe.Line(title))
	}
	fmt.Fprintf(&b, "flows:       %d completed, %d failed in %s (concurrency %d)\n", r.Flows, r.Failed, r.Elapsed.Round(time.Millisecond), r.Concurrency)
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
	Count  int     `json:"count"`
	MeanMs float64 `json:"meanMs"`
	P50Ms  float64 `json:"p50Ms"`
	P90Ms  float64 `json:"p90Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MaxMs  float64 `json:"maxMs"`
}

func toJSON(s Summary) jsonSummary {
	f := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return jsonSummary{s.Count, f(s.Mean), f(s.P50), f(s.P90), f(s.P99), f(s.Max)}
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
// used) or null when it could not be read.
func WriteJSON(w io.Writer, r *Report) error {
	out := struct {
		Concurrency    int           `json:"concurrency"`
		Flows          int           `json:"flows"`
		Failed         int           `json:"failed"`
		ElapsedMs      float64       `json:"elapsedMs"`
		FlowsPerSecond float64       `json:"flowsPerSecond"`
		Flow           jsonSummary   `json:"flow"`
		Rounds         []jsonSummary `json:"rounds"`
		Errors         []string      `json:"errors"`
		Tester         *jsonTester   `json:"tester"`
	}{r.Concurrency, r.Flows, r.Failed, float64(r.Elapsed) / 1e6, r.Throughput, toJSON(r.Flow), []jsonSummary{}, r.Errors, nil}
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

// Bar returns a Progress function that draws a one-line progress bar on w
// (a terminal), redrawn in place, and ends the line when the run is done.
func Bar(w io.Writer) func(Progress) {
	const width = 30
	return func(p Progress) {
		f := p.Fraction()
		n := int(f * width)
		rate := 0.0
		if p.Elapsed > 0 {
			rate = float64(p.Done) / p.Elapsed.Seconds()
		}
		fmt.Fprintf(w, "\r[%s%s] %3.0f%%  %d done  %d failed  %.0f flows/s ",
			strings.Repeat("#", n), strings.Repeat(".", width-n), f*100, p.Done, p.Failed, rate)
		if f >= 1 {
			fmt.Fprintln(w)
		}
	}
}

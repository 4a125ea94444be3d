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

// WriteJSON writes the report as one JSON object: durations in
// milliseconds, throughput in completed flows per second.
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
	}{r.Concurrency, r.Flows, r.Failed, float64(r.Elapsed) / 1e6, r.Throughput, toJSON(r.Flow), []jsonSummary{}, r.Errors}
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

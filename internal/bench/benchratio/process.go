package benchratio

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Range is what a benchmark says of a ratio measured several times: its
// median and its extremes.
type Range struct {
	Median, Min, Max float64
	N                int // how many measurements
}

// Summarize returns the median and range of v (zero for none). The median
// of an even count is the lower of the middle two, a value that was
// measured.
func Summarize(v []float64) Range {
	if len(v) == 0 {
		return Range{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return Range{Median: s[(len(s)-1)/2], Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// String is "1.12× (1.05–1.20, 7 runs)".
func (r Range) String() string {
	return fmt.Sprintf("%.2f× (%.2f–%.2f, %d runs)", r.Median, r.Min, r.Max, r.N)
}

// Report reports r as the metrics name (the median), name-min and
// name-max.
func (r Range) Report(b *testing.B, name string) {
	b.ReportMetric(r.Median, name)
	b.ReportMetric(r.Min, name+"-min")
	b.ReportMetric(r.Max, name+"-max")
}

// Ratios returns a[i]/b[i] for each pair.
func Ratios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] / b[i]
	}
	return out
}

// Load returns the machine's load average over the last minute, read from
// /proc/loadavg; -1 when it cannot be read.
func Load() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// LoadWatch reports the machine's load around a benchmark: call it at the
// start, and the function it returns at the end; it reports the metrics
// load-start and load-end and logs both, so that every figure is printed
// next to the load it was measured under.
func LoadWatch(b *testing.B) func() {
	start := Load()
	return func() {
		end := Load()
		b.ReportMetric(start, "load-start")
		b.ReportMetric(end, "load-end")
		b.Logf("load average %.1f at the start, %.1f at the end, %d cores", start, end, numCPU())
	}
}

// ProcessCPU runs cmd to its end and returns the CPU time (user + system)
// it used, with the children it waited for (a stdio server that the client
// started and reaped is counted), from the kernel's own accounting of the
// finished process. A command that fails is an error that carries its
// output when cmd.Stdout and cmd.Stderr were left nil.
func ProcessCPU(cmd *exec.Cmd) (time.Duration, error) {
	var out strings.Builder
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &out
	}
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, tail(out.String(), 4000))
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// Pairs runs subject and baseline n times each, taking turns (A B, B A, A
// B, ...: neither always runs right after the other), and returns each
// run's CPU time in milliseconds, as ProcessCPU reads it. The commands are
// made afresh for each run by the functions given.
func Pairs(n int, subject, baseline func() *exec.Cmd) (a, b []float64, err error) {
	run := func(mk func() *exec.Cmd, into *[]float64) error {
		d, err := ProcessCPU(mk())
		if err != nil {
			return err
		}
		*into = append(*into, float64(d)/float64(time.Millisecond))
		return nil
	}
	for i := range n {
		first, second := func() error { return run(subject, &a) }, func() error { return run(baseline, &b) }
		if i%2 == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return a, b, err
		}
		if err := second(); err != nil {
			return a, b, err
		}
	}
	return a, b, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

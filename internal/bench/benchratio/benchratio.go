// Package benchratio measures a subject against a baseline in one benchmark
// run, as a ratio of the CPU time each uses, so that the figure holds on a
// machine that other work keeps busy.
package benchratio

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// Batch is how many calls of the subject, then of the baseline, one
// iteration of [Interleave] makes.
const Batch = 64

// Interleave runs batches of subject and of baseline alternately in one loop,
// so that both see the same machine load, and reports each one's CPU time per
// call (subject-ns/call, baseline-ns/call) and their ratio (x-baseline). One
// iteration (op) is one batch of each: -benchtime Nx makes N*Batch calls of
// each.
//
// The time is this process's CPU time (all threads, the garbage collector's
// included), not wall time: what a call costs, without the time the process
// waited for a core. The cost of reading the clock, measured before the run,
// is taken out of every batch.
func Interleave(b *testing.B, subject, baseline func()) {
	b.Helper()
	clock := clockCost()
	var ts, tb time.Duration
	for b.Loop() {
		t0 := now()
		for range Batch {
			subject()
		}
		t1 := now()
		for range Batch {
			baseline()
		}
		t2 := now()
		ts += t1 - t0 - clock
		tb += t2 - t1 - clock
	}
	calls := float64(b.N * Batch)
	b.ReportMetric(float64(ts.Nanoseconds())/calls, "subject-ns/call")
	b.ReportMetric(float64(tb.Nanoseconds())/calls, "baseline-ns/call")
	b.ReportMetric(float64(ts)/float64(tb), "x-baseline")
}

// clockCost is the median CPU time between two readings of the clock with
// nothing in between.
func clockCost() time.Duration {
	d := make([]time.Duration, 101)
	for i := range d {
		t := now()
		d[i] = now() - t
	}
	slices.Sort(d)
	return d[len(d)/2]
}

func numCPU() int { return runtime.NumCPU() }

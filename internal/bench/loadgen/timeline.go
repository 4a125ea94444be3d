package loadgen

import "time"

// Interval is what one slice of a run's time saw: the flows that ended in
// it, their latency percentiles, and the tester's CPU time in it.
type Interval struct {
	// Start and End are the slice's bounds since the run's clock started;
	// the last slice ends when the run did.
	Start, End time.Duration
	// Flows and Failed count the flows that completed, and that failed,
	// within the slice.
	Flows, Failed int
	// Throughput is Flows per second of the slice.
	Throughput float64
	// P50, P90 and P99 are latency percentiles of the flows completed in
	// the slice, each within 3.1% above the exact figure (a histogram's
	// bucket, see fineHistogram), and Max the longest, exactly.
	P50, P90, P99, Max time.Duration
	// CPU is the CPU time the tester used in the slice, as far as it was
	// read (Report.Tester.Measured).
	CPU time.Duration
}

// Timeline bounds: a run is cut into slices of firstInterval, doubled
// whenever the run outlasts maxIntervals of them, so that a chart has
// between maxIntervals/2 and maxIntervals points once the run is long.
const (
	firstInterval = 100 * time.Millisecond
	maxIntervals  = 120
)

// timeline collects the run's slices as flows end.
type timeline struct {
	width time.Duration
	slots []slot
}

type slot struct {
	flows, failed int
	latency       fineHistogram
	cpu           time.Duration
}

func newTimeline() *timeline { return &timeline{width: firstInterval} }

// at is the slot of the moment since start, widening the slices as needed.
// A slice holds the moments after its start up to its end (the run's first
// moment aside), so that a flow ending as the run ends is in the last.
func (t *timeline) at(since time.Duration) *slot {
	index := func() int { return int(max(since-1, 0) / t.width) }
	for index() >= maxIntervals {
		t.widen()
	}
	i := index()
	for len(t.slots) <= i {
		t.slots = append(t.slots, slot{})
	}
	return &t.slots[i]
}

// widen doubles the slices' width, merging them two by two.
func (t *timeline) widen() {
	t.width *= 2
	merged := make([]slot, (len(t.slots)+1)/2)
	for i := range t.slots {
		m := &merged[i/2]
		s := &t.slots[i]
		m.flows += s.flows
		m.failed += s.failed
		m.cpu += s.cpu
		m.latency.merge(&s.latency)
	}
	t.slots = merged
}

// flow notes a flow that ended at since after d, or failed.
func (t *timeline) flow(since, d time.Duration, failed bool) {
	s := t.at(since)
	if failed {
		s.failed++
		return
	}
	s.flows++
	s.latency.add(d)
}

// intervals are the slices from the start to elapsed.
func (t *timeline) intervals(elapsed time.Duration) []Interval {
	if elapsed > 0 {
		t.at(elapsed) // every slice to the end, the empty ones too
	}
	out := make([]Interval, len(t.slots))
	for i := range t.slots {
		s := &t.slots[i]
		start := time.Duration(i) * t.width
		end := min(start+t.width, max(elapsed, start))
		in := Interval{Start: start, End: end, Flows: s.flows, Failed: s.failed, CPU: s.cpu,
			P50: s.latency.percentile(50), P90: s.latency.percentile(90), P99: s.latency.percentile(99), Max: s.latency.max}
		if end > start {
			in.Throughput = float64(s.flows) / (end - start).Seconds()
		}
		out[i] = in
	}
	return out
}

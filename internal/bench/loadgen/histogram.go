package loadgen

import (
	"math/bits"
	"slices"
	"sort"
	"time"
)

// Bucket is one bar of a latency histogram: how many flows (or rounds)
// took at least From and less than To.
type Bucket struct {
	From, To time.Duration
	Count    int
}

// histogramBounds are the edges of the histogram's buckets: ten a decade
// (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k), from 1µs to 2h, so that a
// bar reads as "1.2–1.5 ms". A duration below the first edge counts in the
// first bucket, one above the last in the last.
var histogramBounds = func() []time.Duration {
	steps := []time.Duration{10, 12, 15, 20, 25, 30, 40, 50, 60, 80}
	var out []time.Duration
	for scale := 100 * time.Nanosecond; scale <= 10*time.Minute; scale *= 10 {
		for _, s := range steps {
			out = append(out, s*scale)
		}
	}
	return append(out, 2*time.Hour)
}()

// histogramBucket is the index of the bucket d falls in: d is at least
// histogramBounds[i] and less than histogramBounds[i+1].
func histogramBucket(d time.Duration) int {
	i := sort.Search(len(histogramBounds), func(i int) bool { return histogramBounds[i] > d }) - 1
	return min(max(i, 0), len(histogramBounds)-2)
}

// histogram counts durations in the buckets of histogramBounds, exactly
// (not sampled).
type histogram map[int]int

func (h histogram) add(d time.Duration) { h[histogramBucket(d)]++ }

// buckets are the bars from the first non-empty bucket to the last, the
// empty ones between them included; nil when nothing was counted.
func (h histogram) buckets() []Bucket {
	if len(h) == 0 {
		return nil
	}
	keys := make([]int, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []Bucket
	for i := keys[0]; i <= keys[len(keys)-1]; i++ {
		out = append(out, Bucket{From: histogramBounds[i], To: histogramBounds[i+1], Count: h[i]})
	}
	return out
}

// fineBits is log2 of the number of buckets per doubling of a fine
// histogram: 32, so a bucket is at most 1/32 (3.1%) of its lower edge wide.
const fineBits = 5

// fineBucket is the fine histogram's bucket of d: the durations below
// 2^fineBits ns have a bucket each; above, every doubling is cut into
// 2^fineBits equal parts.
func fineBucket(d time.Duration) int {
	if d < 1<<fineBits {
		return int(max(d, 0))
	}
	shift := bits.Len64(uint64(d)) - 1 - fineBits
	return shift<<fineBits + int(uint64(d)>>shift)
}

// fineUpper is the least duration above fine bucket i.
func fineUpper(i int) time.Duration {
	if i < 1<<fineBits {
		return time.Duration(i + 1)
	}
	shift := i>>fineBits - 1
	m := i - shift<<fineBits
	return time.Duration(m+1) << shift
}

// fineHistogram counts durations in buckets of about 3%, mergeable: the
// latency percentiles of a slice of the run's time, which grows by merging
// two slices into one.
type fineHistogram struct {
	counts map[int]int
	n      int
	max    time.Duration
}

func (h *fineHistogram) add(d time.Duration) {
	if h.counts == nil {
		h.counts = map[int]int{}
	}
	h.counts[fineBucket(d)]++
	h.n++
	h.max = max(h.max, d)
}

func (h *fineHistogram) merge(o *fineHistogram) {
	for k, c := range o.counts {
		if h.counts == nil {
			h.counts = map[int]int{}
		}
		h.counts[k] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}

// percentile is the nearest-rank percentile p: the upper edge of the
// bucket it falls in, at most the largest duration counted (so within 3.1%
// above the exact figure, and exact for the maximum).
func (h *fineHistogram) percentile(p int) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := max((p*h.n+99)/100, 1)
	keys := make([]int, 0, len(h.counts))
	for k := range h.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	seen := 0
	for _, k := range keys {
		seen += h.counts[k]
		if seen >= rank {
			return min(fineUpper(k), h.max)
		}
	}
	return h.max
}

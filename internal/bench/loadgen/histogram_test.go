package loadgen

import (
	"testing"
	"time"
)

// Every duration falls in a fine bucket whose upper edge is above it and
// within 1/32 of it; buckets are in the order of their durations.
func TestFineBuckets(t *testing.T) {
	prev := -1
	for d := time.Duration(0); d < 10*time.Second; d = d*21/20 + 1 {
		i := fineBucket(d)
		up := fineUpper(i)
		if up <= d || (d >= 32 && float64(up-d) > float64(d)/32+1) {
			t.Fatalf("%s in bucket %d, whose upper edge is %s", d, i, up)
		}
		if i < prev {
			t.Fatalf("%s in bucket %d, below the previous %d", d, i, prev)
		}
		if fineBucket(up) != i+1 && fineBucket(up) <= i {
			t.Fatalf("the upper edge %s of bucket %d is in bucket %d", up, i, fineBucket(up))
		}
		prev = i
	}
}

func TestFinePercentiles(t *testing.T) {
	var h fineHistogram
	for i := 1; i <= 100; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	for _, c := range []struct {
		p    int
		want time.Duration
	}{{50, 50 * time.Millisecond}, {90, 90 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}} {
		got := h.percentile(c.p)
		if got < c.want || float64(got-c.want) > float64(c.want)/32 {
			t.Errorf("p%d = %s, want %s within 3.1%%", c.p, got, c.want)
		}
	}
	var o fineHistogram
	o.add(time.Second)
	h.merge(&o)
	if h.n != 101 || h.percentile(100) != time.Second {
		t.Errorf("merged: n %d, max %s", h.n, h.percentile(100))
	}
}

func TestHistogramBuckets(t *testing.T) {
	h := histogram{}
	for _, d := range []time.Duration{1100 * time.Microsecond, 1200 * time.Microsecond, 1499 * time.Microsecond, 3 * time.Millisecond} {
		h.add(d)
	}
	got := h.buckets()
	want := []Bucket{
		{time.Millisecond, 1200 * time.Microsecond, 1},
		{1200 * time.Microsecond, 1500 * time.Microsecond, 2},
		{1500 * time.Microsecond, 2 * time.Millisecond, 0},
		{2 * time.Millisecond, 2500 * time.Microsecond, 0},
		{2500 * time.Microsecond, 3 * time.Millisecond, 0},
		{3 * time.Millisecond, 4 * time.Millisecond, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bucket %d: %v, want %v", i, got[i], want[i])
		}
	}
	if histogramBucket(0) != 0 || histogramBucket(5*time.Hour) != len(histogramBounds)-2 {
		t.Errorf("the ends: %d, %d", histogramBucket(0), histogramBucket(5*time.Hour))
	}
}

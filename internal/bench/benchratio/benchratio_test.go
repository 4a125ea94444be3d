package benchratio

import "testing"

// The CPU clock moves forward and taking its own cost out of an empty batch
// leaves about nothing.
func TestClock(t *testing.T) {
	t0 := now()
	x := 0
	for i := range 1_000_000 {
		x += i
	}
	if t1 := now(); t1 <= t0 || x == 0 {
		t.Fatalf("the process CPU clock did not move over a million additions: %v then %v", t0, t1)
	}
	if c := clockCost(); c < 0 {
		t.Fatalf("clock cost %v", c)
	}
}

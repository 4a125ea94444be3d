// Package cpuuse measures the CPU time processes use and the cores they may
// run on: what `mcp-tester bench` reports of itself, and what the
// benchmarks compare. CPU time counts only what a process ran, not what it
// waited, so a ratio of CPU times holds on a machine that other work keeps
// busy, where wall time does not.
package cpuuse

import (
	"fmt"
	"strconv"
	"strings"
)

// Cores is a set of CPU numbers.
type Cores map[int]bool

// Overlaps reports whether c and d share a core.
func (c Cores) Overlaps(d Cores) bool {
	for n := range c {
		if d[n] {
			return true
		}
	}
	return false
}

// ParseList reads a CPU list in the kernel's form: "0-3,8,10-11".
func ParseList(s string) (Cores, error) {
	c := Cores{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, ranged := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %q is not a number", s, lo)
		}
		z := a
		if ranged {
			if z, err = strconv.Atoi(hi); err != nil || z < a {
				return nil, fmt.Errorf("CPU list %q: %q is not a range", s, part)
			}
		}
		if z-a > 1<<16 {
			return nil, fmt.Errorf("CPU list %q: range %q is too long", s, part)
		}
		for n := a; n <= z; n++ {
			c[n] = true
		}
	}
	return c, nil
}

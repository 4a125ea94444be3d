//go:build windows

package benchratio

import (
	"time"

	"github.com/askback/askback/internal/bench/cpuuse"
)

// now returns the CPU time the process has used, as GetProcessTimes counts
// it (in 100-nanosecond units, updated at the scheduler's tick: a batch
// must be long enough for the ratio to mean anything).
func now() time.Duration {
	d, err := cpuuse.Self()
	if err != nil {
		panic("benchratio: no process CPU clock: " + err.Error())
	}
	return d
}

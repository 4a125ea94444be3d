//go:build unix

package benchratio

import (
	"time"

	"golang.org/x/sys/unix"
)

// now returns the CPU time the process has used, with nanosecond resolution.
func now() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		panic("benchratio: no process CPU clock: " + err.Error())
	}
	return time.Duration(ts.Nano())
}

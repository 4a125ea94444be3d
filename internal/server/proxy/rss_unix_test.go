//go:build unix

package proxy

import (
	"os"
	"syscall"
)

// maxRSS is the largest resident set of the ended process st, as getrusage
// gives it (kilobytes on Linux, bytes on macOS).
func maxRSS(st *os.ProcessState) int64 {
	return int64(st.SysUsage().(*syscall.Rusage).Maxrss)
}

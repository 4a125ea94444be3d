//go:build unix

package scaleout_test

import "syscall"

// openFileLimit is the hard limit of open files of this process.
func openFileLimit() (uint64, bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, false
	}
	return uint64(lim.Max), true
}

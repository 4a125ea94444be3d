//go:build unix

package testbin

import (
	"os"
	"syscall"
)

// lock locks f (flock), exclusive or shared, waiting for the lock.
func lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	return syscall.Flock(int(f.Fd()), how)
}

// tryLockExclusive locks f exclusive if no one holds a lock on it.
func tryLockExclusive(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// processExists reports whether process pid exists (signal 0).
func processExists(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

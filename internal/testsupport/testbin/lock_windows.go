//go:build windows

package testbin

import (
	"os"

	"golang.org/x/sys/windows"
)

// lock locks the whole of f (LockFileEx), exclusive or shared, waiting for
// the lock.
func lock(f *os.File, exclusive bool) error {
	return lockFileEx(f, exclusive, true)
}

// tryLockExclusive locks f exclusive if no one holds a lock on it.
func tryLockExclusive(f *os.File) bool {
	return lockFileEx(f, true, false) == nil
}

func lockFileEx(f *os.File, exclusive, wait bool) error {
	var flags uint32
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, ^uint32(0), ^uint32(0), ol)
}

// processExists reports whether process pid is still running.
func processExists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

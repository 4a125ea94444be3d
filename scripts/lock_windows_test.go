//go:build windows

package scripts

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockExclusive locks the whole of f (LockFileEx), waiting for the lock;
// closing f ends it.
func lockExclusive(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, ^uint32(0), ^uint32(0), new(windows.Overlapped))
}

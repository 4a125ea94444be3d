//go:build unix

package scripts

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockExclusive locks f (flock), waiting for the lock; closing f ends it.
func lockExclusive(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX)
}

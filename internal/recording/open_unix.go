//go:build unix

package recording

import "syscall"

// openNoFollow makes Create refuse a symbolic link at the recording's path
// rather than follow it, and a FIFO without a reader rather than wait.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

//go:build unix

package outfile

import "syscall"

// noFollow has the open refuse a symbolic link rather than follow it, and a
// FIFO without a reader rather than wait for one.
const noFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package replay

import "syscall"

// mapPages maps n bytes of zeroed, private memory, or returns nil.
func mapPages(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}

// unmapPages returns memory mapPages mapped.
func unmapPages(b []byte) { _ = syscall.Munmap(b) }

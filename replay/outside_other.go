//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package replay

// mapPages maps nothing here: a store's records stay on the heap.
func mapPages(int) []byte { return nil }

// unmapPages has nothing to return.
func unmapPages([]byte) {}

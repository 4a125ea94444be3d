//go:build windows

package main

// dumpGoroutines does nothing on Windows, which has no signal that makes a
// Go process print its goroutines.
func dumpGoroutines(pid int) {}

//go:build unix

package main

import "syscall"

// dumpGoroutines asks the Go process pid to print its goroutines (SIGQUIT).
func dumpGoroutines(pid int) {
	_ = syscall.Kill(pid, syscall.SIGQUIT)
}

//go:build windows

package scaleout_test

// openFileLimit is unknown on Windows, which has no such limit to raise.
func openFileLimit() (uint64, bool) { return 0, false }

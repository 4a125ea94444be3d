package cli

import "runtime/debug"

// collectAsHeld sets the garbage collector of a command that holds what
// it read for the rest of its run (catalog diff, scan --catalog) to Go's
// own target, GOGC 100, unless the environment sets GOGC. mcp-tester runs
// at 200 (cmd/mcp-tester): most of what it allocates is messages'
// garbage while what it holds is small, so a few MB buy fewer
// collections. But the heap grows to three times what is held before
// the collector runs, and what catalog diff holds is its two catalogs:
// for two 16 MB files, 220 MB at 200 where 150 MB at 100, a collection
// costing tens of milliseconds.
func collectAsHeld(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}

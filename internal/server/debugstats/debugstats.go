// Package debugstats serves what the scale-out benchmarks measure of a
// running example server: its live heap and its goroutines.
package debugstats

import (
	"encoding/json"
	"net/http"
	"runtime"
)

// Stats is what [Handler] reports about the process serving it.
type Stats struct {
	// HeapInuse is runtime.MemStats.HeapInuse after a garbage collection:
	// the bytes of heap the process holds live.
	HeapInuse uint64 `json:"heapInuse"`
	// Goroutines is runtime.NumGoroutine.
	Goroutines int `json:"goroutines"`
}

// Handler serves the process's [Stats] as JSON after forcing a garbage
// collection, so that the heap figure is what the process holds rather than
// what it has not yet collected. Mount it only on a loopback listener, for
// benchmarks (the example servers do with -debug-stats).
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(Stats{HeapInuse: m.HeapInuse, Goroutines: runtime.NumGoroutine()})
	})
}

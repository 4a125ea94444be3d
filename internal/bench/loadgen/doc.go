// Package loadgen is the engine of `mcp-tester bench`: it runs flows (a
// call and the rounds it takes to answer its questions, or a whole script)
// from a number of concurrent workers, until a count of flows or a duration
// is reached, and summarises throughput and latency percentiles for whole
// flows and for each round.
//
// The engine knows nothing of MCP: a [Worker] runs one flow at a time and
// reports the duration of each of its rounds to a [Rounds]. Every run is
// bounded twice, by a number of flows and by time; each flow is bounded by
// its own time limit.
package loadgen

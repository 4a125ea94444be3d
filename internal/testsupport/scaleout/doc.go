// Package scaleout holds the helpers of the scale-out tests and benchmarks:
// a real redis-server on a free loopback port that a test can stop, kill and
// restart on the same port; server instances started as separate processes
// on free loopback ports; and a reverse proxy in front of them that spreads
// requests round robin or pins them to one instance. Its tests hold the
// benchmarks that load such processes from a client in the test (the
// scale-out, mcp-tester bench's own cost, the go-sdk's share of a server's,
// the deployer against its floor): one test binary links the CLI and the
// go-sdk for all of them, where each package's own did it again every
// make test.
//
// Nothing here is used by a server in production: it exists so that tests
// can show that several instances share nothing but their keys and their
// stores.
package scaleout

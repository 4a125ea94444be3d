package scaleout

import (
	"net"
	"sync/atomic"
)

// CountingListener counts the connections it accepts, so that a test can
// assert that a client keeps its connections alive.
type CountingListener struct {
	net.Listener
	n atomic.Int64
}

// CountAccepts wraps l.
func CountAccepts(l net.Listener) *CountingListener { return &CountingListener{Listener: l} }

// Accept implements net.Listener.
func (l *CountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Accepted is the number of connections accepted so far.
func (l *CountingListener) Accepted() int64 { return l.n.Load() }

package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxUnread bounds the requests of the server's own (elicitation/create,
// sampling/createMessage, roots/list, ping) that the tester has read and
// whose answers are not yet written: each holds the request, its answer
// and a goroutine of the go-sdk until the server reads. A server that
// keeps sending requests and reads no answer (its input is full) would
// otherwise take the tester's memory without bound; at the bound the
// tester stops reading from it, and the session's requests end with
// errServerFlooded. A server that asks within --max-rounds and reads its
// answers never has more than a few waiting. Over HTTP the target bounds
// the answers whose POSTs are not answered the same way.
const maxUnread = target.MaxUnread

// errServerFlooded is why the session stopped reading from a server that
// sent maxUnread requests of its own whose answers it did not read.
var errServerFlooded = target.ErrServerFlooded

// unreadBound returns t with the server's requests whose answers wait to
// be written bounded by limit (see maxUnread). The transports of HTTP are
// returned as they are: a wrapper would hide the go-sdk's hook that
// updates a Streamable HTTP connection after initialize, and their
// answers are POSTs of their own, not a pipe the server leaves full.
func unreadBound(t mcp.Transport, limit int) mcp.Transport {
	switch t.(type) {
	case *mcp.StreamableClientTransport, *mcp.SSEClientTransport:
		return t
	}
	return &unreadTransport{inner: t, limit: limit}
}

type unreadTransport struct {
	inner mcp.Transport
	limit int

	mu   sync.Mutex
	conn *unreadConn // the last connection made, for release
}

func (t *unreadTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	uc := &unreadConn{Connection: c, limit: t.limit, changed: make(chan struct{})}
	t.mu.Lock()
	t.conn = uc
	t.mu.Unlock()
	return uc, nil
}

// release closes the connection when answers to the server's requests are
// still waiting to be written (the server does not read its input) after
// target.AnswerGrace, or at once when the server flooded the session: the
// go-sdk's close waits for every answer under way to be written, which a
// server that never reads again would make wait for ever. A server that
// read every answer is closed as usual, by the session's close. t may be
// nil (an HTTP transport, not bounded).
func (t *unreadTransport) release() {
	if t == nil {
		return
	}
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c == nil {
		return
	}
	if c.stuck(target.AnswerGrace) {
		// The writes waiting on the server's full input fail; the
		// command server is ended as the session's close ends it.
		_ = c.Connection.Close()
	}
}

// unreadConn counts the server's requests read whose answers have not been
// written; at limit it reads no more.
type unreadConn struct {
	mcp.Connection
	limit int

	mu      sync.Mutex
	unread  int           // requests read, their answers not yet written
	most    int           // the largest unread seen (for tests)
	stopped bool          // limit reached: nothing more is read
	changed chan struct{} // closed, and replaced, when an answer is written
}

// stuck waits up to grace for the answers under way to be written, and
// reports whether some are still waiting (or the server flooded the
// session).
func (c *unreadConn) stuck(grace time.Duration) bool {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		c.mu.Lock()
		if stopped := c.stopped; stopped || c.unread == 0 {
			c.mu.Unlock()
			return stopped
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return true
		}
	}
}

func (c *unreadConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.full() {
		return nil, errServerFlooded
	}
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.unread >= c.limit {
			// One more than the bound: it is dropped unanswered, and
			// the connection ends.
			c.stopped = true
			return nil, errServerFlooded
		}
		c.unread++
		c.most = max(c.most, c.unread)
	}
	return msg, nil
}

func (c *unreadConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		c.unread = max(c.unread-1, 0)
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
	return err
}

func (c *unreadConn) full() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

// flooded reports whether err comes of a server that flooded the session
// with requests of its own (errServerFlooded).
func flooded(err error) bool {
	return errors.Is(err, errServerFlooded)
}

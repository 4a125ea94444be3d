package target

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultDrainGrace is how long the rest of a response body may still be
// read after the request's context has ended (see [Pool]).
const DefaultDrainGrace = time.Second

// Pool carries the HTTP requests of URL targets and keeps their connections
// alive between requests. Sessions opened with the same Pool share its
// connections: `bench` gives its workers one sized to them, so that a run
// opens one connection per worker. A Target without a Pool gets one of its
// own per Open, closed with the Conn.
//
// A request's context that ends once the response has begun (a call that
// got its answer and returned, a round whose time limit is released) does
// not cut the body short: the go-sdk reads the rest of an event stream after
// the answer it waited for, and a body read to its end returns the
// connection to the pool instead of closing it. The rest may be read for
// DefaultDrainGrace; then the request is cancelled as it would have been at
// once. A new request waits (as long at most) for such a body to end, and
// so takes its connection rather than dialing another.
type Pool struct {
	tr    *http.Transport
	grace time.Duration

	mu      sync.Mutex
	open    map[*drainBody]bool // bodies not yet read to their end, closed or cancelled
	changed chan struct{}       // closed, and replaced, when one of them ends
	closed  bool                // Close was called: the last body to end closes the idle connections
}

// NewPool returns a Pool that keeps up to idle connections per server open
// between requests (at least 2).
func NewPool(idle int) *Pool {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = max(idle, 2)
	tr.MaxIdleConns = max(tr.MaxIdleConns, tr.MaxIdleConnsPerHost)
	return &Pool{tr: tr, grace: DefaultDrainGrace, open: map[*drainBody]bool{}, changed: make(chan struct{})}
}

// Close closes the Pool's idle connections now, and those still being
// drained once they are done. Nothing of the Pool runs after the last body
// has ended: no timer, no goroutine.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.tr.CloseIdleConnections()
}

// The life of a request sent through a Pool.
const (
	waiting int32 = iota // for the response's headers
	reading              // the body
	ended                // cancelled before the response came
)

// RoundTrip implements http.RoundTripper.
func (p *Pool) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if r.Method != http.MethodPost || ctx.Done() == nil {
		// A GET is a stream that lives as long as its context; nothing
		// follows it that the connection could be kept for.
		return p.tr.RoundTrip(r)
	}
	if err := p.awaitDrains(ctx); err != nil {
		return nil, err
	}
	sent, abort := context.WithCancel(context.WithoutCancel(ctx))
	b := &drainBody{ctx: ctx}
	var state atomic.Int32
	// grace is the timer that cancels a body still unread DefaultDrainGrace
	// after its context ended; the body's end stops it, so that a run that
	// is over leaves no timer behind to fire.
	var graceMu sync.Mutex
	var grace *time.Timer
	released := false
	stop := context.AfterFunc(ctx, func() {
		if state.CompareAndSwap(waiting, ended) {
			abort()
			return
		}
		graceMu.Lock()
		defer graceMu.Unlock()
		if !released {
			grace = time.AfterFunc(p.grace, b.release)
		}
	})
	b.release = sync.OnceFunc(func() {
		stop()
		graceMu.Lock()
		released = true
		if grace != nil {
			grace.Stop()
		}
		graceMu.Unlock()
		abort()
		p.untrack(b)
	})
	resp, err := p.tr.RoundTrip(r.WithContext(sent))
	if err != nil {
		b.release()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	b.body = resp.Body
	p.track(b)
	if !state.CompareAndSwap(waiting, reading) {
		resp.Body.Close()
		b.release()
		return nil, context.Cause(ctx)
	}
	resp.Body = b
	return resp, nil
}

// awaitDrains waits until no body whose request's context has ended is
// still being read, for DefaultDrainGrace at most.
func (p *Pool) awaitDrains(ctx context.Context) error {
	var deadline <-chan time.Time
	for {
		p.mu.Lock()
		draining := false
		for b := range p.open {
			if b.ctx.Err() != nil {
				draining = true
				break
			}
		}
		changed := p.changed
		p.mu.Unlock()
		if !draining {
			return nil
		}
		if deadline == nil {
			t := time.NewTimer(p.grace)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-changed:
		case <-deadline:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func (p *Pool) track(b *drainBody) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open[b] = true
}

func (p *Pool) untrack(b *drainBody) {
	p.mu.Lock()
	last := false
	if p.open[b] {
		delete(p.open, b)
		close(p.changed)
		p.changed = make(chan struct{})
		last = p.closed && len(p.open) == 0
	}
	p.mu.Unlock()
	if last {
		// The connection this body was read on went back to the pool
		// after Close: close it now.
		p.tr.CloseIdleConnections()
	}
}

// drainBody releases its request once it has been read to its end or
// closed.
type drainBody struct {
	body    io.ReadCloser
	ctx     context.Context // the request's own
	release func()
}

func (b *drainBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *drainBody) Close() error {
	err := b.body.Close()
	b.release()
	return err
}

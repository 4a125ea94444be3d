package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/askback/askback/internal/login"
)

// errRequestTimeout is the cause of a request context whose time ran out.
var errRequestTimeout = errors.New("request time limit reached")

// requestClock bounds one request in time, but only the time the server
// spends: while a person answers a question the server asked in the middle
// of the request (elicitation/create, protocol 2025-11-25 and older), or
// logs in to the server in the browser, the clock is paused.
type requestClock struct {
	mu     sync.Mutex
	limit  time.Duration
	left   time.Duration
	since  time.Time
	timer  *time.Timer
	cancel context.CancelCauseFunc
	paused int
}

// startClock returns a context that ends when d of running time has passed
// (never when d <= 0), and the clock that measures it.
func startClock(ctx context.Context, d time.Duration) (context.Context, *requestClock) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &requestClock{limit: d, left: d, since: time.Now(), cancel: cancel}
	if d > 0 {
		c.timer = time.AfterFunc(d, func() { cancel(errRequestTimeout) })
	}
	// A login in the middle of the request (a 401 or 403 from an HTTP
	// server) ends within what is left of the request's time, or, with a
	// limit of its own (--login-timeout), pauses it.
	return login.WithClock(ctx, c), c
}

// Pause implements login.Clock.
func (c *requestClock) Pause() func() {
	c.pause()
	return c.resume
}

// Left implements login.Clock: the running time left, false without a
// limit.
func (c *requestClock) Left() (time.Duration, bool) {
	if c == nil || c.timer == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	left := c.left
	if c.paused == 0 {
		left -= time.Since(c.since)
	}
	return max(left, 0), true
}

// pause stops the clock; calls nest.
func (c *requestClock) pause() {
	if c == nil || c.timer == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	if c.paused == 1 && c.timer.Stop() {
		c.left -= time.Since(c.since)
	}
}

// resume restarts the clock with the time that was left.
func (c *requestClock) resume() {
	if c == nil || c.timer == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 {
		c.since = time.Now()
		c.timer.Reset(max(c.left, 0))
	}
}

// stop releases the clock's resources.
func (c *requestClock) stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
	c.cancel(context.Canceled)
}

// timedOut reports whether ctx ended because its clock ran out.
func timedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errRequestTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded)
}

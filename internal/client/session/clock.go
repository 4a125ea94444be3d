package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/askback/askback/internal/client/login"
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
	// setting is the caller's limit the clock measures, for a login's
	// error: the request's (zero) or the connect's.
	setting login.Setting
}

// startClock returns a context that ends when d of running time has passed
// (never when d <= 0), and the clock that measures it.
//
// When ctx ends first anyway (its deadline comes before d has passed, and
// a pause only moves the clock's end later), the clock could never be what
// ends the request: it runs no timer (a script's step, whose own time limit
// is the request's, then costs no second timer per call). The context is
// still one of the request's own, which stop ends: what the request leaves
// open (the rest of an HTTP body) is let go when the call returns. With
// lean (a server over stdio, where a request leaves nothing open and no
// login happens) the clock is only that: the request's own context, which
// end can still end (a server that asks too often, an answer refused).
func startClock(ctx context.Context, d time.Duration, lean bool) (context.Context, *requestClock) {
	if dl, ok := ctx.Deadline(); ok && d > 0 && time.Until(dl) <= d {
		if lean {
			ctx, cancel := context.WithCancelCause(ctx)
			return ctx, &requestClock{cancel: cancel}
		}
		d = 0
	}
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

// bounds says which of the caller's limits the clock measures
// (login.Clock's Limit).
func (c *requestClock) bounds(s login.Setting) {
	if c != nil {
		c.setting = s
	}
}

// Limit implements login.Clock.
func (c *requestClock) Limit() login.Setting {
	if c == nil || c.setting == 0 {
		return login.SettingRequestTimeout
	}
	return c.setting
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
	if c == nil {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.cancel != nil {
		c.cancel(context.Canceled)
	}
}

// end ends the request at once, with cause: the tester stops a call it
// will not go on with (see answerServerRequests).
func (c *requestClock) end(cause error) {
	if c != nil && c.cancel != nil {
		c.cancel(cause)
	}
}

// timedOut reports whether ctx ended because its clock ran out.
func timedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errRequestTimeout) || errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// startClock starts the clock of one request of the session, with the
// session's time limit. Over stdio a request under an earlier deadline
// gets no clock: nothing of it outlives the call (see startClock).
func (s *Session) startClock(ctx context.Context) (context.Context, *requestClock) {
	return startClock(ctx, s.opts.Timeout, s.opts.Target != nil && s.opts.Target.Command != "")
}

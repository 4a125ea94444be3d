package session

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// The clock runs in a bubble of fake time (testing/synctest): the person's
// two minutes of thought and the limit pass at once, exactly.
func TestRequestClockPausesWhileAPersonAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, c := startClock(context.Background(), 50*time.Millisecond, false)
		defer c.stop()
		time.Sleep(20 * time.Millisecond) // the request runs for a while
		c.pause()
		time.Sleep(2 * time.Minute) // a person thinking, longer than the limit
		if ctx.Err() != nil {
			t.Fatal("the clock ran while paused")
		}
		c.resume()
		resumed := time.Now()
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the clock never ran out after resuming")
		}
		if left := time.Since(resumed); left != 30*time.Millisecond {
			t.Errorf("the clock ran out %s after resuming, want the 30ms that were left", left)
		}
		if !timedOut(ctx) {
			t.Errorf("cause = %v, want the request time limit", context.Cause(ctx))
		}
	})
}

func TestRequestClockWithoutLimit(t *testing.T) {
	ctx, c := startClock(context.Background(), 0, false)
	c.pause()
	c.resume()
	if ctx.Err() != nil {
		t.Fatal("a clock without a limit ended")
	}
	c.stop()
	if ctx.Err() == nil || timedOut(ctx) {
		t.Errorf("stop: err %v, timedOut %v", ctx.Err(), timedOut(ctx))
	}
}

// A request whose context ends before its time limit could run out (a
// script's step, whose limit is the request's) gets no timer of its own,
// but a context of its own that stop ends.
func TestRequestClockDefersToAnEarlierDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		ctx, c := startClock(parent, 50*time.Millisecond, false)
		if c.timer != nil {
			t.Errorf("a timer was started under a deadline that comes first")
		}
		c.pause()
		c.resume()
		<-ctx.Done()
		if !timedOut(ctx) {
			t.Errorf("the step's deadline: cause %v, want a time out", context.Cause(ctx))
		}
		c.stop()
	})
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		ctx, c := startClock(parent, 50*time.Millisecond, false)
		c.stop()
		if ctx.Err() == nil || parent.Err() != nil {
			t.Errorf("stop did not end the request's own context (%v), or ended its parent's (%v)", ctx.Err(), parent.Err())
		}
	})
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		ctx, c := startClock(parent, 50*time.Millisecond, false)
		defer c.stop()
		start := time.Now()
		<-ctx.Done()
		if d := time.Since(start); d != 50*time.Millisecond || !errors.Is(context.Cause(ctx), errRequestTimeout) {
			t.Errorf("a later deadline: the clock ended after %s with %v, want 50ms and the request time limit", d, context.Cause(ctx))
		}
	})
}

// Over stdio (lean) a request under an earlier deadline gets no timer: its
// context is its own (the tester can still end it), under the caller's,
// with no time limit of its own. A later deadline still gets the request's
// own limit.
func TestRequestClockLeanOverStdio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		ctx, c := startClock(parent, 50*time.Millisecond, true)
		if c == nil || c.timer != nil {
			t.Fatalf("a lean clock under an earlier deadline: clock %+v; want one without a timer", c)
		}
		c.pause()
		c.resume()
		if _, ok := c.Left(); ok {
			t.Error("no time limit has time left")
		}
		stopped := errors.New("stopped")
		c.end(stopped)
		if context.Cause(ctx) != stopped || parent.Err() != nil {
			t.Errorf("end: request ended with %v, caller's context %v; want the cause given and the caller's untouched", context.Cause(ctx), parent.Err())
		}
		c.stop()
		if parent.Err() != nil {
			t.Error("stop ended the caller's context")
		}
		<-parent.Done()
	})
	synctest.Test(t, func(t *testing.T) {
		ctx, c := startClock(context.Background(), 50*time.Millisecond, true)
		defer c.stop()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), errRequestTimeout) {
			t.Errorf("without an earlier deadline: cause %v, want the request time limit", context.Cause(ctx))
		}
	})
}

// Connecting has a bound of its own: given, or the larger of a minute and
// Timeout (none when Timeout has none); negative is none.
func TestConnectLimit(t *testing.T) {
	for _, c := range []struct {
		timeout, connect, want time.Duration
	}{
		{30 * time.Second, 0, time.Minute},
		{time.Second, 0, time.Minute},
		{5 * time.Minute, 0, 5 * time.Minute},
		{0, 0, 0},
		{time.Second, 2 * time.Second, 2 * time.Second},
		{time.Hour, time.Second, time.Second},
		{time.Second, -1, 0},
	} {
		if got := (Options{Timeout: c.timeout, ConnectTimeout: c.connect}).ConnectLimit(); got != c.want {
			t.Errorf("Timeout %v, ConnectTimeout %v: ConnectLimit = %v, want %v", c.timeout, c.connect, got, c.want)
		}
	}
}

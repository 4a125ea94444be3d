package session

import (
	"context"
	"testing"
	"time"
)

func TestRequestClockPausesWhileAPersonAnswers(t *testing.T) {
	ctx, c := startClock(context.Background(), 50*time.Millisecond)
	defer c.stop()
	c.pause()
	time.Sleep(120 * time.Millisecond) // a person thinking, longer than the limit
	if ctx.Err() != nil {
		t.Fatal("the clock ran while paused")
	}
	c.resume()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the clock never ran out after resuming")
	}
	if !timedOut(ctx) {
		t.Errorf("cause = %v, want the request time limit", context.Cause(ctx))
	}
}

func TestRequestClockWithoutLimit(t *testing.T) {
	ctx, c := startClock(context.Background(), 0)
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

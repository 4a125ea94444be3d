package sleep_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/internal/platform/sleep"
)

func TestFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := sleep.For(context.Background(), time.Minute); err != nil || time.Since(start) != time.Minute {
			t.Errorf("For(1m) = %v after %v", err, time.Since(start))
		}

		// A context that ends stops the wait at once, with its cause.
		why := errors.New("the task was cancelled")
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(time.Second, func() { cancel(why) })
		start = time.Now()
		if err := sleep.For(ctx, time.Hour); !errors.Is(err, why) || time.Since(start) != time.Second {
			t.Errorf("For(1h) cancelled after 1s = %v after %v, want the cause", err, time.Since(start))
		}
		if err := sleep.For(ctx, 0); !errors.Is(err, why) {
			t.Errorf("For(0) on an ended context = %v, want the cause", err)
		}
		if err := sleep.For(context.Background(), -time.Second); err != nil {
			t.Errorf("For(-1s) = %v", err)
		}

		// Without a cause, the context's error.
		ctx, stop := context.WithCancel(context.Background())
		stop()
		if err := sleep.For(ctx, time.Hour); err != context.Canceled {
			t.Errorf("For on a cancelled context = %v, want context.Canceled", err)
		}
	})
}

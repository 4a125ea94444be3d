// Package sleep waits for a while unless a context ends first: the one
// wait between a task's steps, between polls and between retries.
//
// It is internal on purpose: a toolkit package (tasks, taskclient,
// redisstore) uses it without making a four-line wait part of its API.
package sleep

import (
	"context"
	"time"
)

// For waits for d, or until ctx is done, whichever comes first. It returns
// nil when d has passed, else the context's cause (see [context.Cause],
// which is ctx.Err() when no cause was given), at once. A d of zero or less
// only reports whether ctx is done.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return context.Cause(ctx)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

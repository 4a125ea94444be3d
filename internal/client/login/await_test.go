package login

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A login that gives up waiting for the browser says how many requests
// with another state it ignored meanwhile (a stale tab, or a forgery),
// each noted once as it came; the clock is the bubble's, so that no busy
// machine decides whether the forged request came in time.
func TestAwaitRedirectCountsTheIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recv := &receiver{results: make(chan redirectResult, 1), ignored: make(chan struct{}, 1)}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		go func() {
			recv.ignored <- struct{}{}
		}()
		var notes strings.Builder
		_, err := awaitRedirect(ctx, &notes, recv, nil, "http://127.0.0.1:1/callback", "--no-browser")
		want := "the browser did not come back to http://127.0.0.1:1/callback with this login's state (1 request with another state ignored): login abandoned (--no-browser lets you paste the address)"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
		if got := strings.Count(notes.String(), "whose state is not this login's (a stale tab, or a forgery): still waiting"); got != 1 {
			t.Errorf("%d notes of the ignored request, want 1:\n%s", got, notes.String())
		}
	})
}

// Package replaytest checks that an implementation of replay.Store keeps the
// contract the reqstate package relies on. Call [Run] from the
// implementation's own tests.
package replaytest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/replay"
)

// Run checks the store contract: a nonce is claimed once; other nonces are
// independent; of many concurrent claims of one nonce exactly one wins; a
// cancelled context is refused without consuming the nonce; an empty nonce is
// refused. newStore must return a new, empty store for each call.
func Run(t *testing.T, newStore func(t *testing.T) replay.Store) {
	t.Helper()
	later := func() time.Time { return time.Now().Add(time.Hour) }

	t.Run("ClaimOnce", func(t *testing.T) {
		s := newStore(t)
		ctx := context.Background()
		if err := s.Claim(ctx, "n1", later()); err != nil {
			t.Fatalf("first Claim: %v", err)
		}
		for i := 0; i < 3; i++ {
			if err := s.Claim(ctx, "n1", later()); !errors.Is(err, replay.ErrUsed) {
				t.Fatalf("Claim #%d of a used nonce = %v, want ErrUsed", i+2, err)
			}
		}
	})

	t.Run("IndependentNonces", func(t *testing.T) {
		s := newStore(t)
		ctx := context.Background()
		for i := 0; i < 100; i++ {
			if err := s.Claim(ctx, fmt.Sprintf("nonce-%d", i), later()); err != nil {
				t.Fatalf("Claim nonce-%d: %v", i, err)
			}
		}
		if err := s.Claim(ctx, "nonce-42", later()); !errors.Is(err, replay.ErrUsed) {
			t.Fatalf("Claim nonce-42 again = %v, want ErrUsed", err)
		}
	})

	t.Run("ConcurrentClaims", func(t *testing.T) {
		s := newStore(t)
		const racers = 64
		for round := 0; round < 5; round++ {
			nonce := fmt.Sprintf("race-%d", round)
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make([]error, racers)
			for i := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs[i] = s.Claim(context.Background(), nonce, later())
				}()
			}
			close(start)
			wg.Wait()
			wins := 0
			for _, err := range errs {
				switch {
				case err == nil:
					wins++
				case errors.Is(err, replay.ErrUsed):
				default:
					t.Fatalf("concurrent Claim: unexpected error %v", err)
				}
			}
			if wins != 1 {
				t.Fatalf("%d of %d concurrent claims of %s won, want exactly 1", wins, racers, nonce)
			}
		}
	})

	t.Run("CancelledContext", func(t *testing.T) {
		s := newStore(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Claim(ctx, "n-cancel", later()); err == nil {
			t.Fatal("Claim with a cancelled context succeeded")
		}
		if err := s.Claim(context.Background(), "n-cancel", later()); err != nil {
			t.Fatalf("Claim after a cancelled attempt: %v (a refused claim must not consume the nonce)", err)
		}
	})

	t.Run("EmptyNonce", func(t *testing.T) {
		s := newStore(t)
		if err := s.Claim(context.Background(), "", later()); err == nil {
			t.Fatal("Claim of an empty nonce succeeded")
		}
	})
}

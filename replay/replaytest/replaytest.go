// Package replaytest checks that an implementation of replay.Store keeps the
// contract the reqstate package relies on. Call [Run] from the
// implementation's own tests.
package replaytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/replay"
)

// Run checks the store contract: a nonce is claimed once; other nonces are
// independent; of many concurrent claims of one nonce exactly one wins; a
// cancelled context is refused without consuming the nonce; an empty nonce is
// refused. newStore must return a new, empty store for each call. A store
// bounded per user ([replay.UserStore]) passes [RunUser] too.
func Run(t *testing.T, newStore func(t *testing.T) replay.Store) {
	t.Helper()

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
			wins := Race(t, racers, func(int) error { return s.Claim(context.Background(), nonce, later()) }, replay.ErrUsed)
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

// RunUser checks the per-user bound of a [replay.UserStore]: a user who
// holds maxPerUser live nonces is refused with [replay.ErrUserFull] (which
// is also [replay.ErrFull]) without the nonce being consumed, while other
// users, anonymous callers ("", one allowance for all of them) and claims
// for no user still go through; users are told apart byte for byte; and of
// many concurrent claims by one user exactly maxPerUser win. newStore must
// return a new, empty store that keeps at most maxPerUser live nonces per
// user and at least 1000 in total.
func RunUser(t *testing.T, newStore func(t *testing.T, maxPerUser int) replay.UserStore) {
	t.Helper()
	const perUser = 3
	f := &filler{perUser: perUser}
	t.Run("OneUserCannotFillIt", func(t *testing.T) {
		oneUserCannotFillIt(t, newStore(t, perUser), f)
	})
	t.Run("AnonymousShareOneAllowance", func(t *testing.T) {
		anonymousShareOneAllowance(t, newStore(t, perUser), f)
	})
	t.Run("UsersToldApart", func(t *testing.T) {
		usersToldApart(t, newStore(t, perUser), f)
	})
	t.Run("ConcurrentClaimsOfOneUser", func(t *testing.T) {
		s := newStore(t, perUser)
		const racers = 64
		wins := Race(t, racers, func(i int) error {
			return s.ClaimUser(context.Background(), "mallory", fmt.Sprint("mallory-", i), later())
		}, replay.ErrUserFull)
		if wins != perUser {
			t.Fatalf("%d of %d concurrent claims of one user won, want %d", wins, racers, perUser)
		}
	})
}

// later is an expiry an hour from now.
func later() time.Time { return time.Now().Add(time.Hour) }

// filler claims nonces for users up to their bound, each nonce new.
type filler struct {
	perUser int
	seq     int // the number of the last nonce claimed
}

// fill claims perUser new nonces for user in s.
func (f *filler) fill(t *testing.T, s replay.UserStore, user string) {
	t.Helper()
	for i := range f.perUser {
		f.seq++
		if err := s.ClaimUser(context.Background(), user, fmt.Sprint("filled-", f.seq), later()); err != nil {
			t.Fatalf("claim %d of user %q: %v", i+1, user, err)
		}
	}
}

// oneUserCannotFillIt: a user at the bound is refused, without the nonce
// being consumed, while other users and claims for no user go through.
func oneUserCannotFillIt(t *testing.T, s replay.UserStore, f *filler) {
	ctx := context.Background()
	f.fill(t, s, "alice")
	err := s.ClaimUser(ctx, "alice", "alice-over", later())
	if !errors.Is(err, replay.ErrUserFull) || !errors.Is(err, replay.ErrFull) {
		t.Fatalf("claim beyond the user's bound = %v, want ErrUserFull (and ErrFull)", err)
	}
	if err := s.ClaimUser(ctx, "alice", fmt.Sprint("filled-", f.seq), later()); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("reuse by a user at the bound = %v, want ErrUsed", err)
	}
	f.fill(t, s, "bob")
	f.fill(t, s, "")
	for i := range 2 * f.perUser {
		if err := s.Claim(ctx, fmt.Sprint("no-user-", i), later()); err != nil {
			t.Fatalf("claim for no user while users are at their bound: %v", err)
		}
	}
	// The refused nonce was not consumed.
	if err := s.ClaimUser(ctx, "carol", "alice-over", later()); err != nil {
		t.Fatalf("claim of a nonce refused for another user: %v", err)
	}
	if err := s.ClaimUser(ctx, "bob", "bob-over", later()); !errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("bob beyond his bound = %v, want ErrUserFull", err)
	}
}

// anonymousShareOneAllowance: anonymous callers share one bound, and a
// named user still claims after them.
func anonymousShareOneAllowance(t *testing.T, s replay.UserStore, f *filler) {
	ctx := context.Background()
	f.fill(t, s, "")
	if err := s.ClaimUser(ctx, "", "anonymous-over", later()); !errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("anonymous claim beyond the bound = %v, want ErrUserFull", err)
	}
	if err := s.ClaimUser(ctx, "someone", "someone-1", later()); err != nil {
		t.Fatalf("a named user after the anonymous ones: %v", err)
	}
}

// usersToldApart: users whose names differ in any byte have a bound each.
func usersToldApart(t *testing.T, s replay.UserStore, f *filler) {
	long := strings.Repeat("u", 300)
	users := []string{"Alice", "alice", "alice ", "alice\x00", long + "1", long + "2", "@index", "@user:", strings.Repeat("é", 40)}
	for _, u := range users {
		f.fill(t, s, u)
	}
	for i, u := range users {
		if err := s.ClaimUser(context.Background(), u, fmt.Sprint("over-", i), later()); !errors.Is(err, replay.ErrUserFull) {
			t.Fatalf("user %q beyond the bound = %v, want ErrUserFull", u, err)
		}
	}
}

// Race makes racers claims at once (claim(i) for each i) and returns how
// many succeeded; a claim that fails with anything but lost fails the test.
func Race(t *testing.T, racers int, claim func(i int) error, lost error) int {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, racers)
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = claim(i)
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, lost):
		default:
			t.Fatalf("concurrent claim: unexpected error %v", err)
		}
	}
	return wins
}

// RunReserve checks that a [replay.UserStore] keeps a place for a newcomer:
// users each within their share fill every place they may take (all but
// [replay.ReservedEntries]), and a user holding no live nonce still claims,
// as do other newcomers, until the reserved places are taken too; then the
// store refuses (it never forgets a live nonce to make room). newStore
// returns a fresh, empty store of maxEntries live nonces, maxPerUser of one
// user.
func RunReserve(t *testing.T, newStore func(t *testing.T, maxEntries, maxPerUser int) replay.UserStore) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	ctx := context.Background()
	const maxEntries, perUser = 100, 6
	s := newStore(t, maxEntries, perUser)
	n := 0
	claim := func(user string) error {
		n++
		return s.ClaimUser(ctx, user, fmt.Sprint("reserve-", n), later)
	}
	// 15 users at their share: 90 live nonces, every place they may take.
	for u := range 15 {
		for range perUser {
			if err := claim(fmt.Sprint("user-", u)); err != nil {
				t.Fatalf("user-%d within its share: %v", u, err)
			}
		}
	}
	if err := claim("user-0"); !errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("user-0 beyond its share: %v, want ErrUserFull", err)
	}
	// A 16th user holding some is refused at the reserve...
	if err := claim("user-15"); err != nil {
		t.Fatalf("user-15's first claim, into the reserve: %v", err)
	}
	if err := claim("user-15"); !errors.Is(err, replay.ErrFull) || errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("user-15's second claim with the reserve all that is left: %v, want ErrFull", err)
	}
	// ...while newcomers each get one, until every place is taken.
	for i := range replay.ReservedEntries(maxEntries) - 1 {
		if err := claim(fmt.Sprint("newcomer-", i)); err != nil {
			t.Fatalf("newcomer %d: %v", i, err)
		}
	}
	if err := claim("newcomer-last"); !errors.Is(err, replay.ErrFull) {
		t.Fatalf("a newcomer when every place is taken: %v, want ErrFull", err)
	}
}

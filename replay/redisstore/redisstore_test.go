package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/replay/redisstore"
	"github.com/askback/askback/replay/replaytest"
)

func TestContract(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	n := 0
	replaytest.Run(t, func(t *testing.T) replay.Store {
		n++
		return redisstore.New(rdb, &redisstore.Options{Prefix: fmt.Sprintf("test%d:", n)})
	})
}

func TestReserve(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	replaytest.RunReserve(t, func(t *testing.T, maxEntries, perUser int) replay.UserStore {
		return redisstore.New(rdb, &redisstore.Options{Prefix: "reserve:", MaxEntries: maxEntries, MaxPerUser: perUser})
	})
}

func TestUserContract(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	n := 0
	replaytest.RunUser(t, func(t *testing.T, perUser int) replay.UserStore {
		n++
		return redisstore.New(rdb, &redisstore.Options{Prefix: fmt.Sprintf("user%d:", n), MaxPerUser: perUser})
	})
}

// Two instances, each with its own client, share one Redis: a nonce claimed
// through one is refused through the other.
func TestSharedBetweenInstances(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	a := redisstore.New(scaleout.Client(t, r.URL), nil)
	b := redisstore.New(scaleout.Client(t, r.URL), nil)
	ctx := context.Background()
	if err := a.Claim(ctx, "n1", time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := b.Claim(ctx, "n1", time.Now().Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("claim through the second instance = %v, want ErrUsed", err)
	}
}

// Redis forgets a nonce once its expiry has passed.
func TestExpiry(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	s := redisstore.New(scaleout.Client(t, r.URL), nil)
	ctx := context.Background()
	if err := s.Claim(ctx, "short", time.Now().Add(50*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	if err := s.Claim(ctx, "short", time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("claim after expiry: %v", err)
	}
}

// With Redis down a claim fails fast with an error that is not ErrUsed and
// consumes nothing: once Redis is back the same nonce can be claimed.
func TestRedisDown(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	s := redisstore.New(scaleout.Client(t, r.URL), nil)
	r.Stop()
	// The claim fails on its own, not when its context (a bound against a
	// hang) runs out.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := s.Claim(ctx, "n1", time.Now().Add(time.Minute))
	if err == nil || errors.Is(err, replay.ErrUsed) {
		t.Fatalf("claim with Redis down = %v, want a connection error", err)
	}
	if ctx.Err() != nil {
		t.Errorf("claim with Redis down ended only when its context did: %v", ctx.Err())
	}
	r.Restart()
	// A context of its own: the time the first claim took under a busy
	// machine's load is not taken from this one.
	back, cancelBack := context.WithTimeout(context.Background(), time.Minute)
	defer cancelBack()
	if err := s.Claim(back, "n1", time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("claim after Redis came back: %v", err)
	}
}

// A store bounded to 3 live nonces, shared by two instances, refuses the
// fourth with ErrFull without consuming it, and takes it again once one
// has expired. The stores' clock stands still but when the test moves it:
// what counts as live is decided by it, not by how long a busy machine
// takes between two claims.
func TestBoundedInTotal(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	clk := &clock{t: time.Now()}
	opts := &redisstore.Options{MaxEntries: 3, Now: clk.Now}
	a := redisstore.New(scaleout.Client(t, r.URL), opts)
	b := redisstore.New(scaleout.Client(t, r.URL), opts)
	ctx := context.Background()
	if err := a.Claim(ctx, "short", clk.Now().Add(100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n1", "n2"} {
		if err := b.Claim(ctx, n, clk.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*redisstore.Store{a, b} {
		if err := s.Claim(ctx, "n3", clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrFull) {
			t.Fatalf("claim beyond MaxEntries = %v, want ErrFull", err)
		}
	}
	if err := a.Claim(ctx, "n1", clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("a used nonce in a full store = %v, want ErrUsed", err)
	}
	clk.add(250 * time.Millisecond)
	if err := a.Claim(ctx, "n3", clk.Now().Add(time.Minute)); err != nil {
		t.Fatalf("claim after one expired: %v", err)
	}
	if err := b.Claim(ctx, "n3", clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("n3 claimed twice: %v", err)
	}
	if err := a.Claim(ctx, "@index", clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrInvalidNonce) {
		t.Fatalf("the index's own name as a nonce = %v, want ErrInvalidNonce", err)
	}
}

// clock is a clock that moves only when told to.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Two instances sharing a prefix share each user's count: a user at the
// bound through both is refused by either, another user still claims, and
// once the user's nonces expire the user claims again and Redis has
// dropped the count with them. The stores' clock stands still until the
// test moves it; Redis's does not, so mallory's nonces live 5 s: long
// enough for a busy machine to make the claims that need them alive, and
// then the test waits for Redis to drop them.
func TestUserBoundSharedBetweenInstances(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	clk := &clock{t: time.Now()}
	opts := &redisstore.Options{MaxPerUser: 3, Prefix: "shared:", Now: clk.Now}
	a := redisstore.New(scaleout.Client(t, r.URL), opts)
	b := redisstore.New(scaleout.Client(t, r.URL), opts)
	ctx := context.Background()
	const life = 5 * time.Second
	short := clk.Now().Add(life)
	for i, s := range []*redisstore.Store{a, b, a} {
		if err := s.ClaimUser(ctx, "mallory", fmt.Sprint("m", i), short); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*redisstore.Store{a, b} {
		err := s.ClaimUser(ctx, "mallory", "m-over", clk.Now().Add(time.Minute))
		if !errors.Is(err, replay.ErrUserFull) || !errors.Is(err, replay.ErrFull) {
			t.Fatalf("mallory beyond her bound = %v, want ErrUserFull", err)
		}
	}
	for i, s := range []*redisstore.Store{b, a, b} {
		if err := s.ClaimUser(ctx, "alice", fmt.Sprint("a", i), clk.Now().Add(time.Minute)); err != nil {
			t.Fatalf("alice while mallory is at her bound: %v", err)
		}
	}
	if err := a.ClaimUser(ctx, "mallory", "m1", clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("reuse by a user at the bound = %v, want ErrUsed", err)
	}
	// Mallory's nonces expire: for the stores, and in Redis, which drops
	// her set with them (waited for, at most a minute).
	clk.add(life + 200*time.Millisecond)
	var users []string
	for deadline := time.Now().Add(life + time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if users, err = rdb.Keys(ctx, "shared:@user:*").Result(); err != nil {
			t.Fatal(err)
		}
		if len(users) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("users' sets once mallory's nonces expired: %q, want alice's only", users)
		}
	}
	for i, s := range []*redisstore.Store{b, a, b} {
		if err := s.ClaimUser(ctx, "mallory", fmt.Sprint("m-again", i), clk.Now().Add(time.Minute)); err != nil {
			t.Fatalf("mallory once her nonces expired: %v", err)
		}
	}
	if err := a.ClaimUser(ctx, "mallory", "m-over", clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("mallory beyond her bound again = %v, want ErrUserFull", err)
	}
	for _, n := range []string{"@index", "@user:" + users[0][len("shared:@user:"):], "@anything"} {
		if err := a.ClaimUser(ctx, "alice", n, clk.Now().Add(time.Minute)); !errors.Is(err, replay.ErrInvalidNonce) {
			t.Fatalf("nonce %q = %v, want ErrInvalidNonce", n, err)
		}
	}
}

// Claims by one user racing through two instances sharing a prefix: the
// script counts them one at a time, so exactly MaxPerUser win.
func TestUserBoundUnderRaceBetweenInstances(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	opts := &redisstore.Options{MaxPerUser: 5}
	stores := []*redisstore.Store{redisstore.New(scaleout.Client(t, r.URL), opts), redisstore.New(scaleout.Client(t, r.URL), opts)}
	const racers = 40
	wins := replaytest.Race(t, racers, func(i int) error {
		return stores[i%2].ClaimUser(context.Background(), "mallory", fmt.Sprint("race-", i), time.Now().Add(time.Minute))
	}, replay.ErrUserFull)
	if wins != 5 {
		t.Fatalf("%d of %d racing claims of one user won through two instances, want 5", wins, racers)
	}
}

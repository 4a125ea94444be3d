package replay_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/replay"
	bolt "go.etcd.io/bbolt"
)

// One user at the bound is refused while another still claims; the count
// comes back as the user's nonces expire, and the refusals are counted and
// logged apart from a full store's.
func TestMemoryUserBoundRecoversAfterExpiry(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	var log bytes.Buffer
	m := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 100, MaxPerUser: 2, Now: clock.now,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx := context.Background()
	for _, n := range []string{"a1", "a2"} {
		if err := m.ClaimUser(ctx, "alice", n, clock.t.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if err := m.ClaimUser(ctx, "alice", fmt.Sprint("a-over-", i), clock.t.Add(time.Minute)); !errors.Is(err, replay.ErrUserFull) {
			t.Fatalf("alice beyond her bound = %v, want ErrUserFull", err)
		}
	}
	if err := m.ClaimUser(ctx, "bob", "b1", clock.t.Add(time.Hour)); err != nil {
		t.Fatalf("bob while alice is at her bound: %v", err)
	}
	if got, want := m.UserFullRefusals(), uint64(3); got != want {
		t.Errorf("UserFullRefusals = %d, want %d", got, want)
	}
	if m.FullRefusals() != 0 {
		t.Errorf("FullRefusals = %d, want 0: the store is not full", m.FullRefusals())
	}
	if got := strings.Count(log.String(), "a user holds as many nonces"); got != 1 {
		t.Errorf("%d warnings in a burst, want 1: %q", got, log.String())
	}
	if n := m.HeldBy("alice"); n != 2 {
		t.Errorf("HeldBy(alice) = %d, want 2", n)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	for _, n := range []string{"a-over-0", "a-over-1"} {
		if err := m.ClaimUser(ctx, "alice", n, clock.t.Add(time.Minute)); err != nil {
			t.Fatalf("alice once her nonces expired: %v", err)
		}
	}
	if a, b := m.HeldBy("alice"), m.HeldBy("bob"); a != 2 || b != 1 {
		t.Errorf("HeldBy alice %d, bob %d; want 2 and 1", a, b)
	}
	if err := m.ClaimUser(ctx, "alice", "a-over-2", clock.t.Add(time.Minute)); !errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("alice beyond her bound again = %v, want ErrUserFull", err)
	}
}

// A nonce that expires behind one claimed earlier with a longer life still
// counts until the store forgets it; a sweep forgets it and the count
// follows. An expired nonce claimed again counts once, for its new user.
func TestMemoryUserCountsExactAcrossSweeps(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	t0 := clock.t
	m := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 100, MaxPerUser: 2, Now: clock.now})
	ctx := context.Background()
	if err := m.ClaimUser(ctx, "carol", "long", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a1", "a2"} {
		if err := m.ClaimUser(ctx, "alice", n, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	clock.t = t0.Add(2 * time.Minute)
	m.Sweep()
	if a, c := m.HeldBy("alice"), m.HeldBy("carol"); a != 0 || c != 1 {
		t.Fatalf("after a sweep HeldBy alice %d, carol %d; want 0 and 1", a, c)
	}
	// a1 expired and was forgotten: claimed again, by bob, it counts for him.
	if err := m.ClaimUser(ctx, "bob", "a1", clock.t.Add(time.Minute)); err != nil {
		t.Fatalf("claim of an expired nonce: %v", err)
	}
	// An expired nonce not yet forgotten (behind "long"), claimed again by
	// its own user, is counted once.
	clock.t = t0.Add(3 * time.Minute)
	if err := m.ClaimUser(ctx, "dave", "d1", t0.Add(4*time.Minute)); err != nil {
		t.Fatal(err)
	}
	clock.t = t0.Add(5 * time.Minute)
	if err := m.ClaimUser(ctx, "dave", "d1", clock.t.Add(time.Minute)); err != nil {
		t.Fatalf("dave's expired nonce claimed again: %v", err)
	}
	if d, b := m.HeldBy("dave"), m.HeldBy("bob"); d != 1 || b != 1 {
		t.Fatalf("HeldBy dave %d, bob %d; want 1 and 1", d, b)
	}
	clock.t = t0.Add(2 * time.Hour)
	m.Sweep()
	for _, u := range []string{"alice", "bob", "carol", "dave"} {
		if n := m.HeldBy(u); n != 0 {
			t.Errorf("HeldBy(%s) = %d after everything expired", u, n)
		}
	}
	if m.Len() != 0 {
		t.Errorf("Len = %d after everything expired", m.Len())
	}
}

// The total bound still holds over the per-user ones: a newcomer to a store
// full of other users' live nonces is refused with ErrFull, not
// ErrUserFull; claims for no user count towards the total only.
func TestMemoryUserAndTotalBounds(t *testing.T) {
	m := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 4, MaxPerUser: 2})
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	for i, u := range []string{"alice", "alice", "bob"} {
		if err := m.ClaimUser(ctx, u, fmt.Sprint("n", i), later); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Claim(ctx, "no-user", later); err != nil {
		t.Fatal(err)
	}
	err := m.ClaimUser(ctx, "carol", "c1", later)
	if !errors.Is(err, replay.ErrFull) || errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("newcomer to a full store = %v, want ErrFull only", err)
	}
	if m.FullRefusals() != 1 || m.UserFullRefusals() != 0 {
		t.Errorf("FullRefusals %d, UserFullRefusals %d; want 1 and 0", m.FullRefusals(), m.UserFullRefusals())
	}
}

// A Bolt file keeps its users' counts: after a reopen a user at the bound
// is still refused, others claim, and nonces that expired out of claim
// order are forgotten at once.
func TestBoltUserBoundSurvivesReopen(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	t0 := clock.t
	path := filepath.Join(t.TempDir(), "replay.db")
	opts := &replay.BoltOptions{MaxPerUser: 2, Now: clock.now}
	ctx := context.Background()
	s, err := replay.OpenBolt(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimUser(ctx, "carol", "long", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a1", "a2"} {
		if err := s.ClaimUser(ctx, "alice", n, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = replay.OpenBolt(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.ClaimUser(ctx, "alice", "a3", t0.Add(time.Minute)); !errors.Is(err, replay.ErrUserFull) {
		t.Fatalf("alice at her bound after a reopen = %v, want ErrUserFull", err)
	}
	if err := s.ClaimUser(ctx, "bob", "a3", t0.Add(time.Minute)); err != nil {
		t.Fatalf("bob while alice is at her bound: %v", err)
	}
	if n, err := s.HeldBy("alice"); err != nil || n != 2 {
		t.Fatalf("HeldBy(alice) = %d, %v; want 2", n, err)
	}
	clock.t = t0.Add(2 * time.Minute) // alice's expired, behind carol's
	for _, n := range []string{"a4", "a5"} {
		if err := s.ClaimUser(ctx, "alice", n, clock.t.Add(time.Minute)); err != nil {
			t.Fatalf("alice once her nonces expired: %v", err)
		}
	}
	for u, want := range map[string]int{"alice": 2, "bob": 0, "carol": 1} {
		if n, err := s.HeldBy(u); err != nil || n != want {
			t.Errorf("HeldBy(%s) = %d, %v; want %d", u, n, err, want)
		}
	}
	if n, err := s.Len(); err != nil || n != 3 {
		t.Errorf("Len = %d, %v; want 3", n, err)
	}
	clock.t = t0.Add(2 * time.Hour)
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Len(); err != nil || n != 0 {
		t.Errorf("Len after everything expired = %d, %v", n, err)
	}
	if n, err := s.HeldBy("carol"); err != nil || n != 0 {
		t.Errorf("HeldBy(carol) after everything expired = %d, %v", n, err)
	}
}

// A file written before the expiry index and the users' counts existed
// opens with its nonces still used and counted in total, and they expire.
func TestBoltOpensOlderFile(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	path := filepath.Join(t.TempDir(), "replay.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket([]byte("replay-nonces"))
		if err != nil {
			return err
		}
		put := func(k string, exp time.Time) error {
			var v [8]byte
			binary.BigEndian.PutUint64(v[:], uint64(exp.UnixNano()))
			return bk.Put([]byte(k), v[:])
		}
		if err := put("old-live", clock.t.Add(time.Hour)); err != nil {
			return err
		}
		if err := put("old-dead", clock.t.Add(-time.Minute)); err != nil {
			return err
		}
		return bk.Put([]byte("garbled"), []byte("x"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := replay.OpenBolt(path, &replay.BoltOptions{MaxEntries: 2, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.ClaimUser(ctx, "alice", "old-live", clock.t.Add(time.Hour)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("a live nonce of the older file = %v, want ErrUsed", err)
	}
	if err := s.ClaimUser(ctx, "alice", "new", clock.t.Add(time.Hour)); err != nil {
		t.Fatalf("claim beside the older file's nonces: %v", err)
	}
	if err := s.ClaimUser(ctx, "bob", "one-more", clock.t.Add(time.Hour)); !errors.Is(err, replay.ErrFull) {
		t.Fatalf("claim beyond MaxEntries = %v, want ErrFull", err)
	}
	clock.t = clock.t.Add(2 * time.Hour)
	if err := s.ClaimUser(ctx, "bob", "one-more", clock.t.Add(time.Hour)); err != nil {
		t.Fatalf("claim once the older nonces expired: %v", err)
	}
	if n, err := s.Len(); err != nil || n != 1 {
		t.Fatalf("Len = %d, %v; want 1", n, err)
	}
}

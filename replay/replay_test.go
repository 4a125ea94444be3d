package replay_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/replay"
	"github.com/askback/askback/replay/replaytest"
)

func TestMemoryContract(t *testing.T) {
	replaytest.Run(t, func(t *testing.T) replay.Store { return replay.NewMemory(nil) })
}

func TestBoltContract(t *testing.T) {
	t.Parallel() // each store in its own temporary folder
	replaytest.Run(t, func(t *testing.T) replay.Store {
		s, err := replay.OpenBolt(filepath.Join(t.TempDir(), "replay.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestMemoryUserContract(t *testing.T) {
	replaytest.RunUser(t, func(t *testing.T, perUser int) replay.UserStore {
		return replay.NewMemory(&replay.MemoryOptions{MaxPerUser: perUser})
	})
}

func TestBoltUserContract(t *testing.T) {
	t.Parallel() // each store in its own temporary folder
	replaytest.RunUser(t, func(t *testing.T, perUser int) replay.UserStore {
		s, err := replay.OpenBolt(filepath.Join(t.TempDir(), "replay.db"), &replay.BoltOptions{MaxPerUser: perUser})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestMemoryReserve(t *testing.T) {
	replaytest.RunReserve(t, func(t *testing.T, maxEntries, perUser int) replay.UserStore {
		return replay.NewMemory(&replay.MemoryOptions{MaxEntries: maxEntries, MaxPerUser: perUser})
	})
}

func TestBoltReserve(t *testing.T) {
	t.Parallel() // each store in its own temporary folder
	replaytest.RunReserve(t, func(t *testing.T, maxEntries, perUser int) replay.UserStore {
		s, err := replay.OpenBolt(filepath.Join(t.TempDir(), "replay.db"), &replay.BoltOptions{MaxEntries: maxEntries, MaxPerUser: perUser})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// fakeClock is a settable clock for expiry tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestMemorySweepsExpired(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 10, Now: clock.now})
	ctx := context.Background()
	for i := range 10 {
		if err := m.Claim(ctx, fmt.Sprint(i), clock.t.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Claim(ctx, "one-more", clock.t.Add(time.Minute)); !errors.Is(err, replay.ErrFull) {
		t.Fatalf("Claim on a full store = %v, want ErrFull", err)
	}
	if err := m.Claim(ctx, "3", clock.t.Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("reuse on a full store = %v, want ErrUsed", err)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	if err := m.Claim(ctx, "one-more", clock.t.Add(time.Minute)); err != nil {
		t.Fatalf("Claim after the others expired: %v", err)
	}
	if n := m.Len(); n != 1 {
		t.Fatalf("Len after sweep = %d, want 1", n)
	}
	// An expired nonce may be claimed again: the state it guarded is expired too.
	if err := m.Claim(ctx, "3", clock.t.Add(time.Minute)); err != nil {
		t.Fatalf("Claim of an expired nonce: %v", err)
	}
}

// A full store refuses, counts the refusals and says so in the log, once a
// minute at most.
func TestMemoryFullIsCountedAndLogged(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	var log bytes.Buffer
	m := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 2, Now: clock.now, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx := context.Background()
	for _, n := range []string{"a", "b"} {
		if err := m.Claim(ctx, n, clock.t.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if err := m.Claim(ctx, fmt.Sprint("c", i), clock.t.Add(time.Hour)); !errors.Is(err, replay.ErrFull) {
			t.Fatalf("claim on a full store = %v, want ErrFull", err)
		}
	}
	if n := m.FullRefusals(); n != 3 {
		t.Errorf("FullRefusals = %d, want 3", n)
	}
	if got := strings.Count(log.String(), "replay store full"); got != 1 {
		t.Errorf("%d warnings in a burst, want 1: %q", got, log.String())
	}
	clock.t = clock.t.Add(2 * time.Minute)
	_ = m.Claim(ctx, "d", clock.t.Add(time.Hour))
	if got := strings.Count(log.String(), "replay store full"); got != 2 {
		t.Errorf("%d warnings after a minute, want 2", got)
	}
}

func TestBoltSurvivesReopenAndSweeps(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	path := filepath.Join(t.TempDir(), "replay.db")
	ctx := context.Background()
	s, err := replay.OpenBolt(path, &replay.BoltOptions{Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "kept", clock.t.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "short", clock.t.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = replay.OpenBolt(path, &replay.BoltOptions{Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Claim(ctx, "kept", clock.t.Add(time.Hour)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("Claim after reopen = %v, want ErrUsed", err)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Len(); err != nil || n != 1 {
		t.Fatalf("Len after sweep = %d, %v; want 1", n, err)
	}
}

func TestBoltSecondOpenTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay.db")
	s, err := replay.OpenBolt(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := replay.OpenBolt(path, &replay.BoltOptions{Timeout: 50 * time.Millisecond}); err == nil {
		t.Fatal("a second OpenBolt of a file in use succeeded")
	}
}

func TestZeroMemoryIsUsable(t *testing.T) {
	var m replay.Memory
	ctx := context.Background()
	if err := m.Claim(ctx, "n", time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := m.Claim(ctx, "n", time.Now().Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("second claim on a zero Memory = %v", err)
	}
	m.Sweep()
	if m.Len() != 1 || m.FullRefusals() != 0 {
		t.Fatalf("Len %d, FullRefusals %d", m.Len(), m.FullRefusals())
	}
}

// A bbolt store is bounded as the memory one is: full of live nonces, it
// refuses with ErrFull, and takes claims again once they expire.
func TestBoltIsBounded(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	s, err := replay.OpenBolt(filepath.Join(t.TempDir(), "replay.db"), &replay.BoltOptions{MaxEntries: 3, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := range 3 {
		if err := s.Claim(ctx, fmt.Sprint(i), clock.t.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Claim(ctx, "one-more", clock.t.Add(time.Minute)); !errors.Is(err, replay.ErrFull) {
		t.Fatalf("Claim on a full file = %v, want ErrFull", err)
	}
	if err := s.Claim(ctx, "1", clock.t.Add(time.Minute)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("reuse on a full file = %v, want ErrUsed", err)
	}
	clock.t = clock.t.Add(2 * time.Minute)
	if err := s.Claim(ctx, "one-more", clock.t.Add(time.Minute)); err != nil {
		t.Fatalf("Claim after the others expired: %v", err)
	}
}

// A full store looks at its records again when one of them has expired,
// including one claimed after the last look with a shorter life than the
// others: it is not refused while an expired record takes the room.
func TestMemoryFullFindsShortLivedExpired(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	t0 := clock.t
	m := replay.NewMemory(&replay.MemoryOptions{MaxEntries: 2, Now: clock.now})
	ctx := context.Background()
	claim := func(nonce string, expiry time.Time) error { return m.Claim(ctx, nonce, expiry) }
	if err := claim("long", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := claim("short", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	clock.t = t0.Add(2 * time.Minute) // "short" expired behind "long"
	if err := claim("shorter", t0.Add(5*time.Minute)); err != nil {
		t.Fatalf("claim with an expired record in the store: %v", err)
	}
	if err := claim("refused", t0.Add(10*time.Minute)); !errors.Is(err, replay.ErrFull) {
		t.Fatalf("claim on a store full of live records = %v, want ErrFull", err)
	}
	clock.t = t0.Add(6 * time.Minute) // "shorter" expired
	if err := claim("after", t0.Add(10*time.Minute)); err != nil {
		t.Fatalf("claim after the short-lived record expired: %v", err)
	}
	if err := claim("long", t0.Add(time.Hour)); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("reuse of the live record = %v, want ErrUsed", err)
	}
}

// Nonces too long to keep whole are kept as a digest: still claimed once each,
// and independent of each other and of short nonces with the same start.
func TestMemoryLongNonces(t *testing.T) {
	m := replay.NewMemory(nil)
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	long := strings.Repeat("n", replay.MaxNonceLen)
	for _, n := range []string{long, long[:len(long)-1] + "m", long[:23], long[:24], long[:22], long[:22] + "\x00", long[:15], long[:16], long[:15] + "\x00", long[:16] + "\x00"} {
		if err := m.Claim(ctx, n, later); err != nil {
			t.Fatalf("first claim of a %d-byte nonce: %v", len(n), err)
		}
		if err := m.Claim(ctx, n, later); !errors.Is(err, replay.ErrUsed) {
			t.Fatalf("second claim of a %d-byte nonce = %v, want ErrUsed", len(n), err)
		}
	}
	if err := m.Claim(ctx, "a", time.Unix(0, 0).AddDate(500, 0, 0)); err != nil {
		t.Fatalf("claim expiring beyond the nanosecond range: %v", err)
	}
	if err := m.Claim(ctx, "a", later); !errors.Is(err, replay.ErrUsed) {
		t.Fatalf("reuse of a nonce held beyond the nanosecond range = %v, want ErrUsed", err)
	}
}

// A nonce is found by its claim however the claims move: claimed again once
// expired (its earlier claim, behind a later one, left in the order), a
// sweep that renumbers the claims, and nonces long enough to be kept as a
// hash, alike until their 16th byte.
func TestMemoryFindsNoncesAcrossReclaimsAndSweeps(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	now := t0
	m := replay.NewMemory(&replay.MemoryOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	long := strings.Repeat("x", 40)
	a, b, c, d := "a", long+"b", long+"c", "reqstate-nonce-22chars"
	claim := func(n string, exp time.Duration, want error) {
		t.Helper()
		if err := m.ClaimUser(ctx, "u", n, t0.Add(exp)); !errors.Is(err, want) {
			t.Fatalf("at +%v, claim of %q = %v, want %v", now.Sub(t0), n, err, want)
		}
	}
	claim(a, 10*time.Second, nil)
	claim(b, 100*time.Second, nil)
	claim(c, 5*time.Second, nil) // expires before b, claimed after it
	claim(d, 100*time.Second, nil)
	for _, n := range []string{a, b, c, d} {
		claim(n, time.Hour, replay.ErrUsed)
	}
	now = t0.Add(11 * time.Second)
	claim(a, 200*time.Second, nil) // expired: claimed again
	claim(c, 200*time.Second, nil) // expired, still in the order behind b
	for _, n := range []string{a, b, c, d} {
		claim(n, time.Hour, replay.ErrUsed)
	}
	m.Sweep()
	if got := m.Len(); got != 4 {
		t.Fatalf("after the sweep %d nonces held, want 4", got)
	}
	for _, n := range []string{a, b, c, d} {
		claim(n, time.Hour, replay.ErrUsed)
	}
	now = t0.Add(101 * time.Second)
	claim(b, 300*time.Second, nil)
	claim(d, 300*time.Second, nil)
	claim(a, time.Hour, replay.ErrUsed)
	claim(c, time.Hour, replay.ErrUsed)
	if got := m.HeldBy("u"); got != 4 {
		t.Fatalf("the user holds %d, want 4", got)
	}
	now = t0.Add(301 * time.Second)
	m.Sweep()
	if got, held := m.Len(), m.HeldBy("u"); got != 0 || held != 0 {
		t.Fatalf("after every expiry %d nonces held, %d by the user", got, held)
	}
}

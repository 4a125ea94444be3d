package replay_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/askback/askback/internal/bench/benchratio"
	"github.com/askback/askback/replay"
)

// BenchmarkMemory measures a Memory store's claims against a claim on a new,
// small store: a claim refused by a store full of live nonces, and a claim
// accepted by a store that already holds many (the garbage collector's work
// for them included, as a server pays it). The ratio is the figure.
func BenchmarkMemory(b *testing.B) {
	const held = 200_000
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	var seq uint64
	nonce := func() string { // a fresh 22-character nonce, as reqstate's
		seq++
		var n [11]byte
		binary.BigEndian.PutUint64(n[:], seq)
		return hex.EncodeToString(n[:])
	}
	fill := func(m *replay.Memory, n int) {
		for range n {
			if err := m.Claim(ctx, nonce(), later); err != nil {
				b.Fatal(err)
			}
		}
	}
	small := replay.NewMemory(nil)
	baseline := func() {
		if small.Len() > 1000 {
			small = replay.NewMemory(nil)
		}
		if err := small.Claim(ctx, nonce(), later); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("refused-by-full-store-vs-small-store", func(b *testing.B) {
		full := replay.NewMemory(&replay.MemoryOptions{MaxEntries: held})
		fill(full, held)
		benchratio.Interleave(b, func() {
			if err := full.Claim(ctx, nonce(), later); !errors.Is(err, replay.ErrFull) {
				b.Fatalf("claim on a full store: %v", err)
			}
		}, baseline)
	})
	// A claim for a user (reqstate's) against one for no user, each in a
	// store of 200,000 held by 1,000 users: what the per-user count adds.
	b.Run("claim-user-vs-claim-in-store-of-200k", func(b *testing.B) {
		const users = 1000
		names := make([]string, users)
		for i := range names {
			names[i] = fmt.Sprintf("user-%04d@example.com", i)
		}
		owned, plain := replay.NewMemory(nil), replay.NewMemory(nil)
		for i := range held {
			if err := owned.ClaimUser(ctx, names[i%users], nonce(), later); err != nil {
				b.Fatal(err)
			}
		}
		fill(plain, held)
		u := 0
		benchratio.Interleave(b, func() {
			u = (u + 1) % users
			if err := owned.ClaimUser(ctx, names[u], nonce(), later); err != nil {
				b.Fatal(err)
			}
		}, func() {
			if err := plain.Claim(ctx, nonce(), later); err != nil {
				b.Fatal(err)
			}
		})
	})
	// A user at the bound, in a store of 200,000 held by others, refused.
	b.Run("refused-user-at-bound-vs-small-store", func(b *testing.B) {
		const perUser = 1000
		big := replay.NewMemory(&replay.MemoryOptions{MaxPerUser: perUser})
		fill(big, held)
		for range perUser {
			if err := big.ClaimUser(ctx, "mallory", nonce(), later); err != nil {
				b.Fatal(err)
			}
		}
		benchratio.Interleave(b, func() {
			if err := big.ClaimUser(ctx, "mallory", nonce(), later); !errors.Is(err, replay.ErrUserFull) {
				b.Fatalf("claim beyond the user's bound: %v", err)
			}
		}, baseline)
	})
	b.Run("claim-in-store-of-200k-vs-small-store", func(b *testing.B) {
		big := replay.NewMemory(nil)
		fill(big, held)
		benchratio.Interleave(b, func() {
			if err := big.Claim(ctx, nonce(), later); err != nil {
				b.Fatal(err)
			}
		}, baseline)
	})
}

// BenchmarkMemoryRetained measures the heap a Memory store keeps per live
// nonce: 60,000 nonces as reqstate claims them (22 characters, the
// base64url of 16 random bytes, for one user) held at once, the heap in use
// after a collection read before and after (retained-B/claim). A server
// pays for this memory in collections as well as in bytes: with a small
// heap, every byte the store keeps leaves the collector less room before its
// next cycle (the minimum heap goal is 4 MiB), so that a server's CPU per
// request rises as the store fills. Where the store maps its records
// outside the heap (Linux, macOS, the BSDs), what is left is the record of
// its mapped regions, well under a byte a nonce. Whatever b.N, it does its work once
// (make bench runs it with BenchmarkMemory's -benchtime 500x).
func BenchmarkMemoryRetained(b *testing.B) {
	const n = 60_000
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	nonces := make([]string, n)
	for i := range nonces {
		var raw [16]byte
		binary.BigEndian.PutUint64(raw[:], uint64(i)*0x9e3779b97f4a7c15)
		binary.BigEndian.PutUint64(raw[8:], uint64(i))
		nonces[i] = base64.RawURLEncoding.EncodeToString(raw[:])
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	h0 := heap()
	m := replay.NewMemory(nil)
	for _, nonce := range nonces {
		if err := m.ClaimUser(ctx, "127.0.0.1", nonce, later); err != nil {
			b.Fatal(err)
		}
	}
	h1 := heap()
	if m.Len() != n {
		b.Fatalf("%d nonces held, want %d", m.Len(), n)
	}
	runtime.KeepAlive(nonces) // counted in neither reading
	b.ReportMetric((float64(h1)-float64(h0))/n, "retained-B/claim")
}

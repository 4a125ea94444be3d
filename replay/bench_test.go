package replay_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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

package replay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// countOp decodes one step of a fuzzed sequence of claims: who claims
// (one of four users, or no user), which of eight nonces, for how long, and
// how far the clock moves first; a sweep now and then.
type countOp struct {
	user    int // -1: plain Claim
	nonce   int
	life    time.Duration
	advance time.Duration
	sweep   bool
}

func countOps(data []byte) []countOp {
	var ops []countOp
	for i := 0; i+1 < len(data) && len(ops) < 400; i += 2 {
		a, b := data[i], data[i+1]
		ops = append(ops, countOp{
			user:    int(a%5) - 1,
			nonce:   int(a/5) % 8,
			life:    time.Duration(1+b%4) * time.Minute,
			advance: time.Duration(b/4%4) * 40 * time.Second,
			sweep:   b >= 0xf0,
		})
	}
	return ops
}

var countUsers = []string{"", "alice", "bob", "a-user-name-long-enough-to-be-hashed@example.com"}

// The counts of a Memory store are those of the records it holds, after
// every claim, expiry and sweep: each slot's count is its records', no user
// without a record keeps a slot, and no user holds more than MaxPerUser.
func FuzzMemoryUserCounts(f *testing.F) {
	f.Add([]byte{0, 0, 5, 0, 10, 0, 15, 0, 1, 0, 6, 0, 11, 0, 16, 0})
	f.Add([]byte{1, 3, 6, 3, 11, 3, 16, 0x80, 1, 0xff, 2, 0x40, 7, 0xc0, 12, 0xf1})
	f.Add([]byte{4, 1, 9, 2, 14, 3, 19, 4, 24, 5, 29, 0x30, 34, 0xf0, 39, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		now := time.Unix(1_000_000, 0)
		m := NewMemory(&MemoryOptions{MaxEntries: 6, MaxPerUser: 2, Now: func() time.Time { return now }})
		ctx := context.Background()
		for i, op := range countOps(data) {
			now = now.Add(op.advance)
			if op.sweep {
				m.Sweep()
			}
			nonce := fmt.Sprint("n", op.nonce)
			var err error
			if op.user < 0 {
				err = m.Claim(ctx, nonce, now.Add(op.life))
			} else {
				err = m.ClaimUser(ctx, countUsers[op.user], nonce, now.Add(op.life))
			}
			if err != nil && !errors.Is(err, ErrUsed) && !errors.Is(err, ErrFull) {
				t.Fatalf("step %d: %v", i, err)
			}
			checkMemoryCounts(t, m, i)
		}
	})
}

func checkMemoryCounts(t *testing.T, m *Memory, step int) {
	t.Helper()
	held := map[uint32]int{}
	inUse := 0
	for i, tag := range m.seen.tag {
		if tag == 0 {
			continue
		}
		inUse++
		seq := m.seen.seq[i]
		if int(seq-m.order.first) >= m.order.len() {
			t.Fatalf("step %d: a nonce held names claim %d, not in the order (%d from %d)", step, seq, m.order.len(), m.order.first)
		}
		r := m.order.at(seq)
		if j := m.seen.find(r.key, &m.order); j != i {
			t.Fatalf("step %d: the nonce of claim %d, in slot %d, is found in slot %d", step, seq, i, j)
		}
		if r.user != 0 {
			held[r.user]++
		}
	}
	for id, s := range m.slots {
		if id == 0 {
			continue
		}
		if s.n != held[uint32(id)] {
			t.Fatalf("step %d: slot %d (%q) counts %d, holds %d", step, id, s.user, s.n, held[uint32(id)])
		}
		if s.n > m.perUser {
			t.Fatalf("step %d: user %q holds %d, bound %d", step, s.user, s.n, m.perUser)
		}
		if (s.n == 0) != (m.users[s.user] != uint32(id)) {
			t.Fatalf("step %d: slot %d (%q, %d) and the users' index disagree", step, id, s.user, s.n)
		}
	}
	if len(m.users)+len(m.free)+1 != max(len(m.slots), 1) {
		t.Fatalf("step %d: %d users + %d free slots of %d", step, len(m.users), len(m.free), len(m.slots))
	}
	if inUse != m.seen.len() {
		t.Fatalf("step %d: %d slots in use, the index counts %d", step, inUse, m.seen.len())
	}
	if m.seen.len() > m.max {
		t.Fatalf("step %d: %d records, bound %d", step, m.seen.len(), m.max)
	}
}

// A Bolt file decides every claim as a plain model of live nonces does
// (used, the user's bound, the total, in that order), its counts are the
// model's after every claim that is not a reuse (a reuse is refused before
// anything is forgotten), and they stay so across a reopen.
func FuzzBoltUserCounts(f *testing.F) {
	f.Add([]byte{0, 0, 5, 0, 10, 0, 15, 0, 1, 0, 6, 0, 11, 0, 16, 0})
	f.Add([]byte{1, 3, 6, 3, 11, 3, 16, 0x80, 1, 0xff, 2, 0x40, 7, 0xc0, 12, 0xf1})
	f.Add([]byte{4, 1, 9, 2, 14, 3, 19, 4, 24, 5, 29, 0x30, 34, 0xf0, 39, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		now := time.Unix(1_000_000, 0)
		path := filepath.Join(t.TempDir(), "replay.db")
		opts := &BoltOptions{MaxEntries: 6, MaxPerUser: 2, Now: func() time.Time { return now }}
		s, err := OpenBolt(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { s.Close() }()
		type rec struct {
			user   int
			expiry time.Time
		}
		model := map[string]rec{}
		live := func(user int) (n int) {
			for _, r := range model {
				if now.Before(r.expiry) && (user == -2 || r.user == user) {
					n++
				}
			}
			return n
		}
		ctx := context.Background()
		for i, op := range countOps(data) {
			now = now.Add(op.advance)
			if op.sweep {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if s, err = OpenBolt(path, opts); err != nil {
					t.Fatal(err)
				}
			}
			nonce := fmt.Sprint("n", op.nonce)
			var want error
			switch r, ok := model[nonce]; {
			case ok && now.Before(r.expiry):
				want = ErrUsed
			case op.user >= 0 && live(op.user) >= 2:
				want = ErrUserFull
			case live(-2) >= 6:
				want = ErrFull
			}
			if op.user < 0 {
				err = s.Claim(ctx, nonce, now.Add(op.life))
			} else {
				err = s.ClaimUser(ctx, countUsers[op.user], nonce, now.Add(op.life))
			}
			if want == nil && err == nil {
				model[nonce] = rec{op.user, now.Add(op.life)}
			} else if !errors.Is(err, want) || (want == ErrFull && errors.Is(err, ErrUserFull)) {
				t.Fatalf("step %d: claim = %v, want %v", i, err, want)
			}
			if want == ErrUsed {
				continue // refused before anything expired is forgotten
			}
			for u, name := range countUsers {
				if n, err := s.HeldBy(name); err != nil || n != live(u) {
					t.Fatalf("step %d: HeldBy(%q) = %d, %v; want %d", i, name, n, err, live(u))
				}
			}
			if n, err := s.Len(); err != nil || n != live(-2) {
				t.Fatalf("step %d: Len = %d, %v; want %d", i, n, err, live(-2))
			}
		}
	})
}

package replay

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The counts of users take room only while the users hold live nonces: a
// flood of users, each with one nonce, leaves nothing behind once the
// nonces are forgotten, and the next users reuse the slots.
func TestMemoryUserCountsGoWithTheirNonces(t *testing.T) {
	t.Parallel() // its own store and clock
	now := time.Unix(1_000_000, 0)
	m := NewMemory(&MemoryOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	const users = 10_000
	for i := range users {
		if err := m.ClaimUser(ctx, fmt.Sprint("user-", i), fmt.Sprint("n-", i), now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.users) != users || len(m.slots) != users+1 {
		t.Fatalf("%d users, %d slots for %d users", len(m.users), len(m.slots), users)
	}
	now = now.Add(2 * time.Minute)
	if err := m.ClaimUser(ctx, "last", "n-last", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if len(m.users) != 1 || m.seen.len() != 1 {
		t.Fatalf("after expiry %d users, %d nonces; want 1 and 1", len(m.users), m.seen.len())
	}
	for i := range users {
		if err := m.ClaimUser(ctx, fmt.Sprint("other-", i), fmt.Sprint("o-", i), now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.slots) != users+2 { // "last" holds one of the first flood's
		t.Fatalf("%d slots after the second flood, want the first's reused (%d)", len(m.slots), users+2)
	}
	m.Sweep()
	now = now.Add(2 * time.Minute)
	m.Sweep()
	if len(m.users) != 0 || len(m.free) != len(m.slots)-1 {
		t.Fatalf("after a sweep of everything %d users, %d free of %d slots", len(m.users), len(m.free), len(m.slots))
	}
}

package replay_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/replay"
)

func ExampleMemory() {
	store := replay.NewMemory(nil)
	ctx := context.Background()
	expiry := time.Now().Add(10 * time.Minute)

	fmt.Println(store.Claim(ctx, "nonce-1", expiry))
	err := store.Claim(ctx, "nonce-1", expiry)
	fmt.Println(errors.Is(err, replay.ErrUsed))
	// Output:
	// <nil>
	// true
}

// A store bounded per user refuses a user at the bound while others still
// claim; reqstate claims every single-use state for its user this way.
func ExampleMemory_ClaimUser() {
	store := replay.NewMemory(&replay.MemoryOptions{MaxPerUser: 2})
	ctx := context.Background()
	expiry := time.Now().Add(10 * time.Minute)

	fmt.Println(store.ClaimUser(ctx, "mallory", "n1", expiry))
	fmt.Println(store.ClaimUser(ctx, "mallory", "n2", expiry))
	err := store.ClaimUser(ctx, "mallory", "n3", expiry)
	fmt.Println(errors.Is(err, replay.ErrUserFull), errors.Is(err, replay.ErrFull))
	fmt.Println(store.ClaimUser(ctx, "alice", "n3", expiry))
	// Output:
	// <nil>
	// <nil>
	// true true
	// <nil>
}

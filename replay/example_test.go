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

package redisstore_test

import (
	"fmt"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/connect/tokenstore/redisstore"
	"github.com/askback/askback/keys"
	"github.com/redis/go-redis/v9"
)

// Every instance of a server opens the same Redis, so a user who connected
// GitHub through one instance is connected on all of them. Sealing the
// tokens keeps them secret from whoever can read Redis.
func Example() {
	opts, err := redis.ParseURL("redis://127.0.0.1:6379/0")
	if err != nil {
		fmt.Println(err)
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	// The key (32 random bytes or more, from your vault) may be the one that
	// signs reqstate's states and connect's links: the store derives its own.
	key := keys.Key{ID: "2026-12", Secret: []byte("a 32-byte secret from your vault")}
	store, err := tokenstore.NewEncrypted(redisstore.New(rdb, nil), key)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = store // hand it to connect.Options
	fmt.Println("ready")
	// Output: ready
}

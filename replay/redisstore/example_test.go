package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/replay"
	"github.com/askback/askback/replay/redisstore"
	"github.com/redis/go-redis/v9"
)

// Every instance of a server opens the same Redis; a requestState claimed
// by one instance is refused by all the others.
func Example() {
	opts, err := redis.ParseURL("redis://127.0.0.1:6379/0")
	if err != nil {
		fmt.Println(err)
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	store := redisstore.New(rdb, &redisstore.Options{Prefix: "deployer:replay:"})

	err = store.Claim(context.Background(), "nonce-from-a-requestState", time.Now().Add(10*time.Minute))
	if errors.Is(err, replay.ErrUsed) {
		fmt.Println("this requestState was used before")
	}
}

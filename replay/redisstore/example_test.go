package redisstore_test

import (
	"fmt"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay/redisstore"
	"github.com/askback/askback/reqstate"
	"github.com/redis/go-redis/v9"
)

// Every instance of a server opens the same Redis and hands the store to
// its reqstate codec: a single-use requestState claimed through one
// instance is refused by all the others (reqstate.ErrReused). Nothing is
// sent to Redis until the first state is issued or opened.
func Example() {
	opts, err := redis.ParseURL("redis://127.0.0.1:6379/0")
	if err != nil {
		fmt.Println(err)
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	codec, err := reqstate.New(&reqstate.Options{
		Keys:   []keys.Key{{ID: "2026-12", Secret: []byte("a 32-byte secret from your vault")}},
		Replay: redisstore.New(rdb, &redisstore.Options{Prefix: "deployer:replay:"}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = codec // issue and open the states of every instance with it
	fmt.Println("ready")
	// Output: ready
}

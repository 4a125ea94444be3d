package redisstore_test

import (
	"fmt"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/redisstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
)

// Every instance installs the extension on the same Redis store: a task
// started through one instance is answered and polled through any other.
// The heartbeat bounds how soon the running instance sees an answer that
// reached another one.
func Example() {
	opts, err := redis.ParseURL("redis://127.0.0.1:6379/0")
	if err != nil {
		fmt.Println(err)
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "1.0.0"}, nil)
	_, err = tasks.Install(server, &tasks.Options{
		Store:     redisstore.New(rdb, &redisstore.Options{Prefix: "deployer:task:"}),
		Heartbeat: 500 * time.Millisecond,
	})
	fmt.Println(err)
	// Output: <nil>
}

package reqstate_test

import (
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/replay/redisstore"
)

// In Redis, shared by several instances, an anonymous client's share holds
// the same way.
func TestOneAnonymousClientCannotFillTheRedisReplayStore(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	clk := &clock{t: time.Now()} // Redis expires keys by its own clock
	store := redisstore.New(scaleout.Client(t, r.URL), &redisstore.Options{MaxEntries: 8, MaxPerUser: 2, Now: clk.Now})
	anonymousShares(t, store, clk)
}

// Package redisstore is a replay.Store in Redis, for several server
// instances that must agree on which requestStates were already used.
//
// A claim is one atomic script: of any number of instances claiming one
// nonce at once, exactly one succeeds. Each nonce is a key (prefix+nonce)
// that Redis drops when the nonce's expiry passes; the live nonces are
// also counted in a sorted set (prefix+"@index", scored by expiry), and a
// claim beyond [Options.MaxEntries] live nonces fails closed with
// [replay.ErrFull], as the other stores do. If Redis cannot be reached,
// Claim fails with an error that is not [replay.ErrUsed] and nothing is
// consumed, so the client may retry with the same requestState once Redis
// is back.
//
// The script touches two keys: with Redis Cluster, give the prefix a hash
// tag (e.g. "{askback:replay}:") so that both live in one slot.
package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/askback/askback/replay"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "askback:replay:"

// Options configure [New].
type Options struct {
	// Prefix starts every key (DefaultPrefix if empty). Give each
	// application sharing one Redis database its own prefix.
	Prefix string
	// MaxEntries is the most live nonces kept at once, by every instance
	// sharing the prefix (replay.DefaultMaxEntries if zero). When that
	// many have not expired, Claim fails with [replay.ErrFull].
	MaxEntries int
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
}

// indexSuffix names the sorted set of live nonces under the prefix; a
// nonce equal to it is refused.
const indexSuffix = "@index"

// claimScript claims KEYS[1] (the nonce's key) and counts it in KEYS[2]
// (the index). ARGV: [1] now (ms), [2] ttl (ms), [3] MaxEntries, [4] the
// nonce, [5] its expiry (ms). It returns 1 when claimed, 0 when used, -1
// when full.
var claimScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 1
`)

// Store is a [replay.Store] in Redis. Make it with [New]; the zero Store is
// not usable.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	max    int
	now    func() time.Time
}

var _ replay.Store = (*Store)(nil)

// New returns a store that keeps its nonces in rdb. The caller owns rdb and
// closes it.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix, max: replay.DefaultMaxEntries, now: time.Now}
	if opts != nil {
		if opts.MaxEntries > 0 {
			s.max = opts.MaxEntries
		}
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	return s
}

// Claim records nonce until expiry. It fails with an error wrapping
// [replay.ErrUsed] when another claim got there first, with
// [replay.ErrFull] when MaxEntries live nonces are kept, and with
// [replay.ErrInvalidNonce] for an empty or overlong nonce or "@index". An
// expiry that has already passed is kept for one millisecond: the claim
// still counts once.
func (s *Store) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if nonce == "" || len(nonce) > replay.MaxNonceLen || nonce == indexSuffix {
		return replay.ErrInvalidNonce
	}
	now := s.now().UnixMilli()
	ttl := expiry.UnixMilli() - now
	if ttl < 1 {
		ttl = 1
	}
	res, err := claimScript.Run(ctx, s.rdb, []string{s.prefix + nonce, s.prefix + indexSuffix},
		now, ttl, s.max, nonce, now+ttl).Int()
	switch {
	case err != nil:
		return fmt.Errorf("claim nonce in redis: %w", err)
	case res == 0:
		return fmt.Errorf("claim nonce: %w", replay.ErrUsed)
	case res < 0:
		return fmt.Errorf("claim nonce: %d live nonces kept (redisstore.Options.MaxEntries): %w", s.max, replay.ErrFull)
	}
	return nil
}

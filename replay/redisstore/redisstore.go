// Package redisstore is a replay.Store in Redis, for several server
// instances that must agree on which requestStates were already used.
//
// A claim is one atomic command, SET key 1 NX PX ttl: of any number of
// instances claiming one nonce at once, exactly one succeeds. Redis drops
// the key when the nonce's expiry passes. If Redis cannot be reached, Claim
// fails with an error that is not [replay.ErrUsed] and nothing is consumed,
// so the client may retry with the same requestState once Redis is back.
package redisstore

import (
	"context"
	"errors"
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
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
}

// Store is a [replay.Store] in Redis. Make it with [New]; the zero Store is
// not usable.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	now    func() time.Time
}

var _ replay.Store = (*Store)(nil)

// New returns a store that keeps its nonces in rdb. The caller owns rdb and
// closes it.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix, now: time.Now}
	if opts != nil {
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	return s
}

// Claim records nonce until expiry with SET NX PX. It fails with an error
// wrapping [replay.ErrUsed] when another claim got there first, and with
// [replay.ErrInvalidNonce] for an empty or overlong nonce. An expiry that
// has already passed is kept for one millisecond: the claim still counts
// once.
func (s *Store) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if nonce == "" || len(nonce) > replay.MaxNonceLen {
		return replay.ErrInvalidNonce
	}
	ttl := expiry.Sub(s.now()).Milliseconds()
	if ttl < 1 {
		ttl = 1
	}
	err := s.rdb.Do(ctx, "SET", s.prefix+nonce, "1", "NX", "PX", ttl).Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redis.Nil):
		return fmt.Errorf("claim nonce: %w", replay.ErrUsed)
	default:
		return fmt.Errorf("claim nonce in redis: %w", err)
	}
}

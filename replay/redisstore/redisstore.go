// Package redisstore is a replay.Store in Redis, for several server
// instances that must agree on which requestStates were already used.
//
// A claim is one atomic script: of any number of instances claiming one
// nonce at once, exactly one succeeds. Each nonce is a key (prefix+nonce)
// that Redis drops when the nonce's expiry passes; the live nonces are
// also counted in a sorted set (prefix+"@index", scored by expiry), and a
// claim beyond [Options.MaxEntries] live nonces fails closed with
// [replay.ErrFull], as the other stores do. A claim made with
// [Store.ClaimUser] (reqstate makes them so) is also counted in a sorted
// set of its user's live nonces (prefix+"@user:" and a digest of the
// user), which Redis drops with the user's last nonce; a claim beyond
// [Options.MaxPerUser] of them fails with [replay.ErrUserFull] while other
// users still claim. Every count is made by the script, so all instances
// sharing the prefix see the same counts. If Redis cannot be reached,
// Claim fails with an error that is not [replay.ErrUsed] and nothing is
// consumed, so the client may retry with the same requestState once Redis
// is back.
//
// The script touches up to three keys: with Redis Cluster, give the prefix
// a hash tag (e.g. "{askback:replay}:") so that all of them live in one
// slot. Nonces starting with "@" are refused: that is where the store's own
// keys are named.
package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
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
	// MaxPerUser is the most live nonces kept at once for one user of
	// [Store.ClaimUser], by every instance sharing the prefix
	// (replay.DefaultMaxPerUser(MaxEntries) if zero): beyond it, that
	// user's claims fail with [replay.ErrUserFull] while other users still
	// claim. Anonymous callers (user "") share one allowance; set
	// MaxPerUser to MaxEntries to bound a server without authentication in
	// total only.
	MaxPerUser int
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
}

// The store's own keys under the prefix start with reservedPrefix, which
// no nonce may: indexSuffix names the sorted set of live nonces and
// userInfix, followed by a digest of the user, each user's.
const (
	reservedPrefix = "@"
	indexSuffix    = "@index"
	userInfix      = "@user:"
)

// claimScript claims KEYS[1] (the nonce's key) and counts it in KEYS[2]
// (the index) and, when given, KEYS[3] (its user's set). ARGV: [1] now
// (ms), [2] ttl (ms), [3] MaxEntries, [4] the nonce, [5] its expiry (ms),
// [6] MaxPerUser, [7] the places a user holding [8] or more live nonces
// may not take (replay.ReservedEntries, replay.FewNonces). It
// returns 1 when claimed, 0 when used, -1 when full, -2 when the user holds
// MaxPerUser live nonces. A set is dropped by Redis
// when its last nonce expires; each claim first removes the expired
// members of the sets it counts in, so a count is never of more than the
// live nonces.
var claimScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local limit = tonumber(ARGV[3])
if KEYS[3] then
  limit = limit - tonumber(ARGV[7])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
  local held = redis.call('ZCARD', KEYS[3])
  if held >= tonumber(ARGV[6]) then return -2 end
  if held < tonumber(ARGV[8]) then limit = tonumber(ARGV[3]) end
end
if redis.call('ZCARD', KEYS[2]) >= limit then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[5], ARGV[4])
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[i], last[2])
end
return 1
`)

// Store is a [replay.Store] in Redis. Make it with [New]; the zero Store is
// not usable.
type Store struct {
	rdb     redis.UniversalClient
	prefix  string
	max     int
	perUser int
	now     func() time.Time
}

var _ replay.UserStore = (*Store)(nil)

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
	s.perUser = replay.DefaultMaxPerUser(s.max)
	if opts != nil && opts.MaxPerUser > 0 {
		s.perUser = opts.MaxPerUser
	}
	return s
}

// Claim records nonce until expiry, for no user (it counts towards the
// total only). It fails with an error wrapping [replay.ErrUsed] when
// another claim got there first, with [replay.ErrFull] when MaxEntries
// live nonces are kept, and with [replay.ErrInvalidNonce] for an empty or
// overlong nonce or one starting with "@". An expiry that has already
// passed is kept for one millisecond: the claim still counts once.
func (s *Store) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	return s.claim(ctx, nonce, expiry, s.prefix+nonce, s.prefix+indexSuffix)
}

// ClaimUser records nonce until expiry for user ("" for anonymous callers,
// who share one allowance). It fails as Claim does, and with
// [replay.ErrUserFull] when MaxPerUser live nonces of user are kept.
func (s *Store) ClaimUser(ctx context.Context, user, nonce string, expiry time.Time) error {
	sum := sha256.Sum256([]byte(user))
	return s.claim(ctx, nonce, expiry, s.prefix+nonce, s.prefix+indexSuffix, s.prefix+userInfix+hex.EncodeToString(sum[:16]))
}

func (s *Store) claim(ctx context.Context, nonce string, expiry time.Time, keys ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if nonce == "" || len(nonce) > replay.MaxNonceLen || strings.HasPrefix(nonce, reservedPrefix) {
		return replay.ErrInvalidNonce
	}
	now := s.now().UnixMilli()
	ttl := expiry.UnixMilli() - now
	if ttl < 1 {
		ttl = 1
	}
	res, err := claimScript.Run(ctx, s.rdb, keys, now, ttl, s.max, nonce, now+ttl, s.perUser, replay.ReservedEntries(s.max), replay.FewNonces(s.perUser)).Int()
	switch {
	case err != nil:
		return fmt.Errorf("claim nonce in redis: %w", err)
	case res == 0:
		return fmt.Errorf("claim nonce: %w", replay.ErrUsed)
	case res == -2:
		return fmt.Errorf("claim nonce: %d live nonces of this user kept (redisstore.Options.MaxPerUser): %w", s.perUser, replay.ErrUserFull)
	case res < 0:
		return fmt.Errorf("claim nonce: %d live nonces kept (redisstore.Options.MaxEntries): %w", s.max, replay.ErrFull)
	}
	return nil
}

package replay

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrUsed is returned by [Store.Claim] when the nonce has been claimed before
// and its record has not expired.
var ErrUsed = errors.New("replay: nonce already used")

// ErrFull is returned by a bounded store when it cannot record another nonce
// because every slot holds a nonce that has not expired. The claim is refused
// rather than forgotten: a full store fails closed.
var ErrFull = errors.New("replay: store is full")

// ErrUserFull is returned by a store bounded per user ([UserStore]) when the
// user of a claim already holds as many live nonces as the store allows one
// user, while other users may still claim. It wraps [ErrFull]: the claim is
// refused the same way, and nothing is consumed.
var ErrUserFull = fmt.Errorf("%w for this user", ErrFull)

// ErrInvalidNonce is returned for an empty nonce or one longer than [MaxNonceLen].
var ErrInvalidNonce = errors.New("replay: invalid nonce")

// MaxNonceLen is the longest nonce a store accepts, in bytes.
const MaxNonceLen = 256

// A Store records claimed nonces.
//
// Claim must be atomic: when several callers, in this process or in others
// sharing the store, claim the same nonce concurrently, exactly one of them
// gets nil and the others get an error wrapping [ErrUsed]. A store keeps a
// record at least until expiry and may drop it afterwards; callers pass an
// expiry in the future (reqstate passes the state's own expiry, checked just
// before). Claim honours the context's cancellation and returns its error; a
// refused claim (cancelled, invalid, full) must not consume the nonce.
type Store interface {
	Claim(ctx context.Context, nonce string, expiry time.Time) error
}

// A UserStore is a [Store] that also bounds the live nonces of each user, so
// that one user cannot fill the store and have everyone else's claims
// refused. [Memory], [Bolt] and replay/redisstore's Store are UserStores.
//
// ClaimUser claims nonce as Claim does, on behalf of user: the first claim
// succeeds, later ones fail with [ErrUsed], and a claim that would give
// user more live nonces than the store allows one user fails with
// [ErrUserFull] without consuming the nonce. user is an opaque name (for
// reqstate, the state's authenticated subject); "" is every anonymous
// caller, who all share one allowance. A nonce claimed with Claim belongs
// to no user and counts only towards the store's total.
//
// UserStore is a separate, optional interface rather than a change to Store
// so that a Store written elsewhere keeps compiling and working: reqstate
// claims through [ClaimUser], which uses ClaimUser when the store has it
// and Claim otherwise (such a store is then bounded however it bounds
// itself, in total at best).
type UserStore interface {
	Store
	ClaimUser(ctx context.Context, user, nonce string, expiry time.Time) error
}

// ClaimUser claims nonce in s on behalf of user: with s.ClaimUser if s is a
// [UserStore], else with s.Claim (the user is then not told to the store).
func ClaimUser(ctx context.Context, s Store, user, nonce string, expiry time.Time) error {
	if us, ok := s.(UserStore); ok {
		return us.ClaimUser(ctx, user, nonce, expiry)
	}
	return s.Claim(ctx, nonce, expiry)
}

// PerUserShare is the divisor of the default per-user bound: a store that
// keeps at most maxEntries live nonces lets one user hold
// [DefaultMaxPerUser](maxEntries) = maxEntries/PerUserShare of them, so
// that it takes PerUserShare users at their bound to fill it.
const PerUserShare = 16

// DefaultMaxPerUser is the per-user bound of a store bounded to maxEntries
// live nonces whose MaxPerUser option is zero: maxEntries/[PerUserShare],
// at least 1 (65,536 for [DefaultMaxEntries]).
func DefaultMaxPerUser(maxEntries int) int {
	return max(1, maxEntries/PerUserShare)
}

// ReservedEntries is how many of a store's maxEntries places only a user
// holding few live nonces ([FewNonces]) may take, of the claims made for a
// user ([UserStore]): a tenth. Users at many
// addresses, each within its share, can fill the rest, but not these
// without many more addresses again, so that a new user still gets a
// single-use state. Nonces are never forgotten before their expiry to make
// room (a forgotten nonce could be used again): a store full even so
// refuses, failing closed. Every store of this module keeps it.
func ReservedEntries(maxEntries int) int { return maxEntries / 10 }

// FewNonces is the most live nonces a user may hold and still take one of
// the reserved places ([ReservedEntries]) of a store bounding a user to
// maxPerUser: a 256th of it, at least 1 (256 for the defaults).
func FewNonces(maxPerUser int) int { return max(1, maxPerUser/256) }

// fullAt is the number of live nonces at which a claim of a user holding
// held is refused as full; a claim without a user (held -1), which the
// store cannot count for anyone, is bounded by maxEntries alone.
func fullAt(maxEntries, maxPerUser, held int) int {
	if held < FewNonces(maxPerUser) {
		return maxEntries
	}
	return maxEntries - ReservedEntries(maxEntries)
}

func checkNonce(nonce string) error {
	if nonce == "" || len(nonce) > MaxNonceLen {
		return ErrInvalidNonce
	}
	return nil
}

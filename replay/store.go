package replay

import (
	"context"
	"errors"
	"time"
)

// ErrUsed is returned by [Store.Claim] when the nonce has been claimed before
// and its record has not expired.
var ErrUsed = errors.New("replay: nonce already used")

// ErrFull is returned by a bounded store when it cannot record another nonce
// because every slot holds a nonce that has not expired. The claim is refused
// rather than forgotten: a full store fails closed.
var ErrFull = errors.New("replay: store is full")

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

func checkNonce(nonce string) error {
	if nonce == "" || len(nonce) > MaxNonceLen {
		return ErrInvalidNonce
	}
	return nil
}

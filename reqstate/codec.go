package reqstate

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/subject"
)

// Mode says whether a codec hides the payload or only protects it.
type Mode int

const (
	// Sealed encrypts and authenticates the state (AES-256-GCM): the client
	// can neither read nor change it. It is the default.
	Sealed Mode = iota
	// Signed authenticates the state (HMAC-SHA256): the client can read the
	// payload but not change it.
	Signed
)

func (m Mode) String() string {
	switch m {
	case Sealed:
		return "sealed"
	case Signed:
		return "signed"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Defaults for [Options].
const (
	DefaultTTL     = 10 * time.Minute
	DefaultMaxSize = 16 << 10
	// DefaultMaxSkew is the clock difference between instances a codec
	// tolerates when Options.MaxSkew is zero.
	DefaultMaxSkew = 30 * time.Second
)

// Options configures [New].
type Options struct {
	// Mode is Sealed (the default) or Signed.
	Mode Mode
	// Keys are the keys the codec knows (at least one). The first seals new
	// states; every one of them opens. To rotate, put a new key first and
	// keep the old one until the states it sealed have expired; then remove
	// it (retire it).
	Keys []keys.Key
	// TTL is how long an issued state stays valid (DefaultTTL if zero), and
	// the longest [TTL] may ask for one state.
	TTL time.Duration
	// MaxSkew is the largest difference between the clocks of the server
	// instances that share the keys and the replay store (DefaultMaxSkew if
	// zero). Keep the instances' clocks synchronised (NTP) well within it.
	// Open refuses, with [ErrClockSkew], a state issued more than MaxSkew in
	// the future or expiring more than TTL+MaxSkew from now; a single-use
	// state's nonce is held until its expiry plus MaxSkew, so that no
	// instance, however its clock is set within MaxSkew, accepts it again.
	MaxSkew time.Duration
	// MaxSize is the longest state, in bytes, that Issue produces and Open
	// reads (DefaultMaxSize if zero).
	MaxSize int
	// Replay records the nonces of single-use states. It is required to
	// issue or open a state made with [SingleUse]. A nonce is claimed for
	// its caller (replay.ClaimUser with subject.Share): the state's user,
	// or for a state without one the client the context of Open names (the
	// HTTP layer names it: endpoint.Handler does), so that a store bounded
	// per user (replay.UserStore, as the replay package's stores are)
	// refuses a caller at the bound while others, anonymous ones included,
	// still open their states.
	Replay replay.Store
	// Subject returns the authenticated user of a request, whom a state is
	// bound to. If nil, subject.FromToken is used (TokenInfo.UserID, else its
	// "sub"), as by every toolkit package: give them all the same function.
	Subject subject.Func
	// RequireSubject makes Issue refuse to make a state for a request
	// without a subject. Set it on servers where every request should be
	// authenticated, so a missing verifier is not silently accepted.
	RequireSubject bool
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
	// Rand is the source of nonces (crypto/rand if nil).
	Rand io.Reader
}

// A Codec issues and opens requestStates. It is safe for concurrent use.
type Codec struct {
	mode           Mode
	current        *codecKey
	keys           map[string]*codecKey
	ttl            time.Duration
	maxSkew        time.Duration
	maxSize        int
	replay         replay.Store
	subject        subject.Func
	requireSubject bool
	now            func() time.Time
	rand           io.Reader
}

type codecKey struct {
	id   string
	aad  []byte      // Sealed: "e2." id, the additional data
	macs sync.Pool   // Signed: HMAC-SHA256 hashes keyed with the subkey
	aead cipher.AEAD // Sealed
}

// New returns a codec. It fails if opts is nil or has no key, a key id is
// invalid or repeated, or a secret is shorter than keys.MinSecretLen. The
// zero Codec is not usable.
func New(opts *Options) (*Codec, error) {
	if opts == nil {
		return nil, errors.New("new requestState codec: no options; give at least Options.Keys")
	}
	if opts.Mode != Sealed && opts.Mode != Signed {
		return nil, fmt.Errorf("new requestState codec: unknown mode %v", opts.Mode)
	}
	if err := keys.Check(opts.Keys); err != nil {
		return nil, fmt.Errorf("new requestState codec: %w", err)
	}
	c := &Codec{
		mode:           opts.Mode,
		keys:           make(map[string]*codecKey, len(opts.Keys)),
		ttl:            opts.TTL,
		maxSkew:        opts.MaxSkew,
		maxSize:        opts.MaxSize,
		replay:         opts.Replay,
		subject:        opts.Subject.Or(),
		requireSubject: opts.RequireSubject,
		now:            opts.Now,
		rand:           opts.Rand,
	}
	if err := c.setDefaults(); err != nil {
		return nil, err
	}
	if err := c.addKeys(opts.Keys); err != nil {
		return nil, err
	}
	return c, nil
}

// setDefaults fills in what the options left out, and refuses a negative
// MaxSkew.
func (c *Codec) setDefaults() error {
	if c.ttl <= 0 {
		c.ttl = DefaultTTL
	}
	if c.maxSkew < 0 {
		return fmt.Errorf("new requestState codec: MaxSkew %v is negative", c.maxSkew)
	}
	if c.maxSkew == 0 {
		c.maxSkew = DefaultMaxSkew
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxSize
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.rand == nil {
		c.rand = rand.Reader
	}
	return nil
}

// addKeys derives the codec's subkey of each key; the first is the one
// new states are made with.
func (c *Codec) addKeys(ks []keys.Key) error {
	for i, k := range ks {
		ck, err := deriveKey(c.mode, k)
		if err != nil {
			return fmt.Errorf("new requestState codec: key %q: %w", k.ID, err)
		}
		c.keys[k.ID] = ck
		if i == 0 {
			c.current = ck
		}
	}
	return nil
}

// Mode reports the codec's mode.
func (c *Codec) Mode() Mode { return c.mode }

// deriveKey derives a per-mode subkey from the secret, so that one secret
// used in both modes never serves two algorithms.
func deriveKey(mode Mode, k keys.Key) (*codecKey, error) {
	m := hmac.New(sha256.New, k.Secret)
	m.Write([]byte("askback reqstate v2 " + mode.String()))
	sub := m.Sum(nil)
	ck := &codecKey{id: k.ID, aad: []byte(sealedPrefix + k.ID)}
	if mode == Signed {
		ck.macs.New = func() any { return hmac.New(sha256.New, sub) }
		return ck, nil
	}
	block, err := aes.NewCipher(sub)
	if err != nil {
		return nil, err
	}
	if ck.aead, err = cipher.NewGCM(block); err != nil {
		return nil, err
	}
	return ck, nil
}

package replay

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"
)

// DefaultMaxEntries bounds a [Memory] store whose MaxEntries is zero.
const DefaultMaxEntries = 1 << 20

// MemoryOptions configures [NewMemory].
type MemoryOptions struct {
	// MaxEntries is the most nonces kept at once (DefaultMaxEntries if zero).
	// When the store is full of live nonces, Claim fails with [ErrFull].
	MaxEntries int
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
	// Logger receives a warning, at most once a minute, while claims are
	// refused because the store is full (nothing is logged if nil).
	Logger *slog.Logger
}

// Memory is a [Store] held in this process's memory. It forgets everything when
// the process ends, so it suits a single server instance whose states expire
// within minutes. Expired nonces are forgotten as new ones arrive.
//
// It holds at most MaxEntries live nonces. When full it fails closed: Claim
// refuses with [ErrFull], so a single-use requestState cannot be opened (the
// client gets reqstate's internal error) until nonces expire. Size MaxEntries
// for the rate of single-use states times their TTL, and watch
// [Memory.FullRefusals] or the Logger's warning.
//
// Every claim costs the same small, constant work, full store or not: records
// hold no pointers (nothing for the garbage collector to scan however many
// there are), nonces are forgotten in the order they expire, and a full store
// looks at its records again only when the earliest of them has expired.
//
// The zero value is an empty store with the defaults, ready to use.
type Memory struct {
	mu   sync.Mutex
	seen map[nonceKey]int64 // expiry, Unix nanoseconds
	max  int
	now  func() time.Time
	// order holds the claims in the order they were made; claims mostly
	// expire in that order.
	order claimQueue
	// noneBefore is at most the earliest expiry among the records (known
	// after a sweep, lowered by every claim): until then a sweep would free
	// nothing, so a full store skips it.
	noneBefore int64
	logger     *slog.Logger
	full       uint64    // claims refused with ErrFull
	nextWarn   time.Time // when the next full-store warning may be logged
}

// nonceKey is a nonce as a Memory store keeps it: its length and its bytes
// when it fits, else a marker and a SHA-256 prefix of it (184 bits, so two
// nonces share a key with negligible probability, and then the second is
// refused as used: the store errs on the closed side).
type nonceKey [24]byte

const hashedKey = 0xff // nonceKey[0] of a nonce too long to keep whole

func keyOf(nonce string) nonceKey {
	var k nonceKey
	if len(nonce) < len(k) {
		k[0] = byte(len(nonce))
		copy(k[1:], nonce)
		return k
	}
	sum := sha256.Sum256([]byte(nonce))
	k[0] = hashedKey
	copy(k[1:], sum[:])
	return k
}

// unixNano is t in Unix nanoseconds, clamped to the int64 range.
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return math.MinInt64
	case t.After(maxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// NewMemory returns an empty memory store.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{seen: make(map[nonceKey]int64), max: DefaultMaxEntries, now: time.Now, noneBefore: math.MinInt64}
	if opts != nil {
		if opts.MaxEntries > 0 {
			m.max = opts.MaxEntries
		}
		if opts.Now != nil {
			m.now = opts.Now
		}
		m.logger = opts.Logger
	}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	return m
}

// Claim records nonce until expiry. It fails with [ErrUsed] if nonce is
// already recorded and with [ErrFull] if the store holds MaxEntries live nonces.
func (m *Memory) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNonce(nonce); err != nil {
		return err
	}
	k, exp := keyOf(nonce), unixNano(expiry)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.initLocked()
	t := m.now()
	now := unixNano(t)
	if e, ok := m.seen[k]; ok && now < e {
		return fmt.Errorf("claim nonce: %w", ErrUsed)
	}
	m.expireOldestLocked(now)
	if len(m.seen) >= m.max && now >= m.noneBefore {
		m.sweepLocked(now)
	}
	if len(m.seen) >= m.max {
		m.full++
		if !t.Before(m.nextWarn) {
			m.logger.Warn("replay store full: single-use states are refused until nonces expire; raise MaxEntries",
				"max_entries", m.max, "refused_total", m.full)
			m.nextWarn = t.Add(time.Minute)
		}
		return fmt.Errorf("claim nonce: %w", ErrFull)
	}
	m.seen[k] = exp
	m.noneBefore = min(m.noneBefore, exp)
	m.order.push(claimed{k, exp})
	return nil
}

// claimed is a nonce in the order it was claimed.
type claimed struct {
	key    nonceKey
	expiry int64
}

// expireOldestLocked forgets the claims at the front of the claim order
// whose expiry has passed.
func (m *Memory) expireOldestLocked(now int64) {
	for m.order.len() > 0 && now >= m.order.front().expiry {
		c := m.order.front()
		if e, ok := m.seen[c.key]; ok && e == c.expiry {
			delete(m.seen, c.key)
		}
		m.order.pop()
	}
}

// initLocked gives a zero Memory its defaults.
func (m *Memory) initLocked() {
	if m.seen == nil {
		m.seen = make(map[nonceKey]int64)
		m.noneBefore = math.MinInt64
	}
	if m.max <= 0 {
		m.max = DefaultMaxEntries
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
}

// Len reports how many nonces the store holds, expired ones included until
// they are swept.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.seen)
}

// FullRefusals reports how many claims the store refused with [ErrFull] since
// it was made: a counter to export as a metric and alert on.
func (m *Memory) FullRefusals() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.full
}

// Sweep forgets every nonce whose expiry has passed.
func (m *Memory) Sweep() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.initLocked()
	m.sweepLocked(unixNano(m.now()))
}

// sweepLocked forgets every expired nonce and notes the earliest expiry of
// those left.
func (m *Memory) sweepLocked(now int64) {
	earliest := int64(math.MaxInt64)
	for k, e := range m.seen {
		if now >= e {
			delete(m.seen, k)
		} else {
			earliest = min(earliest, e)
		}
	}
	m.noneBefore = earliest
	m.order.keep(func(c claimed) bool {
		e, ok := m.seen[c.key]
		return ok && e == c.expiry
	})
}

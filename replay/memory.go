package replay

import (
	"context"
	"fmt"
	"log/slog"
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
// within minutes. Expired nonces are swept as new ones arrive.
//
// It holds at most MaxEntries live nonces. When full it fails closed: Claim
// refuses with [ErrFull], so a single-use requestState cannot be opened (the
// client gets reqstate's internal error) until nonces expire. Size MaxEntries
// for the rate of single-use states times their TTL, and watch
// [Memory.FullRefusals] or the Logger's warning.
//
// The zero value is an empty store with the defaults, ready to use.
type Memory struct {
	mu       sync.Mutex
	seen     map[string]time.Time
	max      int
	now      func() time.Time
	order    []claimed // claims in the order they were made, from head on
	head     int
	logger   *slog.Logger
	full     uint64    // claims refused with ErrFull
	nextWarn time.Time // when the next full-store warning may be logged
}

// NewMemory returns an empty memory store.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{seen: make(map[string]time.Time), max: DefaultMaxEntries, now: time.Now}
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
	m.mu.Lock()
	defer m.mu.Unlock()
	m.initLocked()
	now := m.now()
	if exp, ok := m.seen[nonce]; ok && now.Before(exp) {
		return fmt.Errorf("claim nonce: %w", ErrUsed)
	}
	// Drop the oldest claims that have expired (claims mostly expire in the
	// order they were made), and sweep everything when the store is full.
	m.expireOldestLocked(now)
	if len(m.seen) >= m.max {
		m.sweepLocked(now)
	}
	if len(m.seen) >= m.max {
		m.full++
		if !now.Before(m.nextWarn) {
			m.logger.Warn("replay store full: single-use states are refused until nonces expire; raise MaxEntries",
				"max_entries", m.max, "refused_total", m.full)
			m.nextWarn = now.Add(time.Minute)
		}
		return fmt.Errorf("claim nonce: %w", ErrFull)
	}
	m.seen[nonce] = expiry
	m.order = append(m.order, claimed{nonce, expiry})
	return nil
}

// claimed is a nonce in the order it was claimed.
type claimed struct {
	nonce  string
	expiry time.Time
}

// expireOldestLocked forgets the claims at the front of the claim order
// whose expiry has passed.
func (m *Memory) expireOldestLocked(now time.Time) {
	for m.head < len(m.order) && !now.Before(m.order[m.head].expiry) {
		c := m.order[m.head]
		if exp, ok := m.seen[c.nonce]; ok && exp.Equal(c.expiry) {
			delete(m.seen, c.nonce)
		}
		m.order[m.head] = claimed{}
		m.head++
	}
	if m.head > 1024 && m.head > len(m.order)/2 {
		m.order = append(m.order[:0], m.order[m.head:]...)
		m.head = 0
	}
}

// initLocked gives a zero Memory its defaults.
func (m *Memory) initLocked() {
	if m.seen == nil {
		m.seen = make(map[string]time.Time)
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
	m.sweepLocked(m.now())
}

func (m *Memory) sweepLocked(now time.Time) {
	for n, exp := range m.seen {
		if !now.Before(exp) {
			delete(m.seen, n)
		}
	}
	live := m.order[:0]
	for _, c := range m.order[m.head:] {
		if exp, ok := m.seen[c.nonce]; ok && exp.Equal(c.expiry) {
			live = append(live, c)
		}
	}
	clear(m.order[len(live):])
	m.order, m.head = live, 0
}

package replay

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"runtime"
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
	// MaxPerUser is the most nonces kept at once for one user of
	// [Memory.ClaimUser] (DefaultMaxPerUser(MaxEntries) if zero): beyond
	// it, that user's claims fail with [ErrUserFull] while other users
	// still claim. Anonymous callers (user "") share one allowance; set
	// MaxPerUser to MaxEntries to bound a server without authentication in
	// total only.
	MaxPerUser int
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
	// Logger receives a warning, at most once a minute, while claims are
	// refused because the store is full, and another while claims are
	// refused because a user's allowance is (nothing is logged if nil).
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
// Claims made with [Memory.ClaimUser] (reqstate makes them so) are also
// bounded per user: a user who holds MaxPerUser live nonces is refused with
// [ErrUserFull] ([Memory.UserFullRefusals] counts it) while everyone else
// still claims, and a user holding more than a few cannot take the last
// tenth of the places ([ReservedEntries]), kept for newcomers. A nonce
// counts against its user, as against the total, until
// the store forgets it: at its expiry, or — when it expires before a nonce
// claimed earlier, which reqstate's states of different ages do — once
// every nonce claimed before it has expired or the store is swept. For
// reqstate that is within TTL + 2×MaxSkew of the claim. A user's count is
// dropped with the user's last nonce, so the counts take room only for
// users who hold live nonces.
//
// Every claim costs the same small, constant work, full store or not, its
// user at the bound or not: records hold no pointers (nothing for the garbage
// collector to scan however many there are), nonces are forgotten in the
// order they expire, and a full store looks at its records again only when
// the earliest of them has expired. A live nonce takes about 43 bytes, and
// on Linux, macOS and the BSDs none of them on the collected heap: the
// records are kept in memory mapped from the system (BenchmarkMemoryRetained
// reads what is left on the heap, well under a byte a nonce), because every
// byte of heap a small server keeps is a byte less for its garbage before the
// next collection. Elsewhere they are kept on the heap.
//
// The zero value is an empty store with the defaults, ready to use.
type Memory struct {
	mu sync.Mutex
	// seen finds each nonce held by the sequence number of its claim in
	// order, which keeps its key, expiry and user: about 9 bytes in the
	// index and 32 in the order, about 43 bytes a live nonce in all, both
	// kept outside the collected heap where the system maps memory (see
	// outside).
	seen    nonceIndex
	max     int
	perUser int
	now     func() time.Time
	// users numbers the users who hold live nonces; their counts are in
	// slots, by number (slot 0 is no user, the nonces of Claim). A slot
	// whose count drops to zero is forgotten and its number reused.
	users map[string]uint32
	slots []userSlot
	free  []uint32
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
	userFull   uint64    // claims refused with ErrUserFull
	nextUser   time.Time // when the next full-user warning may be logged
}

// userSlot counts the live nonces of one user.
type userSlot struct {
	user string
	n    int
}

// nonceKey is a user's name as a [Bolt] file keys its count: its length and
// its bytes when it fits, else a marker and a SHA-256 prefix of it.
type nonceKey [24]byte

const hashedKey = 0xff // the first byte of a key of a name too long to keep whole

func keyOf(nonce string) nonceKey {
	var k nonceKey
	fillKey(k[:], nonce)
	return k
}

// fillKey writes nonce into k as a key: its length and its bytes when it
// fits, else hashedKey and as much of its SHA-256 as k holds.
func fillKey(k []byte, nonce string) {
	if len(nonce) < len(k) {
		k[0] = byte(len(nonce))
		copy(k[1:], nonce)
		return
	}
	sum := sha256.Sum256([]byte(nonce))
	k[0] = hashedKey
	copy(k[1:], sum[:])
}

// memKey is a nonce as a Memory store keeps it: its length and its bytes
// when it fits, else a marker and a SHA-256 prefix of it (120 bits: two
// nonces share a key with negligible probability, the more so as a
// caller who could choose nonces would have to find one that collides with
// another caller's, unknown to it; and then the second is refused as used:
// the store errs on the closed side). reqstate's nonces (22 characters) are
// hashed: 16 bytes a key rather than 24 make the map a sixth smaller.
type memKey [16]byte

func memKeyOf(nonce string) memKey {
	var k memKey
	fillKey(k[:], nonce)
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
	m := &Memory{seen: nonceIndex{seed: maphash.MakeSeed()}, max: DefaultMaxEntries, now: time.Now, noneBefore: math.MinInt64}
	if opts != nil {
		if opts.MaxEntries > 0 {
			m.max = opts.MaxEntries
		}
		if opts.MaxPerUser > 0 {
			m.perUser = opts.MaxPerUser
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

// Claim records nonce until expiry, for no user (it counts towards the
// total only). It fails with [ErrUsed] if nonce is already recorded and
// with [ErrFull] if the store holds MaxEntries live nonces.
func (m *Memory) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	return m.claim(ctx, false, "", nonce, expiry)
}

// ClaimUser records nonce until expiry for user ("" for anonymous callers,
// who share one allowance). It fails as Claim does, and with [ErrUserFull]
// if user holds MaxPerUser live nonces.
func (m *Memory) ClaimUser(ctx context.Context, user, nonce string, expiry time.Time) error {
	return m.claim(ctx, true, user, nonce, expiry)
}

// checkHeldLocked refuses the nonce k if it is held and live at now; a
// held nonce that expired but is not forgotten yet is forgotten now (its
// claim stays in the order until it reaches the front, and is skipped
// then).
func (m *Memory) checkHeldLocked(k memKey, now int64) error {
	i := m.seen.find(k, &m.order)
	if i < 0 {
		return nil
	}
	r := m.order.at(m.seen.seq[i])
	if now < r.expiry {
		return fmt.Errorf("claim nonce: %w", ErrUsed)
	}
	m.seen.remove(i, &m.order)
	m.releaseLocked(r.user)
	return nil
}

// refuseUserLocked counts, and at t warns (once a minute) of, a claim
// refused because its user holds MaxPerUser nonces.
func (m *Memory) refuseUserLocked(t time.Time) error {
	m.userFull++
	if !t.Before(m.nextUser) {
		m.logger.Warn("replay store: a user holds as many nonces as one user may; that user's single-use states are refused until they expire; raise MaxPerUser",
			"max_per_user", m.perUser, "refused_total", m.userFull)
		m.nextUser = t.Add(time.Minute)
	}
	return fmt.Errorf("claim nonce: %d live nonces of this user (MaxPerUser): %w", m.perUser, ErrUserFull)
}

// refuseFullLocked counts, and at t warns (once a minute) of, a claim
// refused because the store is full.
func (m *Memory) refuseFullLocked(t time.Time) error {
	m.full++
	if !t.Before(m.nextWarn) {
		m.logger.Warn("replay store full: single-use states are refused until nonces expire; raise MaxEntries",
			"max_entries", m.max, "refused_total", m.full)
		m.nextWarn = t.Add(time.Minute)
	}
	return fmt.Errorf("claim nonce: %w", ErrFull)
}

func (m *Memory) claim(ctx context.Context, owned bool, user, nonce string, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNonce(nonce); err != nil {
		return err
	}
	k, exp := memKeyOf(nonce), unixNano(expiry)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.initLocked()
	t := m.now()
	now := unixNano(t)
	if err := m.checkHeldLocked(k, now); err != nil {
		return err
	}
	m.expireOldestLocked(now)
	// The user's bound first: a user at it is refused at no further cost.
	var id uint32
	if owned {
		id = m.users[user]
		if id != 0 && m.slots[id].n >= m.perUser {
			return m.refuseUserLocked(t)
		}
	}
	limit := m.fullAtLocked(owned, id)
	if m.seen.len() >= limit && now >= m.noneBefore {
		m.sweepLocked(now)
		if owned {
			id = m.users[user] // the sweep may have forgotten the user
		}
		limit = m.fullAtLocked(owned, id)
	}
	if m.seen.len() >= limit {
		return m.refuseFullLocked(t)
	}
	if owned {
		if id == 0 {
			id = m.addUserLocked(user)
		}
		m.slots[id].n++
	}
	m.seen.insert(k, m.order.push(claimed{key: k, expiry: exp, user: id}), &m.order)
	m.noneBefore = min(m.noneBefore, exp)
	return nil
}

// fullAtLocked is the number of live nonces at which a claim (by the user in
// slot id when owned) is refused as full: the reserved places are for users
// holding few (ReservedEntries).
func (m *Memory) fullAtLocked(owned bool, id uint32) int {
	held := -1
	if owned {
		held = 0
		if id != 0 {
			held = int(m.slots[id].n)
		}
	}
	return fullAt(m.max, m.perUser, held)
}

// addUserLocked gives user, who holds no live nonce, a slot with a count of
// zero and returns its number.
func (m *Memory) addUserLocked(user string) uint32 {
	var id uint32
	if n := len(m.free); n > 0 {
		id = m.free[n-1]
		m.free = m.free[:n-1]
		m.slots[id] = userSlot{user: user}
	} else {
		if len(m.slots) == 0 {
			m.slots = append(m.slots, userSlot{}) // slot 0: no user
		}
		id = uint32(len(m.slots))
		m.slots = append(m.slots, userSlot{user: user})
	}
	m.users[user] = id
	return id
}

// releaseLocked counts one nonce of the user in slot id (0: none) less,
// forgetting the user at zero.
func (m *Memory) releaseLocked(id uint32) {
	if id == 0 {
		return
	}
	s := &m.slots[id]
	if s.n--; s.n == 0 {
		delete(m.users, s.user)
		*s = userSlot{}
		m.free = append(m.free, id)
	}
}

// claimed is a claim in the order it was made: the nonce, its expiry in
// Unix nanoseconds and the slot of its user (0 for none).
type claimed struct {
	key    memKey
	expiry int64
	user   uint32
}

// expireOldestLocked forgets the claims at the front of the claim order
// whose expiry has passed.
func (m *Memory) expireOldestLocked(now int64) {
	for m.order.len() > 0 && now >= m.order.front().expiry {
		c := m.order.front()
		if i := m.seen.find(c.key, &m.order); i >= 0 && m.seen.seq[i] == m.order.first {
			m.seen.remove(i, &m.order)
			m.releaseLocked(c.user)
		}
		m.order.pop()
	}
}

// initLocked gives a zero Memory its defaults.
func (m *Memory) initLocked() {
	if m.seen.seed == (maphash.Seed{}) {
		m.seen.seed = maphash.MakeSeed()
		m.noneBefore = math.MinInt64
	}
	if m.users == nil {
		m.users = make(map[string]uint32)
	}
	if m.order.mem == nil {
		// The claim order and the index are kept outside the collected
		// heap (see outside), and returned when the store is collected.
		o := newOutside()
		m.order.mem, m.seen.mem = o, o
		runtime.AddCleanup(m, (*outside).release, o)
	}
	if m.max <= 0 {
		m.max = DefaultMaxEntries
	}
	if m.perUser <= 0 {
		m.perUser = DefaultMaxPerUser(m.max)
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
	return m.seen.len()
}

// FullRefusals reports how many claims the store refused with [ErrFull] since
// it was made: a counter to export as a metric and alert on. Refusals of a
// user over MaxPerUser are not counted here but in [Memory.UserFullRefusals].
func (m *Memory) FullRefusals() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.full
}

// UserFullRefusals reports how many claims the store refused with
// [ErrUserFull] since it was made.
func (m *Memory) UserFullRefusals() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.userFull
}

// HeldBy reports how many nonces the store holds for user (claimed with
// [Memory.ClaimUser]), expired ones included until they are forgotten.
func (m *Memory) HeldBy(user string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id := m.users[user]; id != 0 {
		return m.slots[id].n
	}
	return 0
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
	// The claims of the nonces held and live, in their order, numbered
	// anew: a claim whose nonce was claimed again later is dropped, and so
	// is an expired one, whose user holds one nonce less.
	m.order.keep(func(c claimed, seq uint32) bool {
		if i := m.seen.find(c.key, &m.order); i < 0 || m.seen.seq[i] != seq {
			return false
		}
		if now >= c.expiry {
			m.releaseLocked(c.user)
			return false
		}
		earliest = min(earliest, c.expiry)
		return true
	})
	m.noneBefore = earliest
	m.seen.rebuild(&m.order)
}

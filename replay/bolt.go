package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The buckets of a Bolt file: the nonces (nonce → expiry, 8 bytes, Unix
// nanoseconds), the same nonces in expiry order (expiry, 8 bytes ordered as
// unsigned, then the nonce → the user's key, empty for none) and the
// users' counts (user key → count, 8 bytes, only while above zero).
var (
	boltBucket = []byte("replay-nonces")
	boltExpiry = []byte("replay-expiry")
	boltUsers  = []byte("replay-users")
)

// BoltOptions configures [OpenBolt].
type BoltOptions struct {
	// Timeout bounds the wait for the file lock held by another process
	// (default one second).
	Timeout time.Duration
	// SweepEvery is ignored: every claim forgets the nonces that have
	// expired, in expiry order, so the file needs no periodic sweep.
	//
	// Deprecated: has no effect.
	SweepEvery int
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
	// MaxEntries is the most nonces the file keeps (DefaultMaxEntries if
	// zero). When it holds that many live nonces, Claim fails with [ErrFull].
	MaxEntries int
	// MaxPerUser is the most nonces the file keeps for one user of
	// [Bolt.ClaimUser] (DefaultMaxPerUser(MaxEntries) if zero): beyond it,
	// that user's claims fail with [ErrUserFull] while other users still
	// claim. Anonymous callers (user "") share one allowance; set
	// MaxPerUser to MaxEntries to bound a server without authentication in
	// total only.
	MaxPerUser int
}

// Bolt is a [Store] kept in a bbolt file, so claimed nonces survive a restart.
// One process at a time may hold the file open. Open it with [OpenBolt]; the
// zero Bolt is not usable.
//
// It is bounded as [Memory] is, in total and, for claims made with
// [Bolt.ClaimUser], per user; the users' counts are kept in the file with
// the nonces, in the same transaction, so they stay exact across restarts.
// Each claim first forgets the nonces whose expiry has passed, in expiry
// order from an index kept in the file, so counts never include an expired
// nonce and a claim's work does not grow with the number of nonces held
// (beyond bbolt's own lookups). A file written before the index existed
// is indexed when opened; its nonces count towards the total only.
type Bolt struct {
	db      *bolt.DB
	now     func() time.Time
	max     int
	perUser int
	entries int // nonces in the file; guarded by the bolt write transaction
}

// OpenBolt opens (creating if needed) the store in the file at path.
func OpenBolt(path string, opts *BoltOptions) (*Bolt, error) {
	o := BoltOptions{Timeout: time.Second, Now: time.Now}
	if opts != nil {
		if opts.Timeout > 0 {
			o.Timeout = opts.Timeout
		}
		if opts.Now != nil {
			o.Now = opts.Now
		}
		o.MaxEntries, o.MaxPerUser = opts.MaxEntries, opts.MaxPerUser
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.Timeout})
	if err != nil {
		return nil, fmt.Errorf("open replay store %s: %w", path, err)
	}
	b := &Bolt{db: db, now: o.Now, max: DefaultMaxEntries}
	if o.MaxEntries > 0 {
		b.max = o.MaxEntries
	}
	b.perUser = DefaultMaxPerUser(b.max)
	if o.MaxPerUser > 0 {
		b.perUser = o.MaxPerUser
	}
	if err := db.Update(b.prepare); err != nil {
		db.Close()
		return nil, fmt.Errorf("open replay store %s: %w", path, err)
	}
	return b, nil
}

// prepare creates the buckets, indexes a file that has nonces without an
// index (written before it existed, or by an older version since), and
// counts the nonces.
func (b *Bolt) prepare(tx *bolt.Tx) error {
	bk, err := tx.CreateBucketIfNotExists(boltBucket)
	if err != nil {
		return err
	}
	idx := tx.Bucket(boltExpiry)
	b.entries = bk.Stats().KeyN
	if idx != nil && idx.Stats().KeyN == b.entries {
		_, err := tx.CreateBucketIfNotExists(boltUsers)
		return err
	}
	return b.reindex(tx, bk)
}

// reindex makes the expiry index and the users' counts again from the
// nonces of bk, dropping the ones that are not well formed.
func (b *Bolt) reindex(tx *bolt.Tx, bk *bolt.Bucket) error {
	// Index every nonce again, for no user: whose they were is not known,
	// so they count towards the total only until they expire.
	for _, name := range [][]byte{boltExpiry, boltUsers} {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
	}
	idx, err := tx.CreateBucket(boltExpiry)
	if err != nil {
		return err
	}
	if _, err := tx.CreateBucket(boltUsers); err != nil {
		return err
	}
	var bad [][]byte
	err = bk.ForEach(func(k, v []byte) error {
		if len(v) != 8 {
			bad = append(bad, append([]byte(nil), k...))
			return nil
		}
		return idx.Put(expiryKey(int64(binary.BigEndian.Uint64(v)), k), nil)
	})
	if err != nil {
		return err
	}
	for _, k := range bad {
		if err := bk.Delete(k); err != nil {
			return err
		}
	}
	b.entries -= len(bad)
	return nil
}

// expiryKey is the key of a nonce in the expiry index: its expiry with the
// sign bit flipped (so that the byte order is the numeric order), then the
// nonce.
func expiryKey(expiry int64, nonce []byte) []byte {
	k := make([]byte, 8, 8+len(nonce))
	binary.BigEndian.PutUint64(k, uint64(expiry)^(1<<63))
	return append(k, nonce...)
}

// Claim records nonce until expiry in one write transaction, for no user
// (it counts towards the total only). It fails with [ErrUsed] if nonce is
// already recorded and has not expired, and with [ErrFull] if the file
// holds MaxEntries live nonces.
func (b *Bolt) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	return b.claim(ctx, false, "", nonce, expiry)
}

// ClaimUser records nonce until expiry for user ("" for anonymous callers,
// who share one allowance). It fails as Claim does, and with [ErrUserFull]
// if the file holds MaxPerUser live nonces of user.
func (b *Bolt) ClaimUser(ctx context.Context, user, nonce string, expiry time.Time) error {
	return b.claim(ctx, true, user, nonce, expiry)
}

func (b *Bolt) claim(ctx context.Context, owned bool, user, nonce string, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNonce(nonce); err != nil {
		return err
	}
	var owner []byte
	if owned {
		k := keyOf(user)
		owner = k[:]
	}
	exp := unixNano(expiry)
	var refused error
	err := b.db.Update(func(tx *bolt.Tx) error {
		var err error
		refused, err = b.claimIn(tx, owned, owner, []byte(nonce), exp)
		return err
	})
	if err != nil && !errors.Is(err, ErrUsed) {
		// The transaction rolled back: count the file again.
		_ = b.db.View(func(tx *bolt.Tx) error {
			b.entries = tx.Bucket(boltBucket).Stats().KeyN
			return nil
		})
	}
	if err == nil {
		err = refused
	}
	return err
}

// claimIn claims nonce n until exp, for owner if owned, in the write
// transaction tx. refused says why the claim is refused while what expired
// is still committed; err rolls the transaction back.
func (b *Bolt) claimIn(tx *bolt.Tx, owned bool, owner, n []byte, exp int64) (refused, err error) {
	now := unixNano(b.now())
	if old := tx.Bucket(boltBucket).Get(n); len(old) == 8 && now < int64(binary.BigEndian.Uint64(old)) {
		return nil, fmt.Errorf("claim nonce: %w", ErrUsed)
	}
	if err := b.expire(tx, now); err != nil {
		return nil, err
	}
	count, refused := b.admit(tx.Bucket(boltUsers), owned, owner)
	if refused != nil {
		return refused, nil // commit what expired, refuse the claim
	}
	return nil, b.record(tx, owned, owner, n, exp, count)
}

// admit returns how many live nonces owner holds (for an owned claim), or
// why a claim is refused: its user holds MaxPerUser nonces, or the file is
// full.
func (b *Bolt) admit(users *bolt.Bucket, owned bool, owner []byte) (uint64, error) {
	var count uint64
	held := -1
	if owned {
		if v := users.Get(owner); len(v) == 8 {
			count = binary.BigEndian.Uint64(v)
		}
		if count >= uint64(b.perUser) {
			return 0, fmt.Errorf("claim nonce: %d live nonces of this user (MaxPerUser): %w", b.perUser, ErrUserFull)
		}
		held = int(count)
	}
	if b.entries >= fullAt(b.max, b.perUser, held) {
		return 0, fmt.Errorf("claim nonce: %w", ErrFull)
	}
	return count, nil
}

// record writes nonce n with its expiry exp, its entry in the expiry
// index and, for an owned claim, its owner's count (count before it).
func (b *Bolt) record(tx *bolt.Tx, owned bool, owner, n []byte, exp int64, count uint64) error {
	bk := tx.Bucket(boltBucket)
	// An expired nonce left by a version without the index is replaced.
	existed := bk.Get(n) != nil
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(exp))
	if err := bk.Put(n, v[:]); err != nil {
		return fmt.Errorf("claim nonce: %w", err)
	}
	if err := tx.Bucket(boltExpiry).Put(expiryKey(exp, n), owner); err != nil {
		return fmt.Errorf("claim nonce: %w", err)
	}
	if owned {
		var c [8]byte
		binary.BigEndian.PutUint64(c[:], count+1)
		if err := tx.Bucket(boltUsers).Put(owner, c[:]); err != nil {
			return fmt.Errorf("claim nonce: %w", err)
		}
	}
	if !existed {
		b.entries++
	}
	return nil
}

// expire forgets, inside a write transaction, every nonce whose expiry is
// at or before now, earliest first, and counts it off its user.
func (b *Bolt) expire(tx *bolt.Tx, now int64) error {
	bk, idx, users := tx.Bucket(boltBucket), tx.Bucket(boltExpiry), tx.Bucket(boltUsers)
	c := idx.Cursor()
	for k, owner := c.First(); k != nil; k, owner = c.First() {
		exp := int64(binary.BigEndian.Uint64(k) ^ (1 << 63))
		if now < exp {
			return nil
		}
		k, owner = append([]byte(nil), k...), append([]byte(nil), owner...)
		nonce := k[8:]
		if v := bk.Get(nonce); len(v) == 8 && int64(binary.BigEndian.Uint64(v)) == exp {
			if err := bk.Delete(nonce); err != nil {
				return fmt.Errorf("forget expired nonce: %w", err)
			}
			b.entries--
		}
		if err := idx.Delete(k); err != nil {
			return fmt.Errorf("forget expired nonce: %w", err)
		}
		if len(owner) > 0 {
			if err := release(users, owner); err != nil {
				return err
			}
		}
	}
	return nil
}

// release counts one nonce of owner off in users, dropping owner at zero.
func release(users *bolt.Bucket, owner []byte) error {
	v := users.Get(owner)
	if len(v) != 8 || binary.BigEndian.Uint64(v) <= 1 {
		return users.Delete(owner)
	}
	var c [8]byte
	binary.BigEndian.PutUint64(c[:], binary.BigEndian.Uint64(v)-1)
	return users.Put(owner, c[:])
}

// Sweep deletes every nonce whose expiry has passed. Claims do so as they
// go; Sweep frees the room of a file that no claim has touched for a while.
func (b *Bolt) Sweep(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := b.db.Update(func(tx *bolt.Tx) error {
		return b.expire(tx, unixNano(b.now()))
	})
	if err != nil {
		_ = b.db.View(func(tx *bolt.Tx) error {
			b.entries = tx.Bucket(boltBucket).Stats().KeyN
			return nil
		})
	}
	return err
}

// Len reports how many nonces the file holds, expired ones included until
// they are forgotten.
func (b *Bolt) Len() (int, error) {
	n := 0
	err := b.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(boltBucket).Stats().KeyN
		return nil
	})
	return n, err
}

// HeldBy reports how many nonces the file holds for user (claimed with
// [Bolt.ClaimUser]), expired ones included until they are forgotten.
func (b *Bolt) HeldBy(user string) (int, error) {
	k := keyOf(user)
	n := 0
	err := b.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(boltUsers).Get(k[:]); len(v) == 8 {
			n = int(binary.BigEndian.Uint64(v))
		}
		return nil
	})
	return n, err
}

// Close closes the file.
func (b *Bolt) Close() error { return b.db.Close() }

package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

var boltBucket = []byte("replay-nonces")

// BoltOptions configures [OpenBolt].
type BoltOptions struct {
	// Timeout bounds the wait for the file lock held by another process
	// (default one second).
	Timeout time.Duration
	// SweepEvery is how many claims pass between sweeps of expired nonces
	// (default 1024).
	SweepEvery int
	// Now returns the current time (time.Now if nil).
	Now func() time.Time
	// MaxEntries is the most nonces the file keeps (DefaultMaxEntries if
	// zero). When it holds that many live nonces, Claim fails with [ErrFull].
	MaxEntries int
}

// Bolt is a [Store] kept in a bbolt file, so claimed nonces survive a restart.
// One process at a time may hold the file open. Open it with [OpenBolt]; the
// zero Bolt is not usable.
type Bolt struct {
	db         *bolt.DB
	now        func() time.Time
	sweepEvery int
	max        int
	claims     int // guarded by the bolt write transaction
	entries    int // nonces in the file; guarded by the bolt write transaction
}

// OpenBolt opens (creating if needed) the store in the file at path.
func OpenBolt(path string, opts *BoltOptions) (*Bolt, error) {
	o := BoltOptions{Timeout: time.Second, SweepEvery: 1024, Now: time.Now}
	if opts != nil {
		if opts.Timeout > 0 {
			o.Timeout = opts.Timeout
		}
		if opts.SweepEvery > 0 {
			o.SweepEvery = opts.SweepEvery
		}
		if opts.Now != nil {
			o.Now = opts.Now
		}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.Timeout})
	if err != nil {
		return nil, fmt.Errorf("open replay store %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(boltBucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("open replay store %s: %w", path, err)
	}
	b := &Bolt{db: db, now: o.Now, sweepEvery: o.SweepEvery, max: DefaultMaxEntries}
	if opts != nil && opts.MaxEntries > 0 {
		b.max = opts.MaxEntries
	}
	if b.entries, err = b.Len(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open replay store %s: %w", path, err)
	}
	return b, nil
}

// Claim records nonce until expiry in one write transaction. It fails with
// [ErrUsed] if nonce is already recorded and has not expired.
func (b *Bolt) Claim(ctx context.Context, nonce string, expiry time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNonce(nonce); err != nil {
		return err
	}
	full := false
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltBucket)
		now := b.now()
		old := bk.Get([]byte(nonce))
		if len(old) == 8 && now.UnixNano() < int64(binary.BigEndian.Uint64(old)) {
			return fmt.Errorf("claim nonce: %w", ErrUsed)
		}
		if old == nil && b.entries >= b.max {
			if err := b.sweep(bk, now); err != nil {
				return err
			}
			if b.entries >= b.max {
				full = true // commit the sweep, refuse the claim
				return nil
			}
		}
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], uint64(expiry.UnixNano()))
		if err := bk.Put([]byte(nonce), v[:]); err != nil {
			return fmt.Errorf("claim nonce: %w", err)
		}
		if old == nil {
			b.entries++
		}
		b.claims++
		if b.claims%b.sweepEvery == 0 {
			return b.sweep(bk, now)
		}
		return nil
	})
	switch {
	case err != nil && !errors.Is(err, ErrUsed):
		// The transaction rolled back, sweep included: count the file again.
		_ = b.db.Update(func(tx *bolt.Tx) error {
			b.entries = tx.Bucket(boltBucket).Stats().KeyN
			return nil
		})
	case full:
		return fmt.Errorf("claim nonce: %w", ErrFull)
	}
	return err
}

// sweep deletes expired nonces inside a write transaction and recounts.
func (b *Bolt) sweep(bk *bolt.Bucket, now time.Time) error {
	n, err := sweepBucket(bk, now)
	b.entries -= n
	return err
}

// Sweep deletes every nonce whose expiry has passed.
func (b *Bolt) Sweep(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		return b.sweep(tx.Bucket(boltBucket), b.now())
	})
}

// Len reports how many nonces the file holds, expired ones included until
// they are swept.
func (b *Bolt) Len() (int, error) {
	n := 0
	err := b.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(boltBucket).Stats().KeyN
		return nil
	})
	return n, err
}

// Close closes the file.
func (b *Bolt) Close() error { return b.db.Close() }

// sweepBucket deletes the expired nonces of bk and says how many.
func sweepBucket(bk *bolt.Bucket, now time.Time) (int, error) {
	var dead [][]byte
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(v) != 8 || now.UnixNano() >= int64(binary.BigEndian.Uint64(v)) {
			dead = append(dead, append([]byte(nil), k...))
		}
	}
	for i, k := range dead {
		if err := bk.Delete(k); err != nil {
			return i, fmt.Errorf("sweep replay store: %w", err)
		}
	}
	return len(dead), nil
}

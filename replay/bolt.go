package replay

import (
	"context"
	"encoding/binary"
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
}

// Bolt is a [Store] kept in a bbolt file, so claimed nonces survive a restart.
// One process at a time may hold the file open. Open it with [OpenBolt]; the
// zero Bolt is not usable.
type Bolt struct {
	db         *bolt.DB
	now        func() time.Time
	sweepEvery int
	claims     int // guarded by the bolt write transaction
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
	return &Bolt{db: db, now: o.Now, sweepEvery: o.SweepEvery}, nil
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
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(boltBucket)
		now := b.now()
		if v := bk.Get([]byte(nonce)); len(v) == 8 {
			if now.UnixNano() < int64(binary.BigEndian.Uint64(v)) {
				return fmt.Errorf("claim nonce: %w", ErrUsed)
			}
		}
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], uint64(expiry.UnixNano()))
		if err := bk.Put([]byte(nonce), v[:]); err != nil {
			return fmt.Errorf("claim nonce: %w", err)
		}
		b.claims++
		if b.claims%b.sweepEvery == 0 {
			return sweepBucket(bk, now)
		}
		return nil
	})
	return err
}

// Sweep deletes every nonce whose expiry has passed.
func (b *Bolt) Sweep(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		return sweepBucket(tx.Bucket(boltBucket), b.now())
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

func sweepBucket(bk *bolt.Bucket, now time.Time) error {
	var dead [][]byte
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(v) != 8 || now.UnixNano() >= int64(binary.BigEndian.Uint64(v)) {
			dead = append(dead, append([]byte(nil), k...))
		}
	}
	for _, k := range dead {
		if err := bk.Delete(k); err != nil {
			return fmt.Errorf("sweep replay store: %w", err)
		}
	}
	return nil
}

package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

var boltBucket = []byte("tasks")

// BoltStoreOptions configure [OpenBoltStore]; nil means the defaults.
type BoltStoreOptions struct {
	// Timeout bounds the wait for the file lock. Default 1s.
	Timeout time.Duration
	// Now is the clock used to drop expired records. Default time.Now.
	Now func() time.Time
}

// BoltStore is a [Store] in a bbolt file: task records and results survive a
// restart of the server. The file is locked by the process that opens it, so
// the store is never shared between server instances; a task that was running
// when its process died is failed as interrupted the next time a client asks
// for it. Open it with [OpenBoltStore]; the zero BoltStore is not usable.
type BoltStore struct {
	db  *bolt.DB
	now func() time.Time

	mu      sync.Mutex
	creates int
}

var _ Store = (*BoltStore)(nil)

// OpenBoltStore opens (creating if needed) the store in the file at path and
// drops the records whose TTL has elapsed.
func OpenBoltStore(path string, opts *BoltStoreOptions) (*BoltStore, error) {
	var o BoltStoreOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.Timeout})
	if err != nil {
		return nil, fmt.Errorf("open task store %s: %w (is another server using it?)", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(boltBucket)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open task store %s: %w", path, err)
	}
	s := &BoltStore{db: db, now: o.Now}
	if err := s.sweep(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the file.
func (s *BoltStore) Close() error { return s.db.Close() }

// sweepEvery is how many creations pass between two sweeps.
const boltSweepEvery = 256

// sweep deletes expired records.
func (s *BoltStore) sweep() error {
	now := s.now()
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		var expired [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var r Record
			if json.Unmarshal(v, &r) != nil || r.Expired(now) {
				expired = append(expired, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range expired {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop expired tasks: %w", err)
	}
	return nil
}

// Create implements tasks.Store.
func (s *BoltStore) Create(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", rec.ID, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		if b.Get([]byte(rec.ID)) != nil {
			return ErrExists
		}
		return b.Put([]byte(rec.ID), data)
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.creates++
	due := s.creates%boltSweepEvery == 0
	s.mu.Unlock()
	if due {
		return s.sweep()
	}
	return nil
}

// Get implements tasks.Store.
func (s *BoltStore) Get(ctx context.Context, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rec *Record
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		rec, err = decodeBolt(tx.Bucket(boltBucket).Get([]byte(id)), id)
		return err
	})
	return rec, err
}

func decodeBolt(data []byte, id string) (*Record, error) {
	if data == nil {
		return nil, ErrNotFound
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", id, err)
	}
	return &r, nil
}

// Update implements tasks.Store.
func (s *BoltStore) Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rec *Record
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		r, err := decodeBolt(b.Get([]byte(id)), id)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
		r.ID = id
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode task %s: %w", id, err)
		}
		rec = r
		return b.Put([]byte(id), data)
	})
	if err != nil {
		return nil, err
	}
	return rec.Clone(), nil
}

// Delete implements tasks.Store.
func (s *BoltStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(boltBucket).Delete([]byte(id))
	})
}

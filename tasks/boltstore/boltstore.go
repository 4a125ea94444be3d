// Package boltstore is a tasks.Store in a bbolt file: task records and
// results survive a restart of the server. The file is locked by the process
// that opens it, so the store is never shared between server instances; a
// task that was running when its process died is failed as interrupted the
// next time a client asks for it.
package boltstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/askback/askback/tasks"
	bolt "go.etcd.io/bbolt"
)

var bucket = []byte("tasks")

// Options configure [Open].
type Options struct {
	// Timeout bounds the wait for the file lock. Default 1s.
	Timeout time.Duration
	// Now is the clock used to drop expired records. Default time.Now.
	Now func() time.Time
}

// Store is a tasks.Store backed by a bbolt file.
type Store struct {
	db  *bolt.DB
	now func() time.Time

	mu      sync.Mutex
	creates int
}

var _ tasks.Store = (*Store)(nil)

// Open opens (creating if needed) the store at path and drops the records
// whose TTL has elapsed.
func Open(path string, opts *Options) (*Store, error) {
	var o Options
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
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open task store %s: %w", path, err)
	}
	s := &Store{db: db, now: o.Now}
	if err := s.sweep(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// sweepEvery is how many creations pass between two sweeps.
const sweepEvery = 256

// sweep deletes expired records.
func (s *Store) sweep() error {
	now := s.now()
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		var expired [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var r tasks.Record
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
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", rec.ID, err)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		if b.Get([]byte(rec.ID)) != nil {
			return tasks.ErrExists
		}
		return b.Put([]byte(rec.ID), data)
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.creates++
	due := s.creates%sweepEvery == 0
	s.mu.Unlock()
	if due {
		return s.sweep()
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rec *tasks.Record
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		rec, err = decode(tx.Bucket(bucket).Get([]byte(id)), id)
		return err
	})
	return rec, err
}

func decode(data []byte, id string) (*tasks.Record, error) {
	if data == nil {
		return nil, tasks.ErrNotFound
	}
	var r tasks.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", id, err)
	}
	return &r, nil
}

// Update implements tasks.Store.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var rec *tasks.Record
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		r, err := decode(b.Get([]byte(id)), id)
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
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).Delete([]byte(id))
	})
}

package tasks

import (
	"context"
	"encoding/json"
	"errors"
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
	// Limits bound what the file keeps of live tasks, in total and per
	// user; zero fields take their defaults.
	Limits StoreLimits
}

// BoltStore is a [Store] in a bbolt file: task records and results survive a
// restart of the server. The file is locked by the process that opens it, so
// the store is never shared between server instances; a task that was running
// when its process died is failed as interrupted the next time a client asks
// for it. It is bounded by BoltStoreOptions.Limits, in total and per user
// (Create and Update fail with [ErrStoreFull] or [ErrUserStoreFull]). Open it
// with [OpenBoltStore]; the zero BoltStore is not usable.
type BoltStore struct {
	db  *bolt.DB
	now func() time.Time

	// mu serialises the writes, so that the ledger agrees with the file.
	mu      sync.Mutex
	ledger  *ledger
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
	s := &BoltStore{db: db, now: o.Now, ledger: newLedger(o.Limits)}
	if err := s.load(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the file.
func (s *BoltStore) Close() error { return s.db.Close() }

// boltSweepEvery is how many creations pass between two sweeps.
const boltSweepEvery = 256

// load deletes expired and unreadable records and counts the others.
func (s *BoltStore) load() error {
	now := s.now()
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		var drop [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var r Record
			if json.Unmarshal(v, &r) != nil || r.Expired(now) {
				drop = append(drop, append([]byte(nil), k...))
				return nil
			}
			s.ledger.add(string(k), entryOf(&r))
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range drop {
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

// sweepLocked deletes the records whose TTL has elapsed; s.mu is held.
func (s *BoltStore) sweepLocked() error {
	ids := s.ledger.expired(s.now())
	if len(ids) == 0 {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		for _, id := range ids {
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop expired tasks: %w", err)
	}
	for _, id := range ids {
		s.ledger.remove(id)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creates++
	err = s.ledger.admit(rec)
	if s.creates%boltSweepEvery == 0 || err != nil {
		if serr := s.sweepLocked(); serr != nil {
			return serr
		}
		err = s.ledger.admit(rec)
	}
	var givenUp []string
	if errors.Is(err, ErrStoreFull) && !errors.Is(err, ErrUserStoreFull) {
		if givenUp = s.ledger.makeRoom(rec); givenUp != nil {
			err = nil
		}
	}
	if err != nil {
		return err
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(boltBucket)
		if b.Get([]byte(rec.ID)) != nil {
			return ErrExists
		}
		for _, id := range givenUp {
			if err := b.Delete([]byte(id)); err != nil {
				return err
			}
		}
		return b.Put([]byte(rec.ID), data)
	})
	if err != nil {
		return err
	}
	for _, id := range givenUp {
		s.ledger.remove(id)
	}
	s.ledger.add(rec.ID, entryOf(rec))
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
	s.mu.Lock()
	defer s.mu.Unlock()
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
		if err := s.ledger.resize(id, r); err != nil {
			return err
		}
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
	if _, counted := s.ledger.entries[id]; counted {
		s.ledger.add(id, entryOf(rec))
	}
	return rec.Clone(), nil
}

// Delete implements tasks.Store.
func (s *BoltStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(boltBucket).Delete([]byte(id))
	})
	if err == nil {
		s.ledger.remove(id)
	}
	return err
}

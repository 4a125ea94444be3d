package tasks

import (
	"context"
	"errors"
	"sync"
	"time"
)

// MemoryStoreOptions configure [NewMemoryStore]; nil means the defaults.
type MemoryStoreOptions struct {
	// Limits bound what the store keeps, in total and per user; zero fields
	// take their defaults.
	Limits StoreLimits
	// Now is the clock used to drop expired records. Default time.Now.
	Now func() time.Time
}

// MemoryStore is a [Store] that keeps records in memory: the default, for a
// single server process whose tasks need not survive it. Expired records are
// dropped as new ones are created. It is bounded by
// MemoryStoreOptions.Limits, in total (DefaultMemoryStoreBytes) and for
// each user; beyond them Create and Update fail with [ErrStoreFull] or
// [ErrUserStoreFull]. The zero value is an empty store with the default
// limits, ready to use.
type MemoryStore struct {
	limits StoreLimits
	now    func() time.Time

	mu      sync.Mutex
	records map[string]*Record
	ledger  *ledger
	creates int
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts *MemoryStoreOptions) *MemoryStore {
	s := &MemoryStore{now: time.Now, records: map[string]*Record{}}
	if opts != nil {
		s.limits = opts.Limits
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	return s
}

// sweepEvery is how many creations pass between two sweeps of expired records.
const sweepEvery = 64

// initLocked makes the zero value usable; s.mu is held.
func (s *MemoryStore) initLocked() {
	if s.records == nil {
		s.records = map[string]*Record{}
	}
	if s.ledger == nil {
		s.ledger = newLedger(s.limits)
	}
}

// Create implements [Store].
func (s *MemoryStore) Create(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	if _, ok := s.records[rec.ID]; ok {
		return ErrExists
	}
	s.creates++
	err := s.ledger.admit(rec)
	if s.creates%sweepEvery == 0 || err != nil {
		s.sweepLocked()
		err = s.ledger.admit(rec)
	}
	if errors.Is(err, ErrStoreFull) && !errors.Is(err, ErrUserStoreFull) {
		if ids := s.ledger.makeRoom(rec); ids != nil {
			for _, id := range ids {
				delete(s.records, id)
				s.ledger.remove(id)
			}
			err = s.ledger.admit(rec)
		}
	}
	if err != nil {
		return err
	}
	s.records[rec.ID] = rec.Clone()
	s.ledger.add(rec.ID, entryOf(rec))
	return nil
}

func (s *MemoryStore) sweepLocked() {
	now := time.Now()
	if s.now != nil {
		now = s.now()
	}
	for _, id := range s.ledger.expired(now) {
		delete(s.records, id)
		s.ledger.remove(id)
	}
}

// Get implements [Store].
func (s *MemoryStore) Get(ctx context.Context, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[id]
	if !ok {
		return nil, ErrNotFound
	}
	return r.Clone(), nil
}

// Update implements [Store].
func (s *MemoryStore) Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	r, ok := s.records[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID = id
	if err := s.ledger.resize(id, c); err != nil {
		return nil, err
	}
	s.records[id] = c
	s.ledger.add(id, entryOf(c))
	return c.Clone(), nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initLocked()
	delete(s.records, id)
	s.ledger.remove(id)
	return nil
}

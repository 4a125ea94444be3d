package tasks

import (
	"context"
	"sync"
	"time"
)

// MemoryStore is a [Store] that keeps records in memory: the default, for a
// single server process whose tasks need not survive it. Expired records are
// dropped as new ones are created.
type MemoryStore struct {
	now func() time.Time

	mu      sync.Mutex
	records map[string]*Record
	creates int
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{now: time.Now, records: map[string]*Record{}}
}

// sweepEvery is how many creations pass between two sweeps of expired records.
const sweepEvery = 64

// Create implements [Store].
func (s *MemoryStore) Create(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.records[rec.ID]; ok {
		return ErrExists
	}
	s.creates++
	if s.creates%sweepEvery == 0 {
		now := s.now()
		for id, r := range s.records {
			if r.Expired(now) {
				delete(s.records, id)
			}
		}
	}
	s.records[rec.ID] = rec.Clone()
	return nil
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
	r, ok := s.records[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID = id
	s.records[id] = c
	return c.Clone(), nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.records, id)
	return nil
}

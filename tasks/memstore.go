package tasks

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultMemoryStoreBytes bounds what a [MemoryStore] holds, by [Record.Size].
const DefaultMemoryStoreBytes = 64 << 20

// ErrStoreFull is returned by a bounded [Store] that cannot take a record, or
// a record's growth, because it holds as much as it may of records whose TTL
// has not elapsed.
var ErrStoreFull = errors.New("task store is full")

// MemoryStore is a [Store] that keeps records in memory: the default, for a
// single server process whose tasks need not survive it. Expired records are
// dropped as new ones are created. It holds at most DefaultMemoryStoreBytes of
// records (by [Record.Size]); beyond that Create and Update fail with
// [ErrStoreFull]. The zero value is an empty store, ready to use.
type MemoryStore struct {
	now func() time.Time

	mu      sync.Mutex
	records map[string]*Record
	bytes   int // sum of the records' sizes
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
	if s.records == nil {
		s.records = map[string]*Record{}
	}
	if _, ok := s.records[rec.ID]; ok {
		return ErrExists
	}
	s.creates++
	size := rec.Size()
	if s.creates%sweepEvery == 0 || s.bytes+size > DefaultMemoryStoreBytes {
		s.sweepLocked()
	}
	if s.bytes+size > DefaultMemoryStoreBytes {
		return ErrStoreFull
	}
	s.records[rec.ID] = rec.Clone()
	s.bytes += size
	return nil
}

func (s *MemoryStore) sweepLocked() {
	now := time.Now()
	if s.now != nil {
		now = s.now()
	}
	for id, r := range s.records {
		if r.Expired(now) {
			s.bytes -= r.Size()
			delete(s.records, id)
		}
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
	r, ok := s.records[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := r.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	c.ID = id
	grown := s.bytes - r.Size() + c.Size()
	if grown > DefaultMemoryStoreBytes && grown > s.bytes {
		return nil, ErrStoreFull
	}
	s.records[id] = c
	s.bytes = grown
	return c.Clone(), nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.records[id]; ok {
		s.bytes -= r.Size()
		delete(s.records, id)
	}
	return nil
}

// Package redisstore is a tasks.Store in Redis, shared by every server
// instance: a task started through one instance can be read, answered and
// cancelled through any other.
//
// Each record is one JSON value under its own key. Update is optimistic:
// it WATCHes the key, runs the caller's function on a copy and writes the
// result in a MULTI/EXEC transaction, retrying (a bounded number of times)
// when another instance changed the record in between.
//
// The store reports itself shared ([Store.Shared]), so the tasks extension
// has a running task refresh a heartbeat in its record and pick up, on each
// beat, the answers (tasks/update) and cancellations (tasks/cancel) that
// reached other instances; a task whose heartbeat stops (its instance died)
// is failed as interrupted by the next instance that reads it.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "askback:task:"

// DefaultGrace is how long Redis keeps a record after its task's TTL has
// elapsed, so that a late tasks/get is told the task expired rather than
// that it never existed.
const DefaultGrace = 10 * time.Minute

// maxAttempts bounds the retries of an Update that keeps losing races.
const maxAttempts = 200

// Options configure [New].
type Options struct {
	// Prefix starts every key (DefaultPrefix if empty).
	Prefix string
	// Grace is how long a record outlives its TTL in Redis (DefaultGrace if
	// zero). Records without a TTL never expire in Redis.
	Grace time.Duration
}

// Store is a shared [tasks.Store] in Redis. Make it with [New]; the zero
// Store is not usable.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	grace  time.Duration
}

var _ tasks.SharedStore = (*Store)(nil)

// New returns a store that keeps task records in rdb. The caller owns rdb.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix, grace: DefaultGrace}
	if opts != nil {
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		if opts.Grace > 0 {
			s.grace = opts.Grace
		}
	}
	return s
}

// Shared reports true: other instances use the same records.
func (s *Store) Shared() bool { return true }

func (s *Store) key(id string) string { return s.prefix + id }

// Create implements tasks.Store with SET NX.
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", rec.ID, err)
	}
	var ttl time.Duration // 0: no expiry
	if rec.TTL > 0 {
		ttl = rec.TTL + s.grace
	}
	ok, err := s.rdb.SetNX(ctx, s.key(rec.ID), b, ttl).Result()
	if err != nil {
		return fmt.Errorf("create task in redis: %w", err)
	}
	if !ok {
		return tasks.ErrExists
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := s.rdb.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read task from redis: %w", err)
	}
	return decode(id, b)
}

func decode(id string, b []byte) (*tasks.Record, error) {
	var rec tasks.Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read task %s from redis: the stored record is unreadable: %w", id, err)
	}
	return &rec, nil
}

// Update implements tasks.Store: WATCH, read, fn, MULTI/SET/EXEC, retried
// when another writer got in between, at most a bounded number of times.
// The record's expiry in Redis is kept.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := s.key(id)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var out *tasks.Record
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			b, err := tx.Get(ctx, key).Bytes()
			if errors.Is(err, redis.Nil) {
				return tasks.ErrNotFound
			}
			if err != nil {
				return fmt.Errorf("read task from redis: %w", err)
			}
			rec, err := decode(id, b)
			if err != nil {
				return err
			}
			if err := fn(rec); err != nil {
				return err
			}
			rec.ID = id
			nb, err := json.Marshal(rec)
			if err != nil {
				return fmt.Errorf("encode task %s: %w", id, err)
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, nb, redis.KeepTTL)
				return nil
			})
			if err != nil {
				return err
			}
			out = rec
			return nil
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			// Someone else wrote the record first: read it again.
			if err := sleep(ctx, time.Duration(rand.IntN(1+attempt))*time.Millisecond); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return nil, fmt.Errorf("update task %s in redis: still contended after %d attempts; try again", id, maxAttempts)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.rdb.Del(ctx, s.key(id)).Err(); err != nil {
		return fmt.Errorf("delete task in redis: %w", err)
	}
	return nil
}

// Package redisstore is a tasks.Store in Redis, shared by every server
// instance: a task started through one instance can be read, answered and
// cancelled through any other.
//
// Each record is one JSON value under its own key. Update is optimistic:
// it WATCHes the key, runs the caller's function on a copy and writes the
// result in a MULTI/EXEC transaction, retrying (a bounded number of times)
// when another instance changed the record in between.
//
// The store is bounded by Options.Limits ([tasks.StoreLimits]) in total and
// per caller ([tasks.Record.Counted]: the owner, or the client address of a
// task started without a user): an index of the live records (a sorted set
// by expiry, under the prefix followed by "@index") and the callers they
// count against and their sizes ("@meta", "@usage") are kept with each
// record by Lua scripts, so that every instance sees the same counts; a record beyond a limit is refused with
// [tasks.ErrStoreFull] or [tasks.ErrUserStoreFull]. When the store is full,
// a new record takes the place of the oldest records of finished tasks
// ("@done") of the caller holding the most records, when that caller holds
// at least two more than the new record's: callers at many addresses cannot
// keep another out for the records' TTL. In Redis Cluster the
// scripts need every key of the store in one slot: give a prefix with a hash
// tag, such as "{askback}:task:".
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
	"strconv"
	"time"

	"github.com/askback/askback/internal/platform/sleep"
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
	// Limits bound what the store keeps of live tasks, in total and per
	// user, shared by every instance; zero fields take their defaults.
	Limits tasks.StoreLimits
}

// Store is a shared [tasks.Store] in Redis. Make it with [New]; the zero
// Store is not usable.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	grace  time.Duration
	limits tasks.StoreLimits
}

var _ tasks.SharedStore = (*Store)(nil)

// New returns a store that keeps task records in rdb. The caller owns rdb.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix, grace: DefaultGrace, limits: tasks.StoreLimits{}.WithDefaults()}
	if opts != nil {
		s.limits = opts.Limits.WithDefaults()
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

// keys are the record's key and the keys of the store's accounting.
func (s *Store) keys(id string) []string {
	return []string{s.key(id), s.prefix + "@index", s.prefix + "@meta", s.prefix + "@usage", s.prefix + "@done"}
}

// doneMember is the record's member of the set of finished tasks' records
// (see the scripts), "" when its task has not finished or it counts for
// nobody anyone can tell apart.
func doneMember(rec *tasks.Record) string {
	if !rec.Status.Terminal() || rec.Counted() == "" {
		return ""
	}
	return fmt.Sprintf("%s\x00%016d\x00%s", rec.Counted(), max(rec.CreatedAt.UnixMilli(), 0), rec.ID)
}

// limitArgs are the limits as the scripts read them, after the id.
func (s *Store) limitArgs(id string) []any {
	return []any{id, s.limits.MaxRecords, s.limits.MaxBytes, s.limits.MaxRecordsPerUser, s.limits.MaxBytesPerUser}
}

// refusal turns a script's answer into the store's error.
func (s *Store) refusal(answer string) error {
	switch answer {
	case "full":
		return fmt.Errorf("%w: it keeps at most %d tasks and %d bytes of them", tasks.ErrStoreFull, s.limits.MaxRecords, s.limits.MaxBytes)
	case "userfull":
		return fmt.Errorf("%w: it keeps at most %d tasks and %d bytes of them for one user", tasks.ErrUserStoreFull, s.limits.MaxRecordsPerUser, s.limits.MaxBytesPerUser)
	case "exists":
		return tasks.ErrExists
	case "ok":
		return nil
	}
	return fmt.Errorf("task store in redis: unexpected answer %q", answer)
}

// Create implements tasks.Store: the record is stored (if its ID is free)
// and counted, atomically, unless it goes beyond a limit.
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode task %s: %w", rec.ID, err)
	}
	var ttl time.Duration // 0: no expiry
	expires := "+inf"
	if rec.TTL > 0 {
		ttl = rec.TTL + s.grace
		expires = strconv.FormatInt(rec.CreatedAt.Add(rec.TTL).UnixMilli(), 10)
	}
	args := append(s.limitArgs(rec.ID), string(b), ttl.Milliseconds(), rec.Counted(), rec.Size(), expires, time.Now().UnixMilli(), s.prefix, doneMember(rec))
	answer, err := createScript.Run(ctx, s.rdb, s.keys(rec.ID), args...).Text()
	if err != nil {
		return fmt.Errorf("create task in redis: %w", err)
	}
	return s.refusal(answer)
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
			var answer *redis.Cmd
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				answer = p.Eval(ctx, updateScript, s.keys(id), append(s.limitArgs(id), string(nb), rec.Size(), doneMember(rec))...)
				return nil
			})
			if err != nil {
				return err
			}
			text, err := answer.Text()
			if err != nil {
				return fmt.Errorf("update task in redis: %w", err)
			}
			if err := s.refusal(text); err != nil {
				return err
			}
			out = rec
			return nil
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			// Someone else wrote the record first: read it again.
			if err := sleep.For(ctx, time.Duration(rand.IntN(1+attempt))*time.Millisecond); err != nil {
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

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := deleteScript.Run(ctx, s.rdb, s.keys(id), id).Err(); err != nil {
		return fmt.Errorf("delete task in redis: %w", err)
	}
	return nil
}

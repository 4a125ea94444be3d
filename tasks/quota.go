package tasks

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Defaults of [StoreLimits].
const (
	// DefaultStoreRecords is how many records of live tasks a store keeps.
	DefaultStoreRecords = 100_000
	// DefaultStoreBytes is how many bytes (by [Record.Size]) of records of
	// live tasks a store keeps.
	DefaultStoreBytes = 64 << 20
	// DefaultStoreRecordsPerUser is how many records of live tasks a store
	// keeps for one user.
	DefaultStoreRecordsPerUser = 1024
	// DefaultStoreBytesPerUser is how many bytes of records of live tasks a
	// store keeps for one user.
	DefaultStoreBytesPerUser = 8 << 20
)

// DefaultMemoryStoreBytes bounds what a [MemoryStore] holds, by [Record.Size]:
// [DefaultStoreBytes].
const DefaultMemoryStoreBytes = DefaultStoreBytes

// ErrStoreFull is returned by a bounded [Store] that cannot take a record, or
// a record's growth, because it holds as much as it may of records whose TTL
// has not elapsed.
var ErrStoreFull = errors.New("task store is full")

// ErrUserStoreFull is returned by a bounded [Store] that cannot take a
// record, or a record's growth, because it holds as much as it may for the
// record's owner: one user cannot fill the store for everyone. It wraps
// [ErrStoreFull].
var ErrUserStoreFull = fmt.Errorf("%w for this user", ErrStoreFull)

// StoreLimits bound what a task store keeps of records whose TTL has not
// elapsed (finished tasks too: their results wait for tasks/get until the
// TTL): in total and for each caller ([Record.Counted]: the owner, or the
// client address of a task started without a user). Records of a caller
// nobody can tell apart (no user, no client address: stdio) count only
// towards the totals.
// A zero field takes its default; a record that would go beyond a limit is
// refused with [ErrStoreFull] or [ErrUserStoreFull], and so is the growth of
// one (a record may always shrink). Callers at many addresses, each within
// its share, can fill the totals: then a new caller's record takes the
// place of the oldest records of finished tasks (whose results wait for
// tasks/get) of the caller holding the most, when it holds at least two more
// than the new record's caller (at most 8 records for one), so that each
// caller keeps at least an equal share; a tasks/get of a record given up so
// finds no task. The stores of this module (memory, bbolt, Redis) do so.
type StoreLimits struct {
	// MaxRecords bounds the number of records (DefaultStoreRecords).
	MaxRecords int
	// MaxBytes bounds the records' sizes by [Record.Size]
	// (DefaultStoreBytes).
	MaxBytes int64
	// MaxRecordsPerUser bounds the records of one caller
	// (DefaultStoreRecordsPerUser).
	MaxRecordsPerUser int
	// MaxBytesPerUser bounds the sizes of one caller's records
	// (DefaultStoreBytesPerUser).
	MaxBytesPerUser int64
}

// WithDefaults returns l with each zero field set to its default.
func (l StoreLimits) WithDefaults() StoreLimits {
	if l.MaxRecords <= 0 {
		l.MaxRecords = DefaultStoreRecords
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultStoreBytes
	}
	if l.MaxRecordsPerUser <= 0 {
		l.MaxRecordsPerUser = DefaultStoreRecordsPerUser
	}
	if l.MaxBytesPerUser <= 0 {
		l.MaxBytesPerUser = DefaultStoreBytesPerUser
	}
	return l
}

// ledger counts what a store that one process holds (memory, a bbolt file)
// keeps, in total and per owner, and refuses what goes beyond its limits.
// It is not safe for concurrent use: the store serialises calls.
type ledger struct {
	limits  StoreLimits
	entries map[string]ledgerEntry
	count   int
	bytes   int64
	owners  map[string]*usage
}

type ledgerEntry struct {
	owner   string
	size    int64
	expires time.Time // zero: never
	created time.Time
	done    bool // the task has finished: its record waits for tasks/get
}

type usage struct {
	count int
	bytes int64
}

func newLedger(l StoreLimits) *ledger {
	return &ledger{limits: l.WithDefaults(), entries: map[string]ledgerEntry{}, owners: map[string]*usage{}}
}

// entryOf is the ledger entry of a record.
func entryOf(r *Record) ledgerEntry {
	e := ledgerEntry{owner: r.Counted(), size: int64(r.Size()), created: r.CreatedAt, done: r.Status.Terminal()}
	if r.TTL > 0 {
		e.expires = r.CreatedAt.Add(r.TTL)
	}
	return e
}

// check reports whether adding count records and bytes to what owner holds
// stays within the limits.
func (l *ledger) check(owner string, count int, bytes int64) error {
	if l.count+count > l.limits.MaxRecords || l.bytes+bytes > l.limits.MaxBytes {
		return fmt.Errorf("%w: it keeps at most %d tasks and %d bytes of them", ErrStoreFull, l.limits.MaxRecords, l.limits.MaxBytes)
	}
	if owner == "" {
		return nil
	}
	u := l.owners[owner]
	if u == nil {
		u = &usage{}
	}
	if u.count+count > l.limits.MaxRecordsPerUser || u.bytes+bytes > l.limits.MaxBytesPerUser {
		return fmt.Errorf("%w: it keeps at most %d tasks and %d bytes of them for one user", ErrUserStoreFull, l.limits.MaxRecordsPerUser, l.limits.MaxBytesPerUser)
	}
	return nil
}

// admit checks that a new record fits.
func (l *ledger) admit(r *Record) error {
	return l.check(r.Counted(), 1, int64(r.Size()))
}

// maxGivenUp bounds the records one new record may take the place of.
const maxGivenUp = 8

// makeRoom returns the records to forget so that a new record of r's
// caller fits the store's totals when it is full: records of finished
// tasks (whose results wait for tasks/get) of the caller holding the most
// records among those that hold at least two more than r's and a finished
// task's record, the oldest first; nil when that is not enough (or r's caller is nobody anyone can
// tell apart). Callers at many addresses cannot keep another out for the
// records' TTL: each keeps at least an equal share. Unfinished tasks are
// never given up here (their places are the Extension's).
func (l *ledger) makeRoom(r *Record) []string {
	owner := r.Counted()
	if owner == "" {
		return nil
	}
	mine := 0
	if u := l.owners[owner]; u != nil {
		mine = u.count
	}
	taken := map[string]int{}
	var ids []string
	count, bytes := l.count+1, l.bytes+int64(r.Size())
	for count > l.limits.MaxRecords || bytes > l.limits.MaxBytes {
		if len(ids) == maxGivenUp {
			return nil
		}
		// The oldest finished record of the caller holding the most that
		// has one.
		victim, held := "", 0
		var oldest time.Time
		for id, e := range l.entries {
			if !e.done || e.owner == owner || e.owner == "" || slices.Contains(ids, id) {
				continue
			}
			n := l.owners[e.owner].count - taken[e.owner]
			if n < mine+2 {
				continue
			}
			if victim == "" || n > held || n == held && e.created.Before(oldest) {
				victim, held, oldest = id, n, e.created
			}
		}
		if victim == "" {
			return nil
		}
		top := l.entries[victim].owner
		ids = append(ids, victim)
		taken[top]++
		count--
		bytes -= l.entries[victim].size
	}
	return ids
}

// add records a new record (after admit).
func (l *ledger) add(id string, e ledgerEntry) {
	l.remove(id)
	l.entries[id] = e
	l.count++
	l.bytes += e.size
	if e.owner != "" {
		u := l.owners[e.owner]
		if u == nil {
			u = &usage{}
			l.owners[e.owner] = u
		}
		u.count++
		u.bytes += e.size
	}
}

// resize checks that the record id may become r: it may always shrink.
func (l *ledger) resize(id string, r *Record) error {
	old, ok := l.entries[id]
	grow := int64(r.Size()) - old.size
	if !ok || grow <= 0 {
		return nil
	}
	return l.check(old.owner, 0, grow)
}

// remove forgets a record.
func (l *ledger) remove(id string) {
	e, ok := l.entries[id]
	if !ok {
		return
	}
	delete(l.entries, id)
	l.count--
	l.bytes -= e.size
	if e.owner != "" {
		if u := l.owners[e.owner]; u != nil {
			u.count--
			u.bytes -= e.size
			if u.count <= 0 {
				delete(l.owners, e.owner)
			}
		}
	}
}

// expired returns the ids of the records whose TTL has elapsed at now.
func (l *ledger) expired(now time.Time) []string {
	var ids []string
	for id, e := range l.entries {
		if !e.expires.IsZero() && !now.Before(e.expires) {
			ids = append(ids, id)
		}
	}
	return ids
}

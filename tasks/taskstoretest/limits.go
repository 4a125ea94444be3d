package taskstoretest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
)

// RunLimits checks that a bounded store keeps to its [tasks.StoreLimits]:
// records and bytes in total and per caller ([tasks.Record.Counted]: the
// owner, or the client of a record without one), growth refused and shrinking
// allowed beyond them, room given back by Delete and by records whose TTL
// has elapsed, owners other than the one that filled its share unaffected;
// and, when the store is full, a new caller's record taking the place of the
// oldest finished task's record of the caller holding the most (by two), so
// that callers at many addresses cannot keep a newcomer out for the
// records' TTL, unfinished tasks never given up so.
// newStore returns a fresh, empty store with the given limits.
func RunLimits(t *testing.T, newStore func(t *testing.T, l tasks.StoreLimits) tasks.Store) {
	t.Helper()
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, newStore func(t *testing.T, l tasks.StoreLimits) tasks.Store)
	}{
		{"RecordsPerUser", recordsPerUser},
		{"RecordsPerAnonymousClient", recordsPerClient},
		{"BytesPerUser", bytesPerUser},
		{"RecordsInTotal", recordsInTotal},
		{"BytesInTotal", bytesInTotal},
		{"GrowthRefusedShrinkAllowed", growth},
		{"DeleteGivesRoom", deleteGivesRoom},
		{"ExpiredGiveRoom", expiredGiveRoom},
		{"FullStoreKeepsNoNewcomerOut", fullStoreShared},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newStore) })
	}
}

// live returns a small record of owner whose TTL has not elapsed.
func live(id, owner string) *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: id, Owner: owner, Tool: "t", Status: tasks.StatusWorking,
		CreatedAt: now, UpdatedAt: now, TTL: time.Hour}
}

// sized returns live(id, owner) with a result that makes it about n bytes.
func sized(id, owner string, n int) *tasks.Record {
	r := live(id, owner)
	if pad := n - r.Size() - 2; pad > 0 {
		r.Result = json.RawMessage(`"` + strings.Repeat("x", pad) + `"`)
	}
	return r
}

func wantFull(t *testing.T, err error, perUser bool, what string) {
	t.Helper()
	switch {
	case perUser && !errors.Is(err, tasks.ErrUserStoreFull):
		t.Fatalf("%s: %v, want ErrUserStoreFull", what, err)
	case !perUser && (!errors.Is(err, tasks.ErrStoreFull) || errors.Is(err, tasks.ErrUserStoreFull)):
		t.Fatalf("%s: %v, want ErrStoreFull", what, err)
	}
}

func mustCreate(t *testing.T, s tasks.Store, r *tasks.Record) {
	t.Helper()
	if err := s.Create(ctx(t), r); err != nil {
		t.Fatalf("create %s of %q: %v", r.ID, r.Owner, err)
	}
}

func recordsPerUser(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxRecordsPerUser: 3})
	for i := range 3 {
		mustCreate(t, s, live(fmt.Sprint("b", i), "bob"))
	}
	wantFull(t, s.Create(ctx(t), live("b3", "bob")), true, "bob's fourth record")
	if _, err := s.Get(ctx(t), "b3"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("a refused record was kept: %v", err)
	}
	mustCreate(t, s, live("a0", "alice"))
	// Without authentication there is no user to bound: only the totals.
	for i := range 5 {
		mustCreate(t, s, live(fmt.Sprint("n", i), ""))
	}
}

// recordsPerClient: records without an owner are counted by the client
// that started them (Record.Share), each client apart.
func recordsPerClient(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxRecordsPerUser: 2})
	of := func(id, share string) *tasks.Record {
		r := live(id, "")
		r.Share = share
		return r
	}
	for i := range 2 {
		mustCreate(t, s, of(fmt.Sprint("a", i), "~addr:192.0.2.1"))
	}
	wantFull(t, s.Create(ctx(t), of("a2", "~addr:192.0.2.1")), true, "a third record of one anonymous client")
	mustCreate(t, s, of("b0", "~addr:192.0.2.2"))
	mustCreate(t, s, live("u0", "alice"))
	if err := s.Delete(ctx(t), "a0"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, of("a3", "~addr:192.0.2.1"))
}

func bytesPerUser(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxBytesPerUser: 10_000})
	mustCreate(t, s, sized("b0", "bob", 6000))
	wantFull(t, s.Create(ctx(t), sized("b1", "bob", 6000)), true, "bob's record beyond his bytes")
	mustCreate(t, s, sized("a0", "alice", 6000))
}

func recordsInTotal(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxRecords: 4})
	for i := range 4 {
		mustCreate(t, s, live(fmt.Sprint("r", i), fmt.Sprint("user", i)))
	}
	wantFull(t, s.Create(ctx(t), live("r4", "user4")), false, "a record beyond the total")
	wantFull(t, s.Create(ctx(t), live("r5", "")), false, "an anonymous record beyond the total")
}

func bytesInTotal(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxBytes: 20_000})
	mustCreate(t, s, sized("r0", "u0", 8000))
	mustCreate(t, s, sized("r1", "u1", 8000))
	wantFull(t, s.Create(ctx(t), sized("r2", "u2", 8000)), false, "a record beyond the total bytes")
}

func growth(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxBytesPerUser: 10_000})
	mustCreate(t, s, live("b0", "bob"))
	big := json.RawMessage(`"` + strings.Repeat("x", 12_000) + `"`)
	_, err := s.Update(ctx(t), "b0", func(r *tasks.Record) error { r.Result = big; return nil })
	wantFull(t, err, true, "growing bob's record beyond his bytes")
	got, err := s.Get(ctx(t), "b0")
	if err != nil || len(got.Result) != 0 {
		t.Fatalf("a refused update was stored: %v, %d bytes of result", err, len(got.Result))
	}
	mid := json.RawMessage(`"` + strings.Repeat("x", 5000) + `"`)
	if _, err := s.Update(ctx(t), "b0", func(r *tasks.Record) error { r.Result = mid; return nil }); err != nil {
		t.Fatalf("growing within the limit: %v", err)
	}
	mustCreate(t, s, sized("b1", "bob", 4000))
	if _, err := s.Update(ctx(t), "b0", func(r *tasks.Record) error { r.Result = nil; return nil }); err != nil {
		t.Fatalf("shrinking: %v", err)
	}
	mustCreate(t, s, sized("b2", "bob", 4000))
}

func deleteGivesRoom(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxRecordsPerUser: 2, MaxRecords: 3})
	mustCreate(t, s, live("b0", "bob"))
	mustCreate(t, s, live("b1", "bob"))
	wantFull(t, s.Create(ctx(t), live("b2", "bob")), true, "bob's third record")
	if err := s.Delete(ctx(t), "b0"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx(t), "b0"); err != nil { // twice: counted once
		t.Fatal(err)
	}
	mustCreate(t, s, live("b2", "bob"))
	mustCreate(t, s, live("a0", "alice"))
	wantFull(t, s.Create(ctx(t), live("a1", "alice")), false, "a record beyond the total")
}

func expiredGiveRoom(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxRecordsPerUser: 2, MaxRecords: 3})
	for i := range 2 {
		old := live(fmt.Sprint("old", i), "bob")
		old.CreatedAt = time.Now().Add(-2 * time.Hour)
		mustCreate(t, s, old)
	}
	// Bob's records have outlived their TTL: they take no room.
	mustCreate(t, s, live("b0", "bob"))
	mustCreate(t, s, live("b1", "bob"))
	mustCreate(t, s, live("a0", "alice"))
	wantFull(t, s.Create(ctx(t), live("a1", "alice")), false, "a record beyond the total")
}

// fullStoreShared: three anonymous clients fill the store with records of
// finished tasks, their share each. Newcomers still get theirs: each takes
// the place of the oldest finished record of the client holding the most,
// until every client holds about as many as the newcomers; then a newcomer
// is refused. Records of unfinished tasks are never given up.
func fullStoreShared(t *testing.T, newStore func(*testing.T, tasks.StoreLimits) tasks.Store) {
	s := newStore(t, tasks.StoreLimits{MaxRecords: 12, MaxRecordsPerUser: 4})
	start := time.Now()
	n := 0
	of := func(id, share string, status tasks.Status) *tasks.Record {
		r := live(id, "")
		r.Share, r.Status = share, status
		r.CreatedAt = start.Add(time.Duration(n) * time.Millisecond)
		n++
		return r
	}
	for c := range 3 {
		for i := range 4 {
			st := tasks.StatusCompleted
			if c == 2 {
				st = tasks.StatusWorking // c's tasks have not finished
			}
			mustCreate(t, s, of(fmt.Sprintf("c%d-%d", c, i), fmt.Sprintf("~addr:192.0.2.%d", c), st))
		}
	}
	// Newcomers take the finished records of c0 and c1, the oldest first,
	// down to one each; c2's unfinished ones stay.
	for i := range 6 {
		if err := s.Create(ctx(t), of(fmt.Sprint("new", i), fmt.Sprintf("~addr:198.51.100.%d", i), tasks.StatusWorking)); err != nil {
			t.Fatalf("newcomer %d when the store is full: %v", i, err)
		}
	}
	wantFull(t, s.Create(ctx(t), of("new6", "~addr:198.51.100.6", tasks.StatusWorking)), false,
		"a newcomer once nothing finished is held by a client holding two more")
	for _, id := range []string{"c0-0", "c0-1", "c0-2", "c1-0", "c1-1", "c1-2"} {
		if _, err := s.Get(ctx(t), id); !errors.Is(err, tasks.ErrNotFound) {
			t.Errorf("record %s, given up, is still there: %v", id, err)
		}
	}
	for _, id := range []string{"c0-3", "c1-3", "c2-0", "c2-1", "c2-2", "c2-3"} {
		if _, err := s.Get(ctx(t), id); err != nil {
			t.Errorf("record %s is gone: %v", id, err)
		}
	}
}

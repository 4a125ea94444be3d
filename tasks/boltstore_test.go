package tasks_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskstoretest"
)

func openBoltStore(t *testing.T, path string) *tasks.BoltStore {
	t.Helper()
	s, err := tasks.OpenBoltStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestBoltStoreContract(t *testing.T) {
	taskstoretest.Run(t, func(t *testing.T) tasks.Store {
		return openBoltStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	})
}

func TestRecordsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	s, err := tasks.OpenBoltStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := taskstoretest.Sample("t1")
	want.CreatedAt = time.Now()
	if err := s.Create(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := openBoltStore(t, path).Get(context.Background(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != want.Owner || string(got.Result) != string(want.Result) || got.Status != want.Status {
		t.Errorf("after reopening: %+v", got)
	}
}

func TestExpiredRecordsAreDroppedOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	s, err := tasks.OpenBoltStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	old := taskstoretest.Sample("old") // created in 2026-07 with a one-hour TTL
	if err := s.Create(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	s.Close()
	later := func() time.Time { return old.CreatedAt.Add(2 * time.Hour) }
	s2, err := tasks.OpenBoltStore(path, &tasks.BoltStoreOptions{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.Get(context.Background(), "old"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("expired record kept: %v", err)
	}
}

func TestSecondOpenerIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	openBoltStore(t, path)
	_, err := tasks.OpenBoltStore(path, &tasks.BoltStoreOptions{Timeout: 50 * time.Millisecond})
	if err == nil {
		t.Fatal("a second process could open a store in use")
	}
}

func TestBoltStoreLimits(t *testing.T) {
	taskstoretest.RunLimits(t, func(t *testing.T, l tasks.StoreLimits) tasks.Store {
		s, err := tasks.OpenBoltStore(filepath.Join(t.TempDir(), "tasks.db"), &tasks.BoltStoreOptions{Limits: l})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// What a bbolt file holds when it is opened counts towards its limits.
func TestBoltStoreLimitsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	l := &tasks.BoltStoreOptions{Limits: tasks.StoreLimits{MaxRecordsPerUser: 2}}
	s, err := tasks.OpenBoltStore(path, l)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b0", "b1"} {
		r := taskstoretest.Sample(id)
		r.Owner, r.CreatedAt = "bob", time.Now()
		if err := s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = tasks.OpenBoltStore(path, l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := taskstoretest.Sample("b2")
	r.Owner, r.CreatedAt = "bob", time.Now()
	if err := s.Create(context.Background(), r); !errors.Is(err, tasks.ErrUserStoreFull) {
		t.Fatalf("bob's third record after a reopen: %v, want ErrUserStoreFull", err)
	}
}

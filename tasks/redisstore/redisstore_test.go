package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/redisstore"
	"github.com/askback/askback/tasks/taskstoretest"
)

func TestContract(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	n := 0
	taskstoretest.Run(t, func(t *testing.T) tasks.Store {
		n++
		return redisstore.New(rdb, &redisstore.Options{Prefix: fmt.Sprintf("test%d:", n)})
	})
}

func TestShared(t *testing.T) {
	var s tasks.Store = redisstore.New(nil, nil)
	sh, ok := s.(tasks.SharedStore)
	if !ok || !sh.Shared() {
		t.Fatal("the Redis store must tell the extension that other instances share it")
	}
}

// A record written through one instance's client is read and updated
// through another's.
func TestTwoClients(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	a := redisstore.New(scaleout.Client(t, r.URL), nil)
	b := redisstore.New(scaleout.Client(t, r.URL), nil)
	ctx := context.Background()
	if err := a.Create(ctx, taskstoretest.Sample("t1")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, "t1", func(r *tasks.Record) error { r.Status = tasks.StatusCompleted; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, "t1")
	if err != nil || got.Status != tasks.StatusCompleted {
		t.Fatalf("A reads %v, %v", got, err)
	}
}

// Redis drops a record some time after its TTL, never before.
func TestRecordExpiresInRedis(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	s := redisstore.New(rdb, &redisstore.Options{Grace: time.Minute})
	ctx := context.Background()
	rec := taskstoretest.Sample("t1")
	rec.TTL = time.Hour
	if err := s.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "t1", func(r *tasks.Record) error { r.StatusMessage = "x"; return nil }); err != nil {
		t.Fatal(err)
	}
	ttl := rdb.PTTL(ctx, redisstore.DefaultPrefix+"t1").Val()
	if ttl < time.Hour || ttl > time.Hour+time.Minute {
		t.Errorf("record's expiry in Redis after an update = %s, want TTL plus grace", ttl)
	}
}

func TestLimits(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	n := 0
	taskstoretest.RunLimits(t, func(t *testing.T, l tasks.StoreLimits) tasks.Store {
		n++
		return redisstore.New(rdb, &redisstore.Options{Prefix: fmt.Sprintf("limits%d:", n), Limits: l})
	})
}

// The limits hold across instances: what one instance stored counts for
// the other.
func TestLimitsShared(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	opts := &redisstore.Options{Limits: tasks.StoreLimits{MaxRecordsPerUser: 2}}
	a := redisstore.New(scaleout.Client(t, r.URL), opts)
	b := redisstore.New(scaleout.Client(t, r.URL), opts)
	ctx := context.Background()
	for i, s := range []*redisstore.Store{a, b} {
		rec := taskstoretest.Sample(fmt.Sprint("t", i))
		rec.Owner, rec.CreatedAt = "bob", time.Now()
		if err := s.Create(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	rec := taskstoretest.Sample("t2")
	rec.Owner, rec.CreatedAt = "bob", time.Now()
	if err := a.Create(ctx, rec); !errors.Is(err, tasks.ErrUserStoreFull) {
		t.Fatalf("bob's third task through either instance: %v, want ErrUserStoreFull", err)
	}
}

package tasks_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskstoretest"
)

// BenchmarkUpdate compares a read-modify-write in the bbolt file (one
// synced transaction) with the memory store, the baseline, in the same run.
func BenchmarkBoltStoreUpdate(b *testing.B) {
	ctx := context.Background()
	bolt, err := tasks.OpenBoltStore(filepath.Join(b.TempDir(), "tasks.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer bolt.Close()
	for _, s := range []struct {
		name  string
		store tasks.Store
	}{{"baseline-memory", tasks.NewMemoryStore(nil)}, {"bbolt", bolt}} {
		if err := s.store.Create(ctx, taskstoretest.Sample("t")); err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.store.Update(ctx, "t", func(r *tasks.Record) error { r.StatusMessage = "x"; return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

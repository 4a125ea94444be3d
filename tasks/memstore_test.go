package tasks_test

import (
	"testing"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskstoretest"
)

func TestMemoryStore(t *testing.T) {
	taskstoretest.Run(t, func(t *testing.T) tasks.Store { return tasks.NewMemoryStore(nil) })
}

func TestMemoryStoreLimits(t *testing.T) {
	taskstoretest.RunLimits(t, func(t *testing.T, l tasks.StoreLimits) tasks.Store {
		return tasks.NewMemoryStore(&tasks.MemoryStoreOptions{Limits: l})
	})
}

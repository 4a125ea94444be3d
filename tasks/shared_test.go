package tasks_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sharedStore is a memory store that says other instances use it, as a
// Redis store would.
type sharedStore struct{ *tasks.MemoryStore }

func (sharedStore) Shared() bool { return true }

// TestSharedStoreAcrossInstances runs a task on instance A and drives it
// through instance B: the answer and the cancellation reach A through the
// store.
func TestSharedStoreAcrossInstances(t *testing.T) {
	store := sharedStore{tasks.NewMemoryStore(nil)}
	opts := &tasks.Options{Store: store, Heartbeat: 50 * time.Millisecond}
	serverA, _ := newServer(t, opts)
	serverB, _ := newServer(t, opts)
	onA := taskclient.New(connect(t, serverA, nil), fast())
	onB := taskclient.New(connect(t, serverB, nil), fast())
	ctx := context.Background()

	ct := start(t, onA, "confirm")
	g := waitFor(t, onB, ct.TaskID, tasks.StatusInputRequired)
	if g.InputRequests["confirm"] == nil {
		t.Fatalf("B does not see A's question: %+v", g)
	}
	yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
	if err := onB.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"confirm": yes}); err != nil {
		t.Fatal(err)
	}
	res, err := onB.Wait(ctx, ct.TaskID)
	if err != nil || resultText(t, res) != "done" {
		t.Fatalf("answer through B: %v, %v", res, err)
	}

	ct = start(t, onA, "sleep")
	if err := onB.Cancel(ctx, ct.TaskID); err != nil {
		t.Fatal(err)
	}
	if g := waitFor(t, onA, ct.TaskID, tasks.StatusCancelled); g.Status != tasks.StatusCancelled {
		t.Errorf("cancel through B: %s", g.Status)
	}
}

func TestSharedStoreFailsTasksWithoutHeartbeat(t *testing.T) {
	store := sharedStore{tasks.NewMemoryStore(nil)}
	server, _ := newServer(t, &tasks.Options{Store: store, Heartbeat: time.Second})
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()
	now := time.Now()
	for id, beat := range map[string]time.Time{"alive": now, "dead": now.Add(-time.Minute)} {
		err := store.Create(ctx, &tasks.Record{ID: id, Status: tasks.StatusWorking, CreatedAt: now, UpdatedAt: now, Runner: "another-instance", Heartbeat: beat})
		if err != nil {
			t.Fatal(err)
		}
	}
	if g, err := tc.Get(ctx, "alive"); err != nil || g.Status != tasks.StatusWorking {
		t.Errorf("a task with a fresh heartbeat: %+v, %v", g, err)
	}
	g, err := tc.Get(ctx, "dead")
	if err != nil || g.Status != tasks.StatusFailed || !strings.Contains(g.Error.Message, "interrupted") {
		t.Errorf("a task whose runner stopped: %+v, %v", g, err)
	}
}

// endlessStore is a shared store that cannot record the end of a task
// while down is set, as a Redis store whose server is away.
type endlessStore struct {
	sharedStore
	down atomic.Bool
}

func (s *endlessStore) Update(ctx context.Context, id string, f func(*tasks.Record) error) (*tasks.Record, error) {
	return s.sharedStore.Update(ctx, id, func(r *tasks.Record) error {
		if err := f(r); err != nil {
			return err
		}
		if s.down.Load() && r.Status.Terminal() {
			return errors.New("store unreachable")
		}
		return nil
	})
}

// A task whose end could not be recorded is not left "working" on the
// instance that ran it: once its code has stopped, that instance too
// reports it failed.
func TestOwnTaskWhoseEndWasLostFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &endlessStore{sharedStore: sharedStore{tasks.NewMemoryStore(nil)}}
		server, _ := newServer(t, &tasks.Options{Store: store, Heartbeat: time.Hour})
		tc := taskclient.New(connect(t, server, nil), fast())
		ctx := context.Background()
		ct := start(t, tc, "confirm")
		waitFor(t, tc, ct.TaskID, tasks.StatusInputRequired)
		store.down.Store(true)
		yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
		if err := tc.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"confirm": yes}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // the task ends; its end cannot be written
		store.down.Store(false)
		g := waitFor(t, tc, ct.TaskID, tasks.StatusFailed)
		if g.Status != tasks.StatusFailed || g.Error == nil || !strings.Contains(g.Error.Message, "interrupted") {
			t.Errorf("own task whose end was lost: %+v", g)
		}
	})
}

// slowStore is a shared store whose updates take longer than one heartbeat
// interval, as a busy Redis's do.
type slowStore struct {
	sharedStore
	delay time.Duration
}

func (s *slowStore) Update(ctx context.Context, id string, f func(*tasks.Record) error) (*tasks.Record, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.sharedStore.Update(ctx, id, f)
}

// A store slower than one heartbeat interval does not make a running task
// look interrupted to the other instances: its heartbeat still lands.
func TestSlowStoreKeepsTheHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &slowStore{sharedStore: sharedStore{tasks.NewMemoryStore(nil)}, delay: 1500 * time.Millisecond}
		opts := &tasks.Options{Store: store, Heartbeat: time.Second}
		serverA, _ := newServer(t, opts)
		serverB, _ := newServer(t, opts)
		onA := taskclient.New(connect(t, serverA, nil), fast())
		onB := taskclient.New(connect(t, serverB, nil), fast())
		ct := start(t, onA, "confirm")
		waitFor(t, onA, ct.TaskID, tasks.StatusInputRequired)
		for range 10 {
			time.Sleep(time.Second)
			g, err := onB.Get(context.Background(), ct.TaskID)
			if err != nil || g.Status != tasks.StatusInputRequired {
				t.Fatalf("the task waiting on A, seen through B: %+v, %v", g, err)
			}
		}
	})
}

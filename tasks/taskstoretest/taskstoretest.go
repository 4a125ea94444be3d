// Package taskstoretest checks that a tasks.Store behaves as the tasks
// extension needs. A store implementation runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		taskstoretest.Run(t, func(t *testing.T) tasks.Store { return newStore(t) })
//	}
package taskstoretest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/tasks"
)

// Run runs the store checks as subtests; newStore returns a fresh, empty
// store for each.
func Run(t *testing.T, newStore func(t *testing.T) tasks.Store) {
	t.Helper()
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, s tasks.Store)
	}{
		{"RoundTrip", roundTrip},
		{"CreateTwice", createTwice},
		{"Missing", missing},
		{"UpdateStores", updateStores},
		{"UpdateErrorStoresNothing", updateError},
		{"UpdateIsAtomic", updateAtomic},
		{"CopiesAreIndependent", copies},
		{"Delete", deleteRecord},
		{"CancelledContext", cancelledContext},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newStore(t)) })
	}
}

// Sample returns a record with every field set, for round-trip checks.
func Sample(id string) *tasks.Record {
	at := time.Date(2026, 7, 28, 10, 30, 0, 123456789, time.UTC)
	return &tasks.Record{
		ID:              id,
		Owner:           "alice",
		Tool:            "rollout",
		Status:          tasks.StatusInputRequired,
		StatusMessage:   "Waiting for an answer",
		CreatedAt:       at,
		UpdatedAt:       at.Add(time.Second),
		TTL:             time.Hour,
		PollInterval:    500 * time.Millisecond,
		InputRequests:   map[string]json.RawMessage{"confirm": json.RawMessage(`{"method":"elicitation/create","params":{"message":"Go?"}}`)},
		Asked:           []string{"confirm"},
		Responses:       map[string]json.RawMessage{"earlier": json.RawMessage(`{"action":"decline"}`)},
		Result:          json.RawMessage(`{"content":[]}`),
		Error:           &tasks.ErrorObject{Code: -32603, Message: "boom", Data: json.RawMessage(`{"why":"x"}`)},
		CancelRequested: true,
		Runner:          "instance-1",
		Heartbeat:       at.Add(2 * time.Second),
	}
}

func ctx(t *testing.T) context.Context {
	c, stop := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(stop)
	return c
}

func equal(t *testing.T, got, want *tasks.Record) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || !got.CreatedAt.Equal(want.CreatedAt) || !got.Heartbeat.Equal(want.Heartbeat) {
		t.Errorf("record changed in the store:\n got %s\nwant %s", g, w)
	}
}

func roundTrip(t *testing.T, s tasks.Store) {
	want := Sample("t1")
	if err := s.Create(ctx(t), want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx(t), "t1")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, got, want)
}

func createTwice(t *testing.T, s tasks.Store) {
	if err := s.Create(ctx(t), Sample("t1")); err != nil {
		t.Fatal(err)
	}
	other := Sample("t1")
	other.Owner = "mallory"
	if err := s.Create(ctx(t), other); !errors.Is(err, tasks.ErrExists) {
		t.Errorf("second Create of one ID: %v, want ErrExists", err)
	}
	got, _ := s.Get(ctx(t), "t1")
	if got == nil || got.Owner != "alice" {
		t.Errorf("second Create overwrote the record: %+v", got)
	}
}

func missing(t *testing.T, s tasks.Store) {
	if _, err := s.Get(ctx(t), "nope"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get missing: %v, want ErrNotFound", err)
	}
	called := false
	if _, err := s.Update(ctx(t), "nope", func(*tasks.Record) error { called = true; return nil }); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Update missing: %v, want ErrNotFound", err)
	}
	if called {
		t.Error("Update called fn for a missing record")
	}
	if err := s.Delete(ctx(t), "nope"); err != nil {
		t.Errorf("Delete missing: %v, want nil", err)
	}
}

func updateStores(t *testing.T, s tasks.Store) {
	if err := s.Create(ctx(t), Sample("t1")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Update(ctx(t), "t1", func(r *tasks.Record) error {
		r.Status = tasks.StatusCompleted
		delete(r.InputRequests, "confirm")
		r.Result = json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != tasks.StatusCompleted {
		t.Errorf("Update returned %s", got.Status)
	}
	again, _ := s.Get(ctx(t), "t1")
	equal(t, again, got)
	if len(again.InputRequests) != 0 {
		t.Errorf("deleted map entry came back: %v", again.InputRequests)
	}
}

func updateError(t *testing.T, s tasks.Store) {
	if err := s.Create(ctx(t), Sample("t1")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, err := s.Update(ctx(t), "t1", func(r *tasks.Record) error {
		r.Status = tasks.StatusFailed
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update returned %v, want fn's error", err)
	}
	got, _ := s.Get(ctx(t), "t1")
	if got.Status != tasks.StatusInputRequired {
		t.Errorf("a failed Update stored its change: %s", got.Status)
	}
}

func updateAtomic(t *testing.T, s tasks.Store) {
	rec := Sample("t1")
	rec.StatusMessage = "0"
	if err := s.Create(ctx(t), rec); err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Update(ctx(t), "t1", func(r *tasks.Record) error {
				i, err := strconv.Atoi(r.StatusMessage)
				if err != nil {
					return err
				}
				r.StatusMessage = strconv.Itoa(i + 1)
				return nil
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Get(ctx(t), "t1")
	if got.StatusMessage != fmt.Sprint(n) {
		t.Errorf("after %d concurrent increments the counter is %s: updates were lost", n, got.StatusMessage)
	}
}

func copies(t *testing.T, s tasks.Store) {
	rec := Sample("t1")
	if err := s.Create(ctx(t), rec); err != nil {
		t.Fatal(err)
	}
	rec.InputRequests["confirm"][0] = 'X'
	rec.Asked[0] = "changed"
	got, _ := s.Get(ctx(t), "t1")
	got.InputRequests["extra"] = json.RawMessage(`{}`)
	got.Responses["earlier"][0] = 'X'
	again, _ := s.Get(ctx(t), "t1")
	if !reflect.DeepEqual(again.Asked, []string{"confirm"}) || len(again.InputRequests) != 1 ||
		again.InputRequests["confirm"][0] != '{' || again.Responses["earlier"][0] != '{' {
		t.Errorf("changing a record outside the store changed the stored one: %+v", again)
	}
}

func deleteRecord(t *testing.T, s tasks.Store) {
	if err := s.Create(ctx(t), Sample("t1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx(t), "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx(t), "t1"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := s.Create(ctx(t), Sample("t1")); err != nil {
		t.Errorf("Create after Delete: %v", err)
	}
}

func cancelledContext(t *testing.T, s tasks.Store) {
	c, stop := context.WithCancel(context.Background())
	stop()
	if err := s.Create(c, Sample("t1")); err == nil {
		if _, err := s.Get(ctx(t), "t1"); err != nil {
			t.Errorf("Create with a cancelled context reported success but stored nothing: %v", err)
		}
	}
}

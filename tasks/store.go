package tasks

import (
	"context"
	"errors"
)

// ErrNotFound is returned by a [Store] for a task it does not hold.
var ErrNotFound = errors.New("task not found")

// ErrExists is returned by [Store.Create] for an ID that is already taken.
var ErrExists = errors.New("task already exists")

// Store keeps task records. Implementations must be safe for concurrent use
// and must hand out copies: a caller may change a returned record freely.
//
// A record is durable once Create returns: a Get from any server instance
// sharing the store must find it.
type Store interface {
	// Create stores a new record; ErrExists if its ID is taken.
	Create(ctx context.Context, rec *Record) error
	// Get returns the record with the given ID, or ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Update reads the record, calls fn with a copy and stores what fn left
	// in it, atomically with respect to every other Update of the same ID.
	// If fn returns an error, nothing is stored and Update returns that
	// error. It returns the stored record, or ErrNotFound.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// Delete removes the record; deleting a missing record is not an error.
	Delete(ctx context.Context, id string) error
}

// SharedStore is implemented by stores that several server instances use at
// once (Redis, for example). For such a store a running task sends
// heartbeats, and a task whose runner stopped sending them is failed as
// interrupted. A store that is not shared (memory, a bbolt file, which one
// process holds locked) lets the extension fail at once every unfinished task
// that another process started: that process is gone. So a store that does
// not report itself shared must serve a single [Extension].
type SharedStore interface {
	Store
	// Shared reports whether other server instances use the store.
	Shared() bool
}

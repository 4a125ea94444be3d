package tasks

import (
	"errors"
	"fmt"

	"github.com/askback/askback/internal/text/runecut"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Defaults of the limits in [Options]. A client can fill what an extension
// keeps (tasks, their arguments, questions, answers, status messages and
// results); every part of it is bounded.
const (
	// DefaultMaxTasks is how many unfinished tasks one Extension runs at once.
	DefaultMaxTasks = 256
	// DefaultMaxTasksPerUser is how many unfinished tasks one caller (an
	// authenticated user, or an anonymous client address) may have at once
	// on one Extension.
	DefaultMaxTasksPerUser = 16
	// DefaultMaxArgumentBytes bounds the arguments of a call that starts a task.
	DefaultMaxArgumentBytes = 64 << 10
	// DefaultMaxRecordBytes bounds one task's record: its questions, answers,
	// status message, result or error (see [Record.Size]).
	DefaultMaxRecordBytes = 256 << 10
	// MaxStatusBytes bounds a status message; a longer one is cut, on a
	// character boundary, and ends with "…".
	MaxStatusBytes = 1 << 10
)

// ErrTooManyTasks is the cause of the error with which a call is refused when
// the Extension already runs Options.MaxTasks unfinished tasks, or the user
// Options.MaxTasksPerUser.
var ErrTooManyTasks = errors.New("too many unfinished tasks")

// ErrRecordTooLarge is returned by [Task.Ask] for questions, by tasks/update
// for answers and as a task's failure for a result that would make the task's
// record larger than Options.MaxRecordBytes.
var ErrRecordTooLarge = errors.New("the task's record would be too large")

// Size returns the approximate encoded size of the record in bytes: what its
// questions, answers, result, error and messages take. Stores and limits use
// it; it never marshals.
func (r *Record) Size() int {
	n := 256 + len(r.ID) + len(r.Owner) + len(r.Tool) + len(r.StatusMessage) + len(r.Runner) + len(r.Result)
	for k, v := range r.InputRequests {
		n += len(k) + len(v) + 8
	}
	for k, v := range r.Responses {
		n += len(k) + len(v) + 8
	}
	for _, k := range r.Asked {
		n += len(k) + 4
	}
	if r.Error != nil {
		n += len(r.Error.Message) + len(r.Error.Data) + 32
	}
	return n
}

// clip cuts a status message to MaxStatusBytes.
func clip(s string) string {
	if len(s) <= MaxStatusBytes {
		return s
	}
	return runecut.Prefix(s, MaxStatusBytes-len("…")) + "…"
}

// admit reserves a place for a new task of the caller share
// (subject.Share), or refuses it. When every place is taken, it takes one
// from the caller holding the most (evictLocked).
func (x *Extension) admit(share string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if share != "" && x.byShare[share] >= x.opts.MaxTasksPerUser {
		who := "one user"
		if subject.Anonymous(share) {
			who = "one client address"
		}
		return tooMany(fmt.Sprintf("you have %d unfinished tasks, the most %s may have", x.opts.MaxTasksPerUser, who))
	}
	// Tasks ended for another's place count until their code returns, up
	// to as many again: code that ignores its context cannot grow the
	// goroutines beyond twice MaxTasks.
	if x.active-x.evicting >= x.opts.MaxTasks && (x.active >= 2*x.opts.MaxTasks || !x.evictLocked(share)) {
		return tooMany(fmt.Sprintf("this server runs at most %d unfinished tasks at once", x.opts.MaxTasks))
	}
	x.active++
	if share != "" {
		x.byShare[share]++
	}
	return nil
}

// evictLocked ends the oldest task of the caller holding the most places,
// when it holds at least two more than share, to give its place to share:
// the task fails with ErrEvicted. It reports whether it did. Tasks of a
// caller nobody can tell apart ("") are never ended so.
func (x *Extension) evictLocked(share string) bool {
	top, most := "", 0
	for k, n := range x.byShare {
		if k != "" && (n > most || n == most && k < top) {
			top, most = k, n
		}
	}
	if top == "" || most < x.byShare[share]+2 {
		return false
	}
	var victim *run
	for _, r := range x.runs {
		if r.share == top && !r.evicted && (victim == nil || r.started.Before(victim.started)) {
			victim = r
		}
	}
	if victim == nil {
		return false
	}
	victim.evicted = true
	x.evicting++
	if x.byShare[top]--; x.byShare[top] <= 0 {
		delete(x.byShare, top)
	}
	victim.cancel(ErrEvicted)
	return true
}

// releaseRun gives back the place of a task that ran here and ended.
func (x *Extension) releaseRun(r *run) {
	x.mu.Lock()
	evicted := r.evicted
	if evicted {
		x.evicting--
		x.active--
	}
	x.mu.Unlock()
	if !evicted {
		x.release(r.share)
	}
}

// release gives back the place of a task of the caller share that ended or
// never started.
func (x *Extension) release(share string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.active--
	if share != "" {
		if x.byShare[share]--; x.byShare[share] <= 0 {
			delete(x.byShare, share)
		}
	}
}

func tooMany(why string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("%v: %s; wait for one to finish or cancel one, then try again", ErrTooManyTasks, why)}
}

// storeFull is the refusal of a task the store has no room for: its records
// of finished tasks leave only when their TTL ends.
func storeFull(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("cannot start a task: %v; finished tasks are kept until their TTL ends: try again later", err)}
}

// bounded wraps an update so that it fails with ErrRecordTooLarge instead of
// storing a record over Options.MaxRecordBytes.
func (x *Extension) bounded(fn func(*Record) error) func(*Record) error {
	return func(r *Record) error {
		if err := fn(r); err != nil {
			return err
		}
		if n := r.Size(); n > x.opts.MaxRecordBytes {
			return fmt.Errorf("%w: %d bytes, limit %d", ErrRecordTooLarge, n, x.opts.MaxRecordBytes)
		}
		return nil
	}
}

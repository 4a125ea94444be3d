package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// run is a task whose code runs in this process.
type run struct {
	x     *Extension
	id    string
	share string // the caller its place counts against
	// started is when it started; evicted that it was ended to give its
	// place to another caller (both guarded by the Extension's mu).
	started time.Time
	evicted bool
	ctx     context.Context
	cancel  context.CancelCauseFunc

	// done is closed once the task's end is recorded.
	done chan struct{}

	mu      sync.Mutex
	waiters map[string]chan *mcp.ElicitResult
}

// launch starts h for a freshly created record.
func (x *Extension) launch(rec *Record, req *mcp.CallToolRequest, h Handler) *run {
	ctx, cancel := context.WithCancelCause(x.base)
	if rec.TTL > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, rec.TTL, ErrExpired)
		inner := cancel
		cancel = func(cause error) { inner(cause); stop() }
	}
	r := &run{x: x, id: rec.ID, share: rec.Share, started: rec.CreatedAt, ctx: ctx, cancel: cancel, done: make(chan struct{}), waiters: map[string]chan *mcp.ElicitResult{}}
	x.mu.Lock()
	x.runs[rec.ID] = r
	x.mu.Unlock()
	t := &Task{run: r, id: rec.ID, req: req}
	x.wg.Add(1)
	go r.main(h, t)
	return r
}

// localRun returns the run of a task that runs in this process, or nil.
func (x *Extension) localRun(id string) *run {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.runs[id]
}

func (r *run) main(h Handler, t *Task) {
	defer r.x.wg.Done()
	defer func() {
		r.x.mu.Lock()
		delete(r.x.runs, r.id)
		r.x.mu.Unlock()
		r.x.releaseRun(r)
		r.cancel(context.Canceled)
	}()
	if r.x.shared {
		go r.heartbeat()
	}
	res, err := r.x.call(r.ctx, h, t)
	r.finish(res, err)
	close(r.done)
}

// call runs the task's code, turning a panic into an error. What the panic
// said, and where, goes to Options.Logger; the client learns only that the
// code failed (a panic's value may hold anything the code had at hand).
func (x *Extension) call(ctx context.Context, h Handler, t *Task) (res *mcp.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			x.logger.Error("a task's code panicked", "task", t.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = nil, internalError("the task's code failed unexpectedly")
		}
	}()
	return h(ctx, t)
}

// finish records how the task ended.
func (r *run) finish(res *mcp.CallToolResult, err error) {
	cause := context.Cause(r.ctx)
	res, result, err := encodeResult(res, err)
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	// err and result as they are when the record is updated: a result too
	// large to keep is replaced by the error that says so.
	end := func(rec *Record) error {
		r.ended(rec, cause, err, res, result)
		return nil
	}
	_, uerr := r.x.store.Update(ctx, r.id, r.x.bounded(end))
	if errors.Is(uerr, ErrRecordTooLarge) || errors.Is(uerr, ErrStoreFull) {
		err = internalError("the task's result is too large to keep (%v); return less", uerr)
		result = nil
		_, uerr = r.x.store.Update(ctx, r.id, end)
	}
	if uerr != nil && !errors.Is(uerr, ErrNotFound) {
		r.x.logger.Error("record the end of a task", "task", r.id, "error", uerr)
	}
}

// encodeResult is the result the task's code returned (res, err) as its
// record keeps it: JSON, with content even when empty. A result that asks
// questions, or no result and no error, is an error.
func encodeResult(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, json.RawMessage, error) {
	var result json.RawMessage
	if err == nil && res != nil {
		if len(res.InputRequests) > 0 {
			return res, nil, internalError("a task cannot answer with input requests; ask with Task.Ask instead")
		}
		if res.Content == nil {
			c := *res
			c.Content = []mcp.Content{}
			res = &c
		}
		result, err = json.Marshal(res)
		if err != nil {
			err = internalError("encode the task's result: %v", err)
		}
	}
	if err == nil && res == nil {
		err = internalError("the task's code returned neither a result nor an error")
	}
	return res, result, err
}

// ended writes into rec, unless it has ended already, how the task ended:
// cancelled, failed with err (why its context ended: cause), or completed
// with res (result, its JSON).
func (r *run) ended(rec *Record, cause, err error, res *mcp.CallToolResult, result json.RawMessage) {
	if rec.Status.Terminal() {
		return
	}
	rec.InputRequests, rec.Responses = nil, nil
	rec.UpdatedAt = r.x.opts.Now()
	switch {
	case rec.CancelRequested || errors.Is(cause, ErrCancelled):
		rec.Status = StatusCancelled
		rec.StatusMessage = "Cancelled at the client's request."
	case err != nil && errors.Is(cause, ErrShutdown):
		rec.Status = StatusFailed
		rec.Error = &ErrorObject{Code: -32603, Message: "task interrupted: " + ErrShutdown.Error()}
		rec.StatusMessage = "The task was interrupted: the server shut down. Start it again."
	case err != nil && errors.Is(cause, ErrEvicted):
		rec.Status = StatusFailed
		rec.Error = &ErrorObject{Code: -32603, Message: "task ended: " + ErrEvicted.Error()}
		rec.StatusMessage = fmt.Sprintf("The task was ended: the server runs at most %d unfinished tasks, and gave this one's place to another caller's, since you held the most. Start it again later.", r.x.opts.MaxTasks)
	case err != nil && errors.Is(cause, ErrExpired):
		rec.Status = StatusFailed
		rec.Error = &ErrorObject{Code: -32603, Message: ErrExpired.Error()}
		rec.StatusMessage = "The task ran out of time."
	case err != nil:
		rec.Status = StatusFailed
		rec.Error = errorObject(err)
		rec.Error.Message = clip(rec.Error.Message)
		rec.StatusMessage = clip("Tool execution failed: " + rec.Error.Message)
	default:
		rec.Status = StatusCompleted
		rec.Result = result
		rec.StatusMessage = summary(res)
	}
}

// deliver hands answers to the questions waiting for them.
func (r *run) deliver(answers map[string]*mcp.ElicitResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, a := range answers {
		if ch, ok := r.waiters[key]; ok {
			ch <- a // buffered, one answer per key
			delete(r.waiters, key)
		}
	}
}

// heartbeat keeps the record of a task in a shared store alive and brings
// in answers and cancellations that reached other server instances.
func (r *run) heartbeat() {
	tick := time.NewTicker(r.x.opts.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-tick.C:
		}
		r.sync()
	}
}

// sync refreshes the heartbeat and picks up what other instances stored.
// It gives the store two intervals: a store slower than one interval (a
// busy Redis) still refreshes the heartbeat well within the three after
// which other instances take the task for interrupted, where giving up
// after one would leave it unrefreshed every time.
func (r *run) sync() {
	ctx, stop := context.WithTimeout(r.ctx, 2*r.x.opts.Heartbeat)
	defer stop()
	rec, err := r.x.store.Update(ctx, r.id, func(rec *Record) error {
		rec.Heartbeat = r.x.opts.Now()
		return nil
	})
	if err != nil {
		r.x.logger.Warn("task heartbeat", "task", r.id, "error", err)
		return
	}
	if rec.CancelRequested {
		r.cancel(ErrCancelled)
		return
	}
	answers := map[string]*mcp.ElicitResult{}
	for key, raw := range rec.Responses {
		var a mcp.ElicitResult
		if json.Unmarshal(raw, &a) == nil {
			answers[key] = &a
		}
	}
	if len(answers) > 0 {
		r.deliver(answers)
	}
}

// setStatus writes a status message of a working task.
func (r *run) setStatus(msg string) {
	err := r.tidy(func(rec *Record) {
		if rec.Status.Terminal() || rec.CancelRequested {
			return
		}
		rec.StatusMessage = clip(msg)
		rec.UpdatedAt = r.x.opts.Now()
	})
	if err != nil {
		r.x.logger.Warn("task status", "task", r.id, "error", fmt.Errorf("store: %w", err))
	}
}

// summary is the status message of a completed task: the start of the
// result's first text, or a plain word.
func summary(res *mcp.CallToolResult) string {
	const max = 200
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && strings.TrimSpace(t.Text) != "" {
			s := strings.TrimSpace(t.Text)
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[:i]
			}
			if r := []rune(s); len(r) > max {
				s = string(r[:max-1]) + "…"
			}
			if res.IsError {
				return "The tool reported an error: " + s
			}
			return s
		}
	}
	if res.IsError {
		return "The tool reported an error."
	}
	return "Completed."
}

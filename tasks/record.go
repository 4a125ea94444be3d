package tasks

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Record is a task as a [Store] keeps it. It is plain data that encodes to
// JSON, so a store can persist it as it likes.
type Record struct {
	ID string `json:"id"`
	// Owner is the authenticated user that created the task, if any; only
	// that user may read, answer or cancel it.
	Owner string `json:"owner,omitempty"`
	// Share is the caller the record is counted against in a store's
	// per-user limits, as subject.Share names it: the Owner, or for a task
	// started without a user, the client it came from, so that one
	// anonymous client cannot fill the store for the others. A store counts
	// a record by [Record.Counted].
	Share string `json:"share,omitempty"`
	// Tool is the name of the tool whose call the task runs.
	Tool          string    `json:"tool,omitempty"`
	Status        Status    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// TTL is how long the task lives after creation; zero means unlimited.
	TTL time.Duration `json:"ttl,omitempty"`
	// PollInterval is the polling interval suggested to clients.
	PollInterval time.Duration `json:"pollInterval,omitempty"`
	// InputRequests are the questions not answered yet, in wire form.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// Asked lists every question key the task ever used: keys are unique
	// over a task's lifetime.
	Asked []string `json:"asked,omitempty"`
	// Responses are answers received but not yet taken by the task's code.
	Responses map[string]json.RawMessage `json:"responses,omitempty"`
	// Result is the final CallToolResult of a completed task.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error of a failed task.
	Error *ErrorObject `json:"error,omitempty"`
	// CancelRequested is set by tasks/cancel; the running code sees it
	// through its context.
	CancelRequested bool `json:"cancelRequested,omitempty"`
	// Runner identifies the server instance running the task and Heartbeat
	// when that instance last said it is alive (shared stores only).
	Runner    string    `json:"runner,omitempty"`
	Heartbeat time.Time `json:"heartbeat,omitzero"`
}

// Counted returns the name the record is counted under in a store's
// per-user limits: Share, or the Owner of a record without one (kept from
// before Share was recorded); "" counts towards the totals only.
func (r *Record) Counted() string {
	if r.Share != "" {
		return r.Share
	}
	return r.Owner
}

// Expired reports whether the task's TTL has elapsed at now.
func (r *Record) Expired(now time.Time) bool {
	return r.TTL > 0 && !now.Before(r.CreatedAt.Add(r.TTL))
}

// Clone returns a deep copy of r.
func (r *Record) Clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	c.InputRequests = cloneRaw(r.InputRequests)
	c.Responses = cloneRaw(r.Responses)
	c.Asked = slices.Clone(r.Asked)
	c.Result = slices.Clone(r.Result)
	if r.Error != nil {
		e := *r.Error
		e.Data = slices.Clone(r.Error.Data)
		c.Error = &e
	}
	return &c
}

func cloneRaw(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := maps.Clone(m)
	for k, v := range c {
		c[k] = slices.Clone(v)
	}
	return c
}

// info renders the record's metadata as the wire's Task shape.
func (r *Record) info() Info {
	in := Info{
		TaskID:         r.ID,
		Status:         r.Status,
		StatusMessage:  r.StatusMessage,
		CreatedAt:      r.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  r.UpdatedAt.UTC().Format(time.RFC3339Nano),
		PollIntervalMs: r.PollInterval.Milliseconds(),
	}
	if r.TTL > 0 {
		ms := r.TTL.Milliseconds()
		in.TTLMs = &ms
	}
	if in.PollIntervalMs <= 0 {
		in.PollIntervalMs = 0
	}
	return in
}

// detailed renders the record as the answer to tasks/get.
func (r *Record) detailed() *GetTaskResult {
	res := &GetTaskResult{ResultType: ResultTypeComplete, Info: r.info()}
	switch r.Status {
	case StatusInputRequired:
		res.InputRequests = cloneRaw(r.InputRequests)
		if res.InputRequests == nil {
			res.InputRequests = map[string]json.RawMessage{}
		}
	case StatusCompleted:
		res.Result = slices.Clone(r.Result)
	case StatusFailed:
		res.Error = r.Error
		if res.Error == nil {
			res.Error = &ErrorObject{Code: -32603, Message: "the task failed without a recorded error"}
		}
	}
	return res
}

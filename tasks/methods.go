package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// get serves tasks/get.
func (x *Extension) get(ctx context.Context, _ *mcp.ServerSession, p *GetTaskParams) (*GetTaskResult, error) {
	rec, err := x.load(ctx, taskID(p))
	if err != nil {
		return nil, err
	}
	return rec.detailed(), nil
}

// update serves tasks/update: answers for outstanding questions are taken,
// answers for anything else are ignored.
func (x *Extension) update(ctx context.Context, _ *mcp.ServerSession, p *UpdateTaskParams) (*UpdateTaskResult, error) {
	var id string
	var responses map[string]json.RawMessage
	if p != nil {
		id, responses = p.TaskID, p.InputResponses
	}
	if _, err := x.load(ctx, id); err != nil {
		return nil, err
	}
	var taken map[string]*mcp.ElicitResult
	_, err := x.store.Update(ctx, id, x.bounded(func(r *Record) error {
		taken = map[string]*mcp.ElicitResult{}
		if r.Status.Terminal() {
			return nil
		}
		for _, key := range sortedKeys(responses) {
			question, pending := r.InputRequests[key]
			if !pending {
				continue
			}
			answer, err := decodeAnswer(question, responses[key])
			if err != nil {
				return invalidParams("inputResponses[%q]: %v", key, err)
			}
			delete(r.InputRequests, key)
			if r.Responses == nil {
				r.Responses = map[string]json.RawMessage{}
			}
			r.Responses[key] = responses[key]
			taken[key] = answer
		}
		if len(taken) > 0 {
			r.UpdatedAt = x.opts.Now()
			if len(r.InputRequests) == 0 && r.Status == StatusInputRequired {
				r.Status = StatusWorking
				r.StatusMessage = "Answer received; the task continues."
			}
		}
		return nil
	}))
	if errors.Is(err, ErrRecordTooLarge) {
		return nil, invalidParams("inputResponses: %v; send shorter answers", err)
	}
	if err != nil {
		return nil, x.storeError(err)
	}
	if len(taken) > 0 {
		if r := x.localRun(id); r != nil {
			r.deliver(taken)
		}
	}
	return &UpdateTaskResult{ResultType: ResultTypeComplete}, nil
}

// cancel serves tasks/cancel. Cancelling a finished task is acknowledged and
// changes nothing.
func (x *Extension) cancel(ctx context.Context, _ *mcp.ServerSession, p *CancelTaskParams) (*CancelTaskResult, error) {
	id := ""
	if p != nil {
		id = p.TaskID
	}
	rec, err := x.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if !rec.Status.Terminal() {
		_, err := x.store.Update(ctx, id, func(r *Record) error {
			if !r.Status.Terminal() && !r.CancelRequested {
				r.CancelRequested = true
				r.StatusMessage = "Cancelling at the client's request."
				r.UpdatedAt = x.opts.Now()
			}
			return nil
		})
		if err != nil {
			return nil, x.storeError(err)
		}
		if r := x.localRun(id); r != nil {
			r.cancel(ErrCancelled)
		}
	}
	return &CancelTaskResult{ResultType: ResultTypeComplete}, nil
}

func taskID(p *GetTaskParams) string {
	if p == nil {
		return ""
	}
	return p.TaskID
}

// load reads a task for a tasks/* request: it hides other users' tasks,
// drops expired ones and fails tasks whose runner is gone.
func (x *Extension) load(ctx context.Context, id string) (*Record, error) {
	if id == "" {
		return nil, invalidParams("taskId is required")
	}
	rec, err := x.store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, invalidParams("Failed to retrieve task: Task not found")
	}
	if err != nil {
		return nil, x.storeError(err)
	}
	caller, _ := ctx.Value(callerKey{}).(string)
	if rec.Owner != caller {
		// Someone else's task looks exactly like a missing one.
		return nil, invalidParams("Failed to retrieve task: Task not found")
	}
	now := x.opts.Now()
	if rec.Expired(now) {
		if r := x.localRun(id); r != nil {
			r.cancel(ErrExpired)
		}
		if err := x.store.Delete(ctx, id); err != nil {
			x.logger.Warn("delete expired task", "task", id, "error", err)
		}
		return nil, invalidParams("Failed to retrieve task: Task has expired")
	}
	if !rec.Status.Terminal() && x.orphaned(rec) {
		rec, err = x.store.Update(ctx, id, func(r *Record) error {
			if r.Status.Terminal() || !x.orphaned(r) {
				return nil
			}
			r.Status = StatusFailed
			r.InputRequests, r.Responses = nil, nil
			r.Error = &ErrorObject{Code: -32603, Message: "task interrupted: the server instance running it stopped before it finished"}
			r.StatusMessage = "The task was interrupted: the server stopped while it was running. Start it again."
			r.UpdatedAt = x.opts.Now()
			return nil
		})
		if err != nil {
			return nil, x.storeError(err)
		}
	}
	return rec, nil
}

// orphaned reports whether nobody runs an unfinished task any more.
func (x *Extension) orphaned(r *Record) bool {
	if r.Runner == x.instance {
		// Ours: orphaned only if its code no longer runs here, which means
		// its end could not be recorded (the store was down when it ended).
		return x.localRun(r.ID) == nil
	}
	if !x.shared {
		// The store belongs to this process alone: the process that
		// started the task is gone.
		return true
	}
	return x.opts.Now().Sub(r.Heartbeat) > 3*x.opts.Heartbeat
}

// storeError is what the client is told of a failed store operation: "not
// found" for a missing task, a JSON-RPC error the extension made itself as it
// is, and otherwise a neutral internal error. The store's own text (a Redis
// address, a file path, a driver's message) goes to Options.Logger only.
func (x *Extension) storeError(err error) error {
	if errors.Is(err, ErrNotFound) {
		return invalidParams("Failed to retrieve task: Task not found")
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return err
	}
	x.logger.Error("task store", "error", err)
	return internalError("%s", errStoreFailed)
}

// errStoreFailed is all a client learns of a store failure.
const errStoreFailed = "the task store failed; try again later"

// decodeAnswer reads one answer to an outstanding question and checks it
// (see [checkAnswer]).
func decodeAnswer(question, raw json.RawMessage) (*mcp.ElicitResult, error) {
	var q inputRequestWire
	if err := json.Unmarshal(question, &q); err != nil {
		return nil, fmt.Errorf("stored question is unreadable: %v", err)
	}
	if q.Method != methodElicit {
		return nil, fmt.Errorf("questions of method %q cannot be answered here", q.Method)
	}
	var a mcp.ElicitResult
	if err := strictjson.Decode(raw, &a); err != nil {
		return nil, fmt.Errorf("not an elicitation result: %v", err)
	}
	var p struct {
		Mode            string          `json:"mode"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if err := json.Unmarshal(q.Params, &p); err != nil {
		return nil, fmt.Errorf("stored question is unreadable: %v", err)
	}
	var schema any
	if len(p.RequestedSchema) > 0 {
		schema = p.RequestedSchema
	}
	if err := checkAnswer(p.Mode, schema, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// checkAnswer holds an elicitation result to the question it answers, the
// same way on every path an answer takes to a task's code (tasks/update, and
// elicitation/create on an older protocol): the action must be accept,
// decline or cancel; an answer that is not an accept loses its content; an
// accepted form answer must fit the requested schema (formschema's checks:
// no field it does not ask for, formats, bounds); a URL question's answer
// loses any content. mode and schema are the question's; a form question
// without a schema has no content to check.
func checkAnswer(mode string, schema any, a *mcp.ElicitResult) error {
	switch a.Action {
	case "accept", "decline", "cancel":
	default:
		return fmt.Errorf("action must be accept, decline or cancel, not %q", a.Action)
	}
	if a.Action != "accept" {
		a.Content = nil
		return nil
	}
	if mode == "url" {
		// A URL question's input happens out of band: an accept carries
		// no content, and what a client sends anyway never reaches the
		// task's code.
		a.Content = nil
		return nil
	}
	if schema == nil {
		return nil
	}
	s, err := formschema.Parse(schema)
	if err != nil {
		return fmt.Errorf("the question has an invalid schema: %v", err)
	}
	if a.Content == nil {
		a.Content = map[string]any{}
	}
	return s.Validate(a.Content)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

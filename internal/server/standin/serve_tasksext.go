package standin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stand-in serves a recorded task of the tasks extension as a task to a
// client that declares the extension on its call, as the recorded server
// did: it offers the extension, answers the call with a task of its own
// (resultType "task"), and each tasks/get with the next recorded status.
// It stops at a status that waits for questions (input_required, the
// recorded questions under inputRequests) until tasks/update has answered
// them, each answer checked against the recorded one; it shows a status
// recorded after the client's tasks/cancel only to a client that cancels,
// and stays at the last status the recording holds, which is, for a task
// that ended, completed with the recorded result, or failed with the
// recorded error. A client that declares no extension gets the call as
// the task amounts to (see ExtTask).

// hasExtTasks reports whether a call of the script ran as a task of the
// tasks extension.
func (sc *Script) hasExtTasks() bool {
	return slices.ContainsFunc(sc.Exchanges, func(x *Exchange) bool { return x.ExtTask != nil })
}

// servesTasks reports whether the stand-in answers the tasks/* requests
// of the tasks extension (tasks/get, tasks/update, tasks/cancel): for a
// recording that holds a task of either era (a recorded task of
// 2025-11-25 runs as a task of the extension for a client of 2026-07-28).
// tasks/result and tasks/list are answered where servesTasks2025.
func (s *Standin) servesTasks() bool {
	return s.script.hasExtTasks() || s.script.hasTasks2025()
}

// withoutExtension is an initialize result without the extension id in
// its capabilities.
func withoutExtension(res mcp.Result, id string) (mcp.Result, error) {
	return patchResult(res, func(m map[string]json.RawMessage) {
		var caps map[string]json.RawMessage
		if json.Unmarshal(m["capabilities"], &caps) != nil || caps == nil {
			return
		}
		var ext map[string]json.RawMessage
		if json.Unmarshal(caps["extensions"], &ext) != nil || ext == nil {
			return
		}
		delete(ext, id)
		if len(ext) == 0 {
			delete(caps, "extensions")
		} else {
			caps["extensions"], _ = json.Marshal(ext)
		}
		m["capabilities"], _ = json.Marshal(caps)
	})
}

// modernResult reports whether an initialize result agreed on protocol
// 2026-07-28 or later.
func modernResult(res mcp.Result) bool {
	ir, ok := res.(*mcp.InitializeResult)
	return ok && ir.ProtocolVersion >= modern
}

// extTask is one task of the tasks extension the stand-in runs, serving a
// recorded one (x.ExtTask).
type extTask struct {
	id string
	x  *Exchange
	// rec is what it serves: x.ExtTask, or the task of the extension a
	// recorded task of 2025-11-25 amounts to (asExtTask).
	rec     *ExtTask
	created string

	mu sync.Mutex
	// cur is the index in x.ExtTask.States of the status shown; own, a
	// status of the stand-in's own that replaces it (a cancel the
	// recording holds nothing after).
	cur       int
	own       *TaskState
	answered  map[string]bool // the keys of the questions answered
	shown     bool            // tasks/get showed questions
	cancelled bool
	updated   string
}

// startExtTask answers a call with a task of its own that will serve x,
// once the client can be asked each of x's questions.
func (s *Standin) startExtTask(req mcp.Request, client string, x *Exchange) (mcp.Result, error) {
	for _, q := range x.questions() {
		ir, err := inputRequest(q)
		if err != nil {
			return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: question %q (line %d): %v", q.Key, q.Line, err)
		}
		if !ask.Permits(req.(ask.Request), ir) {
			return nil, s.undeclared(req, x, q, ir)
		}
	}
	rec := x.ExtTask
	if rec == nil {
		rec = x.asExtTask()
	}
	now := stamp(s.opts.Now())
	tk := &extTask{id: rand.Text(), x: x, rec: rec, created: now, updated: now, answered: map[string]bool{}}
	if err := s.tasks.add(tk.id, client, tk); err != nil {
		s.refusedOwn(x.Label(), x.Line, nil, err)
		return nil, err
	}
	return &tasks.CreateTaskResult{ResultType: tasks.ResultTypeTask, Info: tk.info(rec.States[0])}, nil
}

// asExtTask is the task of the tasks extension that x, a call the server
// ran as a task of 2025-11-25, amounts to for a client of 2026-07-28 that
// asks for a task: working, then input_required with each recorded round
// of questions in turn, then how it ended: completed with the recorded
// result, failed with the recorded error (or, when the recording holds
// neither, with why). Each status shows the message the server showed
// with it (the nth input_required the nth one), none where it showed
// none.
func (x *Exchange) asExtTask() *ExtTask {
	ttl := int64(task2025TTL)
	rec := &ExtTask{ID: x.Task.ID, Line: x.Task.Line, TTLMs: &ttl, PollIntervalMs: task2025PollInterval,
		States: []TaskState{{Line: x.Task.Line, Status: tasks.StatusWorking, Message: x.Task.message("working", 0)}}}
	for i, r := range x.Rounds {
		st := TaskState{Status: tasks.StatusInputRequired, Message: x.Task.message("input_required", i)}
		for _, q := range r.Questions {
			st.Keys = append(st.Keys, q.Key)
			if st.Line == 0 {
				st.Line = q.Line
			}
		}
		rec.States = append(rec.States, st)
	}
	end := TaskState{Line: x.ResultLine, Status: tasks.StatusCompleted, Message: x.Task.message("completed", -1)}
	if x.Err != nil || !x.Ended {
		end.Status, end.Message = tasks.StatusFailed, x.Unended
	}
	rec.States = append(rec.States, end)
	return rec
}

// extTaskUpdate is tasks/update: the answers to the questions the task
// waits for are checked against the recorded ones and taken; answers to
// anything else are ignored, as the extension ignores them.
func (s *Standin) extTaskUpdate(ctx context.Context, ss *mcp.ServerSession, p *tasks.UpdateTaskParams) (*tasks.UpdateTaskResult, error) {
	tk, ok := s.tasks.get(p.TaskID).(*extTask)
	if !ok {
		if _, old := s.tasks.get(p.TaskID).(*task2025); old {
			if err := oldClient(ss, &taskIDParams{ParamsBase: p.ParamsBase, TaskID: p.TaskID}, tasks.MethodUpdate); err != nil {
				return nil, err
			}
		}
		return nil, noTask(p.TaskID)
	}
	if err := declaredTasks(ss, p); err != nil {
		return nil, err
	}
	taken := tk.take(p.InputResponses, s.opts.Now())
	for _, q := range taken {
		a, err := inputResponse(p.InputResponses[q.Key])
		if err != nil {
			detail := fmt.Sprintf("the answer to the task's question %q cannot be read: %v", q.Key, err)
			s.rep.problem(Problem{Kind: ProblemAnswer, Request: tk.x.Label(), Line: tk.x.Line, Key: q.Key, Detail: detail})
			continue
		}
		s.check(tk.x, q, a)
	}
	return &tasks.UpdateTaskResult{ResultType: tasks.ResultTypeComplete}, nil
}

// declaredTasks refuses a tasks/* request whose client did not declare the
// extension, as the extension does: -32021, naming it.
func declaredTasks[P mcp.Params](ss *mcp.ServerSession, p P) error {
	if tasks.Declared(&mcp.ServerRequest[P]{Session: ss, Params: p}) {
		return nil
	}
	return ask.MissingCapability(&mcp.ClientCapabilities{Extensions: map[string]any{tasks.ExtensionID: map[string]any{}}})
}

// inputResponse reads an answer as the go-sdk reads inputResponses.
func inputResponse(raw json.RawMessage) (mcp.InputResponse, error) {
	b, err := json.Marshal(map[string]json.RawMessage{"a": raw})
	if err != nil {
		return nil, err
	}
	var m mcp.InputResponseMap
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m["a"], nil
}

// stamp is a time as a task's timestamps show it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// states are the recorded statuses tk serves.
func (tk *extTask) states() []TaskState { return tk.rec.States }

// state is the status shown. Under tk.mu.
func (tk *extTask) state() TaskState {
	if tk.own != nil {
		return *tk.own
	}
	return tk.states()[tk.cur]
}

func (tk *extTask) ended() bool {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.state().Status.Terminal()
}

// waiting are the questions the shown status waits for that the client
// has not answered. Under tk.mu.
func (tk *extTask) waiting() []*Question {
	st := tk.state()
	if st.Status != tasks.StatusInputRequired || tk.cancelled {
		return nil
	}
	var out []*Question
	for _, q := range tk.x.questions() {
		if slices.Contains(st.Keys, q.Key) && !tk.answered[q.Key] {
			out = append(out, q)
		}
	}
	return out
}

// poll is tasks/get: the next recorded status the client may see, then
// the task as it shows it.
func (tk *extTask) poll(now time.Time) *tasks.GetTaskResult {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.advance() {
		tk.updated = stamp(now)
	}
	st := tk.state()
	g := &tasks.GetTaskResult{ResultType: tasks.ResultTypeComplete, Info: tk.info(st)}
	switch st.Status {
	case tasks.StatusInputRequired:
		for _, q := range tk.waiting() {
			if g.InputRequests == nil {
				g.InputRequests = map[string]json.RawMessage{}
			}
			g.InputRequests[q.Key], _ = json.Marshal(map[string]any{"method": q.Method, "params": questionParams(q)})
			tk.shown = true
		}
	case tasks.StatusCompleted:
		g.Result = tk.x.Result
	case tasks.StatusFailed:
		switch e := tk.x.Err; {
		case e != nil:
			g.Error = &tasks.ErrorObject{Code: e.Code, Message: e.Message, Data: e.Data}
		case !tk.x.Ended:
			g.Error = &tasks.ErrorObject{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("mcp-tester serve: the recording holds no result of %s's task (line %d): %s", tk.x.Label(), tk.x.Line, tk.x.Unended)}
		}
	}
	return g
}

// questionParams are a question's params, an empty object when it has
// none.
func questionParams(q *Question) json.RawMessage {
	if len(q.Params) == 0 {
		return json.RawMessage("{}")
	}
	return q.Params
}

// advance moves to the next recorded status the client may see, past the
// statuses that wait for questions it has answered already, and reports
// whether it moved. It stays where questions wait for the client, and at
// the last status the recording holds; a client that cancelled sees the
// statuses recorded after the recorded cancel, one that did not sees none
// of them. Under tk.mu.
func (tk *extTask) advance() bool {
	if tk.own != nil || len(tk.waiting()) > 0 {
		return false
	}
	moved := false
	for {
		next, ok := tk.next()
		if !ok {
			return moved
		}
		tk.cur, moved = next, true
		if tk.state().Status != tasks.StatusInputRequired || len(tk.waiting()) > 0 {
			return moved
		}
	}
}

// next is the index of the status after the one shown, for a client that
// cancelled or not. Under tk.mu.
func (tk *extTask) next() (int, bool) {
	states := tk.states()
	i := tk.cur + 1
	if tk.cancelled {
		for i < len(states) && !states[i].AfterCancel {
			i++
		}
	}
	if i >= len(states) || states[i].AfterCancel != tk.cancelled {
		return 0, false
	}
	return i, true
}

// cancel is tasks/cancel: a task that has not ended goes on to the
// statuses recorded after a cancel, or ends cancelled when the recording
// holds none.
func (tk *extTask) cancel(now time.Time) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.state().Status.Terminal() || tk.cancelled {
		return
	}
	tk.cancelled = true
	tk.updated = stamp(now)
	if _, ok := tk.next(); !ok {
		tk.own = &TaskState{Status: tasks.StatusCancelled, Message: "Cancelled at the client's request."}
	}
}

// take takes the answers to the questions the task waits for, and returns
// those questions.
func (tk *extTask) take(responses map[string]json.RawMessage, now time.Time) []*Question {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	var taken []*Question
	for _, q := range tk.waiting() {
		if _, ok := responses[q.Key]; ok {
			tk.answered[q.Key] = true
			taken = append(taken, q)
		}
	}
	if len(taken) > 0 {
		tk.updated = stamp(now)
	}
	return taken
}

// unanswered says, for the report, which questions the client was shown
// and has not answered in a task still waiting for them ("" for none).
func (tk *extTask) unanswered() string {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if !tk.shown {
		return ""
	}
	for _, q := range tk.waiting() {
		return q.Key
	}
	return ""
}

// info is the task's metadata with status st.
func (tk *extTask) info(st TaskState) tasks.Info {
	rec := tk.rec
	return tasks.Info{TaskID: tk.id, Status: st.Status, StatusMessage: st.Message,
		CreatedAt: tk.created, LastUpdatedAt: tk.updated, TTLMs: rec.TTLMs, PollIntervalMs: rec.PollIntervalMs}
}

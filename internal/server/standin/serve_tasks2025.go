//lint:file-ignore SA1019 sampling and roots are deprecated but still asked of clients that declare them

package standin

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stand-in serves a recorded task of protocol 2025-11-25 as a task to a
// client of that protocol that asks for one (params.task): it
// offers what the recorded server offered (capabilities.tasks, each tool's
// execution), answers the call with a task of its own, tasks/get with the
// task's status (input_required while the recorded questions wait, then
// completed), and tasks/result by asking the recorded questions, related
// to the task, then giving the recorded result. The go-sdk keeps no
// params.task: the stdio connection (taskConn) and the HTTP handler
// (taskBodies) move it into the call's _meta on the way in. A client of
// 2026-07-28 that declares the tasks extension gets the task as a task of
// the extension (asExtTask), and one of its tasks/* requests about a task
// of 2025-11-25 an error that says why (oldClient). A client that asks for
// no task gets the call as the task amounts to (see Task2025).

// The ttl and pollInterval (milliseconds) of the tasks a stand-in runs for
// recorded tasks of 2025-11-25, whose recording it does not read them from.
const (
	task2025TTL          = 600000
	task2025PollInterval = 100
)

// metaTaskParam is the _meta key a tools/call's params.task is moved to on
// its way in: the go-sdk keeps no params.task.
const metaTaskParam = "askback.standin/task"

// task2025 is one task the stand-in runs.
type task2025 struct {
	x *Exchange
	// session is the id of the session that started it (over HTTP its
	// Mcp-Session-Id; over stdio, one client, none): as the reference
	// server keeps them, a task of 2025-11-25 is that session's, found by
	// it alone (taskGet, taskCancel, taskResult, taskList).
	session string

	mu     sync.Mutex
	state  taskState
	asking bool // tasks/result is asking or has asked
}

// taskState is a task as tasks/get and the call's answer show it.
type taskState struct {
	ID            string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type taskGetResult struct {
	mcp.ResultBase
	taskState
}

type taskCreateResult struct {
	mcp.ResultBase
	Task taskState `json:"task"`
}

type taskListResult struct {
	mcp.ResultBase
	Tasks []taskState `json:"tasks"`
}

// rawResult is a result sent as it is.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// servesTasks2025 reports whether the stand-in runs recorded tasks of
// 2025-11-25 as tasks: for a recording that holds one, served where
// params.task is read (ServeStdio, Handler).
func (s *Standin) servesTasks2025() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readsTaskParam && s.script.hasTasks2025()
}

// hasTasks2025 reports whether a call of the script ran as a task of
// 2025-11-25.
func (sc *Script) hasTasks2025() bool {
	for _, x := range sc.Exchanges {
		if x.Task != nil {
			return true
		}
	}
	return false
}

// registerTasks adds the tasks/* methods of the recorded tasks: tasks/get,
// tasks/cancel and tasks/update for tasks of either era (a recorded task
// of 2025-11-25 runs as a task of the extension for a client of
// 2026-07-28), tasks/result and tasks/list for those of 2025-11-25.
func (s *Standin) registerTasks() error {
	if !s.servesTasks() {
		return nil
	}
	errs := []error{
		mcp.AddReceivingCustomMethod(s.server, "tasks/get", s.taskGet),
		mcp.AddReceivingCustomMethod(s.server, "tasks/cancel", s.taskCancel),
		mcp.AddReceivingCustomMethod(s.server, tasks.MethodUpdate, s.extTaskUpdate),
	}
	if s.script.hasTasks2025() {
		errs = append(errs,
			mcp.AddReceivingCustomMethod(s.server, "tasks/result", s.taskResult),
			mcp.AddReceivingCustomMethod(s.server, "tasks/list", s.taskList))
	}
	return errors.Join(errs...)
}

// taskGet is tasks/get, for a task of either era.
func (s *Standin) taskGet(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (mcp.Result, error) {
	switch tk := s.tasks.get(p.TaskID).(type) {
	case *task2025:
		if err := oldClient(ss, p, "tasks/get"); err != nil {
			return nil, err
		}
		if err := tk.ofSession(ss, p.TaskID); err != nil {
			return nil, err
		}
		return &taskGetResult{taskState: tk.status()}, nil
	case *extTask:
		if err := declaredTasks(ss, p); err != nil {
			return nil, err
		}
		return tk.poll(s.opts.Now()), nil
	}
	return nil, noTask(p.TaskID)
}

// taskCancel is tasks/cancel, for a task of either era.
func (s *Standin) taskCancel(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (mcp.Result, error) {
	switch tk := s.tasks.get(p.TaskID).(type) {
	case *task2025:
		if err := oldClient(ss, p, "tasks/cancel"); err != nil {
			return nil, err
		}
		if err := tk.ofSession(ss, p.TaskID); err != nil {
			return nil, err
		}
		if !tk.set("cancelled", tk.x.Task.message("cancelled", -1)) {
			return nil, rpcError(jsonrpc.CodeInvalidParams, nil, "mcp-tester serve: task %s has ended already", p.TaskID)
		}
		return &taskGetResult{taskState: tk.status()}, nil
	case *extTask:
		if err := declaredTasks(ss, p); err != nil {
			return nil, err
		}
		tk.cancel(s.opts.Now())
		return &tasks.CancelTaskResult{ResultType: tasks.ResultTypeComplete}, nil
	}
	return nil, noTask(p.TaskID)
}

// taskList is tasks/list (2025-11-25): the tasks of that era the
// client's session started.
func (s *Standin) taskList(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*taskListResult, error) {
	out := &taskListResult{Tasks: []taskState{}}
	for _, t := range s.tasks.all() {
		if tk, ok := t.(*task2025); ok && tk.session == ss.ID() {
			out.Tasks = append(out.Tasks, tk.status())
		}
	}
	return out, nil
}

// oldClient refuses a request of a client of 2026-07-28 about a task of
// 2025-11-25, which a client of that protocol started: it is found
// nowhere else, as a server of 2025-11-25 (whose clients are of that
// protocol) would not find another session's task; the error says so,
// and what to do.
func oldClient(ss *mcp.ServerSession, p *taskIDParams, method string) error {
	if (&mcp.ServerRequest[*taskIDParams]{Session: ss, Params: p}).ProtocolVersion() < modern {
		return nil
	}
	return rpcError(jsonrpc.CodeInvalidParams, nil,
		"mcp-tester serve: no task %q of protocol 2026-07-28: it is a task of protocol 2025-11-25, started by a client of that protocol, and a client of 2026-07-28 cannot %s it (its questions come with tasks/result of 2025-11-25); use protocol 2025-11-25", p.TaskID, strings.TrimPrefix(method, "tasks/"))
}

func noTask(id string) error {
	return rpcError(jsonrpc.CodeInvalidParams, nil, "mcp-tester serve: no task %q", id)
}

// ofSession refuses a request about the task from another session than
// the one that started it, as a server of 2025-11-25 that keeps its
// tasks per session (the reference server) finds none: -32602.
func (tk *task2025) ofSession(ss *mcp.ServerSession, id string) error {
	if tk.session == ss.ID() {
		return nil
	}
	return rpcError(jsonrpc.CodeInvalidParams, nil,
		"mcp-tester serve: no task %q in this session: a task of protocol 2025-11-25 is kept in the session that started it, as the reference server keeps it, and this is another", id)
}

// taskRequested reports whether a tools/call asked to run as a task
// (params.task, moved into _meta by the stdio connection).
func taskRequested(req mcp.Request) bool {
	p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
	return ok && p != nil && p.Meta[metaTaskParam] != nil
}

// startTask2025 answers a call of session (its id) with a task of its
// own that will serve x.
func (s *Standin) startTask2025(client, session string, x *Exchange) (mcp.Result, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: a task id: %v", err)
	}
	now := s.opts.Now().UTC().Format(time.RFC3339Nano)
	tk := &task2025{x: x, session: session, state: taskState{ID: hex.EncodeToString(b), Status: "working", CreatedAt: now, LastUpdatedAt: now, TTL: task2025TTL, PollInterval: task2025PollInterval}}
	// Its status messages are those the server showed (none where it
	// showed none), never the stand-in's own.
	if x.Questions() == 0 {
		tk.state.Status = "completed"
		if x.Err != nil {
			tk.state.Status = "failed"
		}
		tk.state.StatusMessage = x.Task.message(tk.state.Status, -1)
	} else {
		tk.state.Status, tk.state.StatusMessage = "input_required", x.Task.message("input_required", 0)
	}
	if err := s.tasks.add(tk.state.ID, client, tk); err != nil {
		s.refusedOwn(x.Label(), x.Line, nil, err)
		return nil, err
	}
	return &taskCreateResult{Task: tk.status()}, nil
}

func (s *Standin) findTask(id string) (*task2025, error) {
	if tk, ok := s.tasks.get(id).(*task2025); ok {
		return tk, nil
	}
	return nil, noTask(id)
}

func (tk *task2025) ended() bool {
	switch tk.status().Status {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

func (tk *task2025) status() taskState {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.state
}

// set changes a task's status unless it has ended.
func (tk *task2025) set(status, msg string) bool {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	switch tk.state.Status {
	case "completed", "failed", "cancelled":
		return false
	}
	tk.state.Status, tk.state.StatusMessage = status, msg
	tk.state.LastUpdatedAt = time.Now().UTC().Format(time.RFC3339Nano)
	return true
}

// taskResult is tasks/result: the recorded questions asked (related to the
// task), each answer checked, then the recorded result or error.
func (s *Standin) taskResult(ctx context.Context, ss *mcp.ServerSession, p *taskIDParams) (*rawResult, error) {
	tk, err := s.findTask(p.TaskID)
	if err != nil {
		return nil, err
	}
	if err := tk.ofSession(ss, p.TaskID); err != nil {
		return nil, err
	}
	x := tk.x
	tk.mu.Lock()
	first := !tk.asking
	tk.asking = true
	tk.mu.Unlock()
	if first {
		related := mcp.Meta{metaRelatedTask: map[string]any{"taskId": tk.state.ID}}
		for _, r := range x.Rounds {
			for _, q := range r.Questions {
				a, err := s.askTask(ctx, ss, q, related)
				if err != nil {
					tk.set("failed", "the client did not answer")
					s.rep.problem(Problem{Kind: ProblemAnswer, Request: x.Label(), Line: x.Line, Key: q.Key,
						Detail: fmt.Sprintf("the task's question was not answered: %v", err)})
					return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: task %s: %v", tk.state.ID, err)
				}
				s.check(x, q, a)
			}
		}
	}
	if x.Err != nil {
		tk.set("failed", x.Err.Message)
		e := *x.Err
		return nil, &e
	}
	if !x.Ended {
		tk.set("failed", x.Unended)
		return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: the recording holds no result of %s's task (line %d): %s", x.Label(), x.Line, x.Unended)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(x.Result, &members); err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: the recorded result of %s (line %d): %v", x.Label(), x.ResultLine, err)
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(members["_meta"], &meta)
	meta[metaRelatedTask], _ = json.Marshal(map[string]any{"taskId": tk.state.ID})
	members["_meta"], _ = json.Marshal(meta)
	raw, err := json.Marshal(members)
	if err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, nil, "mcp-tester serve: %v", err)
	}
	tk.set("completed", x.Task.message("completed", -1))
	return &rawResult{raw: raw}, nil
}

// askTask asks one recorded question of a task as a request of the
// server, related to the task.
func (s *Standin) askTask(ctx context.Context, ss *mcp.ServerSession, q *Question, related mcp.Meta) (mcp.InputResponse, error) {
	ir, err := inputRequest(q)
	if err != nil {
		return nil, err
	}
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		c := *p
		c.Meta = related
		return ss.Elicit(ctx, &c)
	case *mcp.CreateMessageParams:
		c := *p
		c.Meta = related
		return ss.CreateMessage(ctx, &c)
	case *mcp.ListRootsParams:
		c := *p
		c.Meta = related
		return ss.ListRoots(ctx, &c)
	}
	return nil, fmt.Errorf("question %q asks %s, which a task of the stand-in does not ask", q.Key, q.Method)
}

// withTasks2025 is the initialize result with the recorded server's
// capabilities.tasks, which the go-sdk's capabilities have no room for.
func (s *Standin) withTasks2025(res mcp.Result) (mcp.Result, error) {
	var caps map[string]json.RawMessage
	if json.Unmarshal(s.script.Server.Capabilities, &caps) != nil || caps["tasks"] == nil {
		return res, nil
	}
	return patchResult(res, func(m map[string]json.RawMessage) {
		var c map[string]json.RawMessage
		_ = json.Unmarshal(m["capabilities"], &c)
		if c == nil {
			c = map[string]json.RawMessage{}
		}
		c["tasks"] = caps["tasks"]
		m["capabilities"], _ = json.Marshal(c)
	})
}

// withExecution is a tools/list result with each tool's execution as the
// recording lists it (task support), which the go-sdk's tools drop.
func withExecution(res mcp.Result, recorded json.RawMessage) (mcp.Result, error) {
	exec := executions(recorded)
	if len(exec) == 0 {
		return res, nil
	}
	return patchResult(res, func(m map[string]json.RawMessage) {
		var tools []map[string]json.RawMessage
		if json.Unmarshal(m["tools"], &tools) != nil {
			return
		}
		for _, t := range tools {
			var name string
			_ = json.Unmarshal(t["name"], &name)
			if e, ok := exec[name]; ok {
				t["execution"] = e
			}
		}
		m["tools"], _ = json.Marshal(tools)
	})
}

// executions are the execution members of the tools of a recorded
// tools/list result, by tool name (none when it cannot be read).
func executions(recorded json.RawMessage) map[string]json.RawMessage {
	var rec struct {
		Tools []struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(recorded, &rec) != nil {
		return nil
	}
	exec := map[string]json.RawMessage{}
	for _, t := range rec.Tools {
		if len(t.Execution) > 0 {
			exec[t.Name] = t.Execution
		}
	}
	return exec
}

// patchResult is res with f applied to its JSON object.
func patchResult(res mcp.Result, f func(m map[string]json.RawMessage)) (mcp.Result, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	f(m)
	b, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &rawResult{raw: b}, nil
}

// taskTransport moves the params.task of a tools/call into its _meta
// (metaTaskParam), where the go-sdk keeps it for the middleware.
type taskTransport struct{ inner mcp.Transport }

func (t *taskTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &taskConn{Connection: c}, nil
}

type taskConn struct{ mcp.Connection }

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		if moved, ok := movedTaskParam(req.Params); ok {
			req.Params = moved
		}
	}
	return msg, err
}

// movedTaskParam is a tools/call's params with params.task moved into
// _meta (metaTaskParam), and whether it had one. Params with a key twice,
// or keys that differ in case only, are left as they came, for the checks
// after it to refuse: rewritten, they would pass as one.
func movedTaskParam(params json.RawMessage) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if len(params) == 0 || strictjson.CheckKeys(params) != nil || json.Unmarshal(params, &p) != nil || p["task"] == nil {
		return params, false
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(p["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[metaTaskParam] = p["task"]
	delete(p, "task")
	p["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(p)
	if err != nil {
		return params, false
	}
	return b, true
}

// taskBodies is h with the params.task of a tools/call posted to it moved
// into its _meta, as taskConn does over stdio. The body has been read
// whole within its bound already (httpserve.Bodies): this reads it from
// memory.
func taskBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		// Read as the go-sdk will read it: keys as written, none twice.
		if strictjson.CheckKeys(body) == nil && strictjson.DecodeAsSDK(body, &m) == nil && m.Method == "tools/call" {
			if moved, ok := movedTaskParam(m.Params); ok {
				var msg map[string]json.RawMessage
				if json.Unmarshal(body, &msg) == nil {
					msg["params"] = moved
					if b, err := json.Marshal(msg); err == nil {
						body = b
					}
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

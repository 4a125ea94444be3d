package taskclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol 2025-11-25 has tasks of its own, in the protocol rather than in
// an extension: a server declares them in capabilities.tasks, a tool in
// execution.taskSupport ("required", "optional", "forbidden"), the client
// asks for one with params.task on tools/call and gets {"task": {...}}
// back, polls tasks/get (the task's state, no result), and takes the
// result with tasks/result, which blocks until the task ends. A task that
// needs input says input_required; the client then calls tasks/result,
// during which the server asks with elicitation/create requests of its
// own (answered as any other such request, by the session's handler).
// The go-sdk has none of it: this file adds it the way the extension is
// added, through custom methods, a sending middleware and the raw answers
// Transport keeps.

// ExtensionEra is the first protocol version whose tasks are the
// io.modelcontextprotocol/tasks extension; sessions on older versions use
// the tasks of protocol 2025-11-25.
const ExtensionEra = "2026-07-28"

// The methods of the tasks of protocol 2025-11-25 that the extension lacks.
const (
	// MethodResult blocks until the task ends and answers what the call
	// would have (2025-11-25).
	MethodResult = "tasks/result"
)

// Support is a tool's execution.taskSupport (protocol 2025-11-25).
type Support string

// The values of execution.taskSupport. An absent one means Forbidden.
const (
	SupportRequired  Support = "required"
	SupportOptional  Support = "optional"
	SupportForbidden Support = "forbidden"
)

// Offer is what a server on protocol 2025-11-25 declared of tasks in its
// capabilities (capabilities.tasks), which the go-sdk does not keep.
type Offer struct {
	ToolCalls bool // tasks.requests.tools.call: a tools/call may be a task
	List      bool // tasks.list
	Cancel    bool // tasks.cancel
}

// Legacy reports whether cs speaks a protocol older than [ExtensionEra],
// whose tasks are those of protocol 2025-11-25.
func Legacy(cs *mcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.ProtocolVersion < ExtensionEra
}

// Connect connects c through t (made by [Transport]) as c.Connect does
// and, on a protocol older than [ExtensionEra], reads what the server
// declared of tasks in its answer to initialize.
func Connect(ctx context.Context, c *mcp.Client, t mcp.Transport, opts *mcp.ClientSessionOptions) (*mcp.ClientSession, Offer, error) {
	cctx, cp := withCapture(ctx, "initialize")
	cs, err := c.Connect(cctx, t, opts)
	if err != nil {
		return nil, Offer{}, err
	}
	if !Legacy(cs) {
		return cs, Offer{}, nil
	}
	raw, _ := cp.get()
	return cs, readOffer(raw), nil
}

// readOffer reads capabilities.tasks of an initialize result.
func readOffer(raw json.RawMessage) Offer {
	var r struct {
		Capabilities struct {
			Tasks *struct {
				List     json.RawMessage `json:"list"`
				Cancel   json.RawMessage `json:"cancel"`
				Requests struct {
					Tools struct {
						Call json.RawMessage `json:"call"`
					} `json:"tools"`
				} `json:"requests"`
			} `json:"tasks"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Capabilities.Tasks == nil {
		return Offer{}
	}
	t := r.Capabilities.Tasks
	declared := func(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }
	return Offer{ToolCalls: declared(t.Requests.Tools.Call), List: declared(t.List), Cancel: declared(t.Cancel)}
}

// ListTools lists one page of tools as cs.ListTools does, and returns each
// tool's execution.taskSupport too (protocol 2025-11-25), which the go-sdk
// does not keep: a tool without one is absent from the map. The session
// must have been connected through [Transport].
func ListTools(ctx context.Context, cs *mcp.ClientSession, params *mcp.ListToolsParams) (*mcp.ListToolsResult, map[string]Support, error) {
	cctx, cp := withCapture(ctx, "tools/list")
	res, err := cs.ListTools(cctx, params)
	if err != nil {
		return nil, nil, err
	}
	raw, _ := cp.get()
	var r struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport Support `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	support := map[string]Support{}
	if json.Unmarshal(raw, &r) == nil {
		for _, t := range r.Tools {
			if t.Execution != nil && t.Execution.TaskSupport != "" {
				support[t.Name] = t.Execution.TaskSupport
			}
		}
	}
	return res, support, nil
}

// TaskParams is the task a request asks for (params.task, protocol
// 2025-11-25).
type TaskParams struct {
	// TTL is the lifetime asked for, in milliseconds from creation; 0
	// leaves it to the server.
	TTL int64 `json:"ttl,omitempty"`
}

// callParams is a tools/call's params with params.task, which the go-sdk's
// CallToolParams has no room for.
type callParams struct {
	mcp.ParamsBase
	Name           string               `json:"name"`
	Arguments      any                  `json:"arguments,omitempty"`
	InputResponses mcp.InputResponseMap `json:"inputResponses,omitempty"`
	RequestState   string               `json:"requestState,omitempty"`
	Task           *TaskParams          `json:"task"`
}

type augmentKey struct{}

// augment is the sending middleware that adds params.task to the tool
// call made with a context marked by withTask.
func augment(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		task, _ := ctx.Value(augmentKey{}).(*TaskParams)
		p, ok := req.GetParams().(*mcp.CallToolParams)
		cs, isClient := req.GetSession().(*mcp.ClientSession)
		if method != "tools/call" || task == nil || !ok || p == nil || !isClient {
			return next(ctx, method, req)
		}
		cp := &callParams{Name: p.Name, Arguments: p.Arguments, InputResponses: p.InputResponses, RequestState: p.RequestState, Task: task}
		cp.Meta = p.Meta
		return next(ctx, method, &mcp.ClientRequest[*callParams]{Session: cs, Params: cp})
	}
}

// legacyTask is the Task of protocol 2025-11-25.
type legacyTask struct {
	TaskID        string                    `json:"taskId"`
	Status        tasks.Status              `json:"status"`
	StatusMessage string                    `json:"statusMessage,omitempty"`
	CreatedAt     string                    `json:"createdAt"`
	LastUpdatedAt string                    `json:"lastUpdatedAt"`
	TTL           *millis[fieldTTL]         `json:"ttl"`
	PollInterval  millis[fieldPollInterval] `json:"pollInterval,omitempty"`
}

// info is t in the extension's words.
func (t *legacyTask) info() tasks.Info {
	return tasks.Info{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: ptr(t.TTL), PollIntervalMs: int64(t.PollInterval)}
}

// getResult is what tasks/get answers in either era: the extension's
// fields, and the Task of protocol 2025-11-25 (ttl, pollInterval). The
// times of both are read here (over the extension's members of the same
// name), so that one that is no whole number is named as such.
type getResult struct {
	tasks.GetTaskResult
	TTLMs          *millis[fieldTTLMs]         `json:"ttlMs"`
	PollIntervalMs millis[fieldPollIntervalMs] `json:"pollIntervalMs,omitempty"`
	TTL            *millis[fieldTTL]           `json:"ttl"`
	PollInterval   millis[fieldPollInterval]   `json:"pollInterval,omitempty"`
}

// normal returns g in the extension's words.
func (g *getResult) normal() *tasks.GetTaskResult {
	r := g.GetTaskResult
	r.TTLMs = cmp.Or(ptr(g.TTLMs), ptr(g.TTL))
	r.PollIntervalMs = cmp.Or(int64(g.PollIntervalMs), int64(g.PollInterval))
	return &r
}

// startTask sends the tool call with params.task (protocol 2025-11-25)
// and reads the task the server created, or the direct result of a server
// that ran the call as a plain one.
func (c *Client) startTask(ctx context.Context, params *mcp.CallToolParams) (*Started, error) {
	res, raw, err := c.callRaw(context.WithValue(ctx, augmentKey{}, &TaskParams{TTL: c.opts.TTL.Milliseconds()}), params, legacyHandle)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return &Started{Result: res}, nil
	}
	ct, err := legacyHandle(params.Name, raw)
	if err != nil {
		return nil, err
	}
	if ct == nil {
		return &Started{Result: res}, nil
	}
	var created struct {
		Task json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, fmt.Errorf("read the task handle of tool %q: %w", params.Name, err)
	}
	return &Started{Task: ct, Sent: created.Task}, nil
}

// legacyHandle reads raw, the answer to a call of tool name that asked for
// a task of protocol 2025-11-25, as the task the server created, in the
// extension's words: nil when it carries none (the server ran the call as
// a plain one).
func legacyHandle(name string, raw json.RawMessage) (*tasks.CreateTaskResult, error) {
	var created struct {
		Task *legacyTask `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, fmt.Errorf("read the answer of tool %q: %w", name, err)
	}
	if created.Task == nil {
		return nil, nil
	}
	if created.Task.TaskID == "" {
		return nil, fmt.Errorf("tool %q answered with a task that has no taskId", name)
	}
	return &tasks.CreateTaskResult{ResultType: tasks.ResultTypeTask, Info: created.Task.info()}, nil
}

// Result waits for a task of protocol 2025-11-25 to end and returns what
// the call would have returned (tasks/result): its result, or the
// JSON-RPC error. The server may ask questions while it waits, with
// elicitation/create requests of its own.
func (c *Client) Result(ctx context.Context, id string) (*mcp.CallToolResult, error) {
	res, err := mcp.CallCustomMethod[*tasks.GetTaskParams, *mcp.CallToolResult](ctx, c.cs, MethodResult, &tasks.GetTaskParams{TaskID: id})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", MethodResult, id, err)
	}
	return res, nil
}

// legacyStep acts on the status a poll of a task of protocol 2025-11-25
// saw: a task that ended, or that needs input, is waited for with
// tasks/result (the server asks its questions during it); done reports
// that the wait is over.
func (c *Client) legacyStep(ctx context.Context, id string, status tasks.Status) (done bool, res *mcp.CallToolResult, err error) {
	switch status {
	case tasks.StatusWorking:
		return false, nil, nil
	case tasks.StatusCancelled:
		return true, nil, fmt.Errorf("task %s: %w", id, ErrCancelled)
	case tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusInputRequired:
		res, err := c.Result(ctx, id)
		if w := rpcError(err); w != nil {
			return true, nil, w // the call's own error, as a direct call returns it
		}
		return true, res, err
	default:
		return true, nil, fmt.Errorf("task %s reports an unknown status %q", id, status)
	}
}

// legacyEnd reports how a task of protocol 2025-11-25 ended, told by what
// tasks/result answered, and returns that answer. A JSON-RPC error there
// may be a task that failed or one that was cancelled while tasks/result
// waited: the server's own word is asked once with tasks/get, so that a
// cancelled task is not reported as failed.
func (c *Client) legacyEnd(ctx context.Context, id string, poll int, last *Update, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	end := ended(res, err)
	if end == tasks.StatusFailed && rpcError(err) != nil {
		if g, gerr := c.Get(ctx, id); gerr == nil && g.Status == tasks.StatusCancelled {
			c.report(Update{TaskID: id, Status: tasks.StatusCancelled, StatusMessage: g.StatusMessage, Poll: poll}, last)
			return nil, fmt.Errorf("task %s: %w (tasks/result answered: %v)", id, ErrCancelled, err)
		}
	}
	if end != "" && end != last.Status {
		// tasks/result answers once the task has ended.
		c.report(Update{TaskID: id, Status: end, Poll: poll}, last)
	}
	return res, err
}

// rpcError is the JSON-RPC error inside err, or nil.
func rpcError(err error) *jsonrpc.Error {
	var w *jsonrpc.Error
	if errors.As(err, &w) {
		return w
	}
	return nil
}

// ended is the status a task of protocol 2025-11-25 ended in, told by what
// tasks/result answered (it answers only once the task has ended): a
// result is completed, one with isError or a JSON-RPC error failed (as the
// specification says of a tool call), and "" when it did not answer.
func ended(res *mcp.CallToolResult, err error) tasks.Status {
	switch {
	case rpcError(err) != nil || err == nil && res != nil && res.IsError:
		return tasks.StatusFailed
	case err == nil && res != nil:
		return tasks.StatusCompleted
	}
	return ""
}

// MethodList lists the tasks a server of protocol 2025-11-25 holds.
const MethodList = "tasks/list"

// maxListPages bounds the pages of a tasks/list: a server that always
// answers with a next cursor would be asked for ever.
const maxListPages = 1000

type listResult struct {
	mcp.ResultBase
	Tasks      []*getResult `json:"tasks"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

type listParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// List returns the tasks the server holds for this client (tasks/list of
// protocol 2025-11-25), every page, in the server's order, each in the
// extension's words as [Client.Get] gives it.
func (c *Client) List(ctx context.Context) ([]*tasks.GetTaskResult, error) {
	var out []*tasks.GetTaskResult
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxListPages {
			return out, fmt.Errorf("tasks/list: more than %d pages", maxListPages)
		}
		res, err := mcp.CallCustomMethod[*listParams, *listResult](ctx, c.cs, MethodList, &listParams{Cursor: cursor})
		if err != nil {
			return out, fmt.Errorf("tasks/list: %w", err)
		}
		for _, t := range res.Tasks {
			if t != nil {
				out = append(out, t.normal())
			}
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return out, fmt.Errorf("tasks/list: the server gave the cursor %q twice", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

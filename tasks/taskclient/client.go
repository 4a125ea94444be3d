package taskclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/askback/askback/internal/platform/sleep"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerFunc answers one question of a task: key is its key in
// inputRequests, p the elicitation it asks for. Declining is an answer; an
// error stops waiting for the task.
type AnswerFunc func(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error)

// Update is what the caller hears about a task while it waits for it.
type Update struct {
	TaskID        string
	Status        tasks.Status
	StatusMessage string
	// Poll counts the tasks/get requests made so far.
	Poll int
}

// Options configure a [Client]. The zero value declines every question.
type Options struct {
	// Answer answers the task's questions. Nil declines them all.
	Answer AnswerFunc
	// OnUpdate is called whenever the task's status or status message
	// changes, and once with the first state seen.
	OnUpdate func(Update)
	// MaxPolls bounds the tasks/get requests for one task. Default 1000.
	MaxPolls int
	// DefaultPollInterval is used when the server suggests none. Default 1s.
	DefaultPollInterval time.Duration
	// MaxPollInterval caps the interval the server suggests. Default 30s.
	MaxPollInterval time.Duration
	// Sleep waits between two polls. Default: a timer that ends early when ctx does.
	Sleep func(ctx context.Context, d time.Duration) error
	// AsTask reports, on a session of protocol 2025-11-25, whether a call
	// of the tool is to ask for a task (params.task): the server offers
	// task tool calls and the tool's execution.taskSupport allows it (see
	// [Connect] and [ListTools]). Nil: no call asks for one.
	AsTask func(tool string) bool
	// TTL is the lifetime asked for a task of protocol 2025-11-25; zero
	// leaves it to the server.
	TTL time.Duration
}

// Client drives task calls on one session. Make it with [New]; the zero
// Client is not usable (it has no session).
type Client struct {
	cs   *mcp.ClientSession
	opts Options
}

// ErrCancelled is returned when the task ended cancelled.
var ErrCancelled = errors.New("the task was cancelled")

// ErrNoHandle is returned when the session was not connected through
// [Transport], so a task handle in a tools/call answer cannot be read.
var ErrNoHandle = errors.New("taskclient: cannot read the tool call's raw answer; connect the session through taskclient.Transport")

// Register prepares c for task calls: it adds the tasks/* methods (those
// of the extension, and tasks/result and tasks/list of protocol 2025-11-25) and sending
// middleware that declares the extension on the calls this package makes
// (and on tasks/* requests), on top of what the client declares, and that
// asks for a task (params.task) on the calls of protocol 2025-11-25 that
// this package makes as tasks.
func Register(c *mcp.Client) error {
	if err := mcp.AddSendingCustomMethod[*tasks.GetTaskParams, *getResult](c, tasks.MethodGet); err != nil {
		return fmt.Errorf("register %s: %w", tasks.MethodGet, err)
	}
	if err := mcp.AddSendingCustomMethod[*tasks.UpdateTaskParams, *tasks.UpdateTaskResult](c, tasks.MethodUpdate); err != nil {
		return fmt.Errorf("register %s: %w", tasks.MethodUpdate, err)
	}
	if err := mcp.AddSendingCustomMethod[*tasks.CancelTaskParams, *tasks.CancelTaskResult](c, tasks.MethodCancel); err != nil {
		return fmt.Errorf("register %s: %w", tasks.MethodCancel, err)
	}
	if err := mcp.AddSendingCustomMethod[*tasks.GetTaskParams, *mcp.CallToolResult](c, MethodResult); err != nil {
		return fmt.Errorf("register %s: %w", MethodResult, err)
	}
	if err := mcp.AddSendingCustomMethod[*listParams, *listResult](c, MethodList); err != nil {
		return fmt.Errorf("register %s: %w", MethodList, err)
	}
	c.AddSendingMiddleware((&declared{}).middleware, augment)
	return nil
}

// declared adds the extension to the per-request capabilities the SDK put
// in _meta, for the tool calls of this package and for tasks/* requests.
// The capabilities with the extension are worked out once for each
// spelling of the client's own and kept.
type declared struct {
	mu   sync.Mutex
	with map[string]json.RawMessage // client's capabilities (JSON) -> with the extension
}

// maxDeclared bounds the spellings kept: a client declares one set of
// capabilities per protocol version.
const maxDeclared = 8

func (d *declared) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if captureFrom(ctx) != nil {
				d.add(req.GetParams())
			}
		case tasks.MethodGet, tasks.MethodUpdate, tasks.MethodCancel:
			d.add(req.GetParams())
		}
		return next(ctx, method, req)
	}
}

func (d *declared) add(p mcp.Params) {
	if p == nil {
		return
	}
	meta := p.GetMeta()
	v, ok := meta[mcp.MetaKeyClientCapabilities]
	if !ok {
		return // an older protocol: no per-request capabilities
	}
	own, err := json.Marshal(v)
	if err != nil {
		own = []byte("{}")
	}
	d.mu.Lock()
	with, ok := d.with[string(own)]
	d.mu.Unlock()
	if !ok {
		with = withExtension(own)
		d.mu.Lock()
		if d.with == nil {
			d.with = map[string]json.RawMessage{}
		}
		if len(d.with) < maxDeclared {
			d.with[string(own)] = with
		}
		d.mu.Unlock()
	}
	meta[mcp.MetaKeyClientCapabilities] = with
	p.SetMeta(meta)
}

// withExtension returns the capabilities caps (JSON) with the extension
// added.
func withExtension(caps []byte) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(caps, &m) != nil || m == nil {
		m = map[string]any{}
	}
	ext, _ := m["extensions"].(map[string]any)
	if ext == nil {
		ext = map[string]any{}
	}
	ext[tasks.ExtensionID] = map[string]any{}
	m["extensions"] = ext
	b, _ := json.Marshal(m)
	return b
}

// New returns a Client for cs. The session's client must have been prepared
// with [Register] and connected through [Transport].
func New(cs *mcp.ClientSession, opts *Options) *Client {
	c := &Client{cs: cs}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxPolls <= 0 {
		c.opts.MaxPolls = 1000
	}
	if c.opts.DefaultPollInterval <= 0 {
		c.opts.DefaultPollInterval = time.Second
	}
	if c.opts.MaxPollInterval <= 0 {
		c.opts.MaxPollInterval = 30 * time.Second
	}
	if c.opts.Sleep == nil {
		c.opts.Sleep = sleep.For
	}
	return c
}

// Started is the answer to a tool call that may have become a task: either
// Result (the server answered directly) or Task (the server created one).
type Started struct {
	Result *mcp.CallToolResult
	Task   *tasks.CreateTaskResult
	// Sent is the task as the server sent it, every member: the call's
	// answer (the tasks extension), or its task member (protocol
	// 2025-11-25, whose members Task has in the extension's words); nil
	// when the call made no task.
	Sent json.RawMessage
}

// StartTool calls a tool declaring the extension and returns without
// waiting: the direct result, or the task handle.
//
// On a session of protocol 2025-11-25 the call asks for a task when
// [Options.AsTask] says so, and is a plain call otherwise.
//
// A call whose context ends (an interrupt, a time limit) just as the
// server's task handle comes back ends with a [NotEndedError] naming the
// task, which [Options.OnUpdate] hears first: the server created the task,
// and it may run on.
func (c *Client) StartTool(ctx context.Context, params *mcp.CallToolParams) (*Started, error) {
	if Legacy(c.cs) && c.opts.AsTask != nil && c.opts.AsTask(params.Name) {
		return c.startTask(ctx, params)
	}
	res, raw, err := c.callRaw(ctx, params, extensionHandle)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		// A direct result, or no result kept to be a handle.
		return &Started{Result: res}, nil
	}
	ct, err := extensionHandle(params.Name, raw)
	if err != nil {
		return nil, err
	}
	if ct == nil {
		return &Started{Result: res}, nil
	}
	return &Started{Task: ct, Sent: raw}, nil
}

// extensionHandle reads raw, the answer to a call of tool name, as the
// extension's task handle: nil when it is none (its resultType is not
// "task").
func extensionHandle(name string, raw json.RawMessage) (*tasks.CreateTaskResult, error) {
	var probe struct {
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("read the answer of tool %q: %w", name, err)
	}
	if probe.ResultType != tasks.ResultTypeTask {
		return nil, nil
	}
	var ct tasks.CreateTaskResult
	if err := json.Unmarshal(raw, &ct); err != nil {
		return nil, fmt.Errorf("read the task handle of tool %q: %w", name, err)
	}
	if ct.TaskID == "" {
		return nil, fmt.Errorf("tool %q answered with a task that has no taskId", name)
	}
	return &ct, nil
}

// handleFunc reads the answer to a call of tool name as a task handle: nil
// when it is none.
type handleFunc func(name string, raw json.RawMessage) (*tasks.CreateTaskResult, error)

// callRaw calls the tool and returns the result as the go-sdk decoded it
// and, when that may be a task handle, the raw answer to read it again
// (nil when the result is direct or no result was kept). A session not
// connected through Transport cannot say what the raw answer was:
// ErrNoHandle. handle reads a handle of the call's era, for a call cut
// short (see [Client.cutShort]).
func (c *Client) callRaw(ctx context.Context, params *mcp.CallToolParams, handle handleFunc) (*mcp.CallToolResult, json.RawMessage, error) {
	cctx, cp := withCapture(ctx, "tools/call")
	res, err := c.cs.CallTool(cctx, params)
	if err != nil {
		return nil, nil, c.cutShort(ctx, params.Name, cp, handle, err)
	}
	if !mayBeTask(res) {
		return res, nil, nil
	}
	raw, seen := cp.get()
	if !seen {
		return nil, nil, ErrNoHandle
	}
	return res, raw, nil
}

// cutShort is err, the error of a call of tool name, unless the call's
// context ended (an interrupt, a time limit) as the server's answer came
// (the go-sdk then reports the context's end, and drops the answer): when
// that answer, as cp kept it, is a task handle, the server created the
// task, which may run on. The error is then a NotEndedError naming it,
// and OnUpdate hears of the task first, as it does of one the call
// returns, so that the caller can say which task it leaves.
func (c *Client) cutShort(ctx context.Context, name string, cp *capture, handle handleFunc, err error) error {
	if ctx.Err() == nil {
		return err
	}
	raw, _ := cp.get()
	if raw == nil {
		return err
	}
	ct, herr := handle(name, raw)
	if herr != nil || ct == nil {
		return err
	}
	u := Update{TaskID: ct.TaskID, Status: ct.Status, StatusMessage: ct.StatusMessage}
	c.report(u, nil)
	return &NotEndedError{Last: u, Err: err}
}

// mayBeTask reports whether res, as the go-sdk decoded it, may be a task
// handle, which has no content, no structured content, no questions and
// no error flag: only then is the raw answer read again.
func mayBeTask(res *mcp.CallToolResult) bool {
	return res == nil || len(res.Content) == 0 && res.StructuredContent == nil && !res.NeedsInput() && !res.IsError && res.RequestState == ""
}

// CallTool calls a tool and, if the server runs it as a task, waits for the
// task to end, answering its questions on the way. It returns what a direct
// call returns: the final CallToolResult (also one with IsError), or the
// JSON-RPC error (*jsonrpc.Error) of a failed task. An input_required result
// of the call itself (multi round-trip) is returned as is, for the caller to
// answer and retry.
func (c *Client) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	s, err := c.StartTool(ctx, params)
	if err != nil {
		return nil, err
	}
	if s.Task == nil {
		return s.Result, nil
	}
	c.report(Update{TaskID: s.Task.TaskID, Status: s.Task.Status, StatusMessage: s.Task.StatusMessage}, nil)
	return c.wait(ctx, s.Task.TaskID, &s.Task.Info)
}

// Wait waits for a task to end, answering its questions, and returns its
// result as [Client.CallTool] does.
func (c *Client) Wait(ctx context.Context, taskID string) (*mcp.CallToolResult, error) {
	return c.wait(ctx, taskID, nil)
}

func (c *Client) report(u Update, last *Update) {
	if c.opts.OnUpdate == nil {
		return
	}
	if last != nil && last.Status == u.Status && last.StatusMessage == u.StatusMessage {
		return
	}
	c.opts.OnUpdate(u)
}

// A NotEndedError is the error of a wait for a task that its context ended
// (a time limit, an interrupt) between two polls or during one: the server
// had answered every earlier poll, and the task had not ended. Last is its
// last status. It is also the error of a tool call whose context ended as
// the task handle came back (see [Client.StartTool]): Last is then the
// status the handle gave.
type NotEndedError struct {
	Last Update
	Err  error // the context's error, or the poll's it cut short
}

func (e *NotEndedError) Error() string {
	return fmt.Sprintf("waiting for task %s: %v", e.Last.TaskID, e.Err)
}

// Unwrap returns the context's error.
func (e *NotEndedError) Unwrap() error { return e.Err }

// MaxSilentPolls is how many polls in a row a wait takes a task to say
// input_required and show no question (no inputRequests, and none answered
// in this wait) before it gives up with a [NoQuestionError]: nothing the
// client can answer would bring such a task on.
const MaxSilentPolls = 3

// A NoQuestionError is the error of a wait for a task that says it waits
// for input (input_required) and shows no question to answer, poll after
// poll: a task of another era (a task of protocol 2025-11-25 asks its
// questions during tasks/result, which a session of that protocol sends),
// or a server that lost its questions. Last is its last status.
type NoQuestionError struct {
	Last  Update
	Polls int
}

func (e *NoQuestionError) Error() string {
	msg := ""
	if e.Last.StatusMessage != "" {
		msg = fmt.Sprintf(" (%s)", e.Last.StatusMessage)
	}
	return fmt.Sprintf("task %s is input_required%s but the server showed no question to answer (no inputRequests in %d polls of tasks/get): waiting would not bring it on (a task of protocol 2025-11-25 asks its questions during tasks/result, in a session of that protocol)", e.Last.TaskID, msg, e.Polls)
}

func (c *Client) wait(ctx context.Context, id string, first *tasks.Info) (*mcp.CallToolResult, error) {
	var last *Update
	if first != nil {
		last = &Update{TaskID: id, Status: first.Status, StatusMessage: first.StatusMessage}
	}
	interval := c.interval(first)
	answered := map[string]bool{}
	skipSleep := false
	silent := 0 // polls in a row that said input_required and showed no question
	for poll := 1; ; poll++ {
		if poll > c.opts.MaxPolls {
			return nil, fmt.Errorf("task %s is still %s after %d polls; giving up (it may still run on the server: cancel it with tasks/cancel)", id, last.Status, c.opts.MaxPolls)
		}
		if poll > 1 || first != nil {
			if !skipSleep {
				if err := c.opts.Sleep(ctx, interval); err != nil {
					if last != nil {
						return nil, &NotEndedError{Last: *last, Err: err}
					}
					return nil, fmt.Errorf("waiting for task %s: %w", id, err)
				}
			}
		}
		skipSleep = false
		g, err := c.Get(ctx, id)
		if err != nil {
			if last != nil && ctx.Err() != nil {
				// The time ran out during a poll, the earlier ones
				// answered: the task had not ended, as when it runs out
				// between polls (on a loaded machine, either comes).
				return nil, &NotEndedError{Last: *last, Err: err}
			}
			return nil, err
		}
		u := Update{TaskID: id, Status: g.Status, StatusMessage: g.StatusMessage, Poll: poll}
		c.report(u, last)
		last = &u
		interval = c.interval(&g.Info)
		if Legacy(c.cs) {
			if done, res, err := c.legacyStep(ctx, id, g.Status); done {
				return c.legacyEnd(ctx, id, poll, last, res, err)
			}
			continue
		}
		if done, res, err := finalResult(id, g); done {
			return res, err
		}
		switch g.Status {
		case tasks.StatusInputRequired:
			if silent = silent + 1; len(g.InputRequests) > 0 || len(answered) > 0 {
				silent = 0
			}
			if silent >= MaxSilentPolls {
				return nil, &NoQuestionError{Last: u, Polls: silent}
			}
			n, err := c.answer(ctx, id, g.InputRequests, answered)
			if err != nil {
				return nil, err
			}
			skipSleep = n > 0
		case tasks.StatusWorking:
		default:
			return nil, fmt.Errorf("task %s reports an unknown status %q", id, g.Status)
		}
	}
}

// finalResult is what task id ended with, when g says it has ended
// (done): its result, the error it failed with, or ErrCancelled.
func finalResult(id string, g *tasks.GetTaskResult) (done bool, res *mcp.CallToolResult, err error) {
	switch g.Status {
	case tasks.StatusCompleted:
		if len(g.Result) == 0 {
			return true, nil, fmt.Errorf("task %s completed without a result", id)
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(g.Result, &res); err != nil {
			return true, nil, fmt.Errorf("read the result of task %s: %w", id, err)
		}
		return true, &res, nil
	case tasks.StatusFailed:
		if g.Error == nil {
			return true, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("task %s failed without an error", id)}
		}
		return true, nil, &jsonrpc.Error{Code: g.Error.Code, Message: g.Error.Message, Data: g.Error.Data}
	case tasks.StatusCancelled:
		return true, nil, fmt.Errorf("task %s: %w", id, ErrCancelled)
	}
	return false, nil, nil
}

func (c *Client) interval(in *tasks.Info) time.Duration {
	d := c.opts.DefaultPollInterval
	if in != nil && in.PollIntervalMs > 0 {
		d = time.Duration(in.PollIntervalMs) * time.Millisecond
	}
	return min(d, c.opts.MaxPollInterval)
}

// MaxQuestions bounds the questions a task may ask in one poll (the
// entries of inputRequests not answered before) and MaxQuestions times 10
// the questions of one wait, as a client bounds the questions of one round
// of input_required and the rounds of one call. A task that asks more ends
// the wait with an error that says so, before any of them is answered: the
// protocol sets no bound, and every question asked is answered and kept.
const MaxQuestions = 100

// maxWaitQuestions bounds the questions answered in one wait for a task.
const maxWaitQuestions = 10 * MaxQuestions

// TooManyQuestionsError ends the wait for a task that asks more than
// MaxQuestions questions in one poll, or more than 10 times MaxQuestions
// in all.
type TooManyQuestionsError struct {
	TaskID   string
	New      int // the questions of the poll, not answered before
	Answered int // the questions answered before in this wait
}

func (e *TooManyQuestionsError) Error() string {
	if e.New > MaxQuestions {
		return fmt.Sprintf("task %s asks %d questions at once (inputRequests); the client answers at most %d at once; stopped", e.TaskID, e.New, MaxQuestions)
	}
	return fmt.Sprintf("task %s asks %d questions in all (%d answered, %d more); the client answers at most %d for one task; stopped", e.TaskID, e.New+e.Answered, e.Answered, e.New, maxWaitQuestions)
}

// answer answers the questions not answered before, in key order, with one
// tasks/update. It returns how many it answered.
func (c *Client) answer(ctx context.Context, id string, requests map[string]json.RawMessage, answered map[string]bool) (int, error) {
	keys := make([]string, 0, len(requests))
	for k := range requests {
		if !answered[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) > MaxQuestions || len(keys)+len(answered) > maxWaitQuestions {
		return 0, &TooManyQuestionsError{TaskID: id, New: len(keys), Answered: len(answered)}
	}
	slices.Sort(keys)
	responses := map[string]*mcp.ElicitResult{}
	for _, key := range keys {
		p, err := DecodeQuestion(requests[key])
		if err != nil {
			return 0, fmt.Errorf("task %s, question %q: %w", id, key, err)
		}
		a := &mcp.ElicitResult{Action: "decline"}
		if c.opts.Answer != nil {
			a, err = c.opts.Answer(ctx, key, p)
			if err != nil {
				return 0, fmt.Errorf("task %s, question %q: %w", id, key, err)
			}
			if a == nil {
				a = &mcp.ElicitResult{Action: "decline"}
			}
		}
		responses[key] = a
		answered[key] = true
	}
	if len(responses) == 0 {
		return 0, nil
	}
	return len(responses), c.Update(ctx, id, responses)
}

// DecodeQuestion reads one entry of a task's inputRequests. Only
// elicitation questions can be answered; others are an error.
func DecodeQuestion(raw json.RawMessage) (*mcp.ElicitParams, error) {
	var q struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("unreadable question: %w", err)
	}
	if q.Method != "elicitation/create" {
		return nil, fmt.Errorf("the task asks with %q, which this client cannot answer", q.Method)
	}
	var p mcp.ElicitParams
	if len(q.Params) == 0 {
		return nil, errors.New("the question has no params")
	}
	if err := json.Unmarshal(q.Params, &p); err != nil {
		return nil, fmt.Errorf("unreadable elicitation: %w", err)
	}
	if p.Mode == "" {
		p.Mode = "form"
		if p.URL != "" {
			p.Mode = "url"
		}
	}
	return &p, nil
}

// Get returns the task's current state (tasks/get). On protocol
// 2025-11-25 that is the task alone (its result comes with [Client.Result]),
// its ttl and pollInterval given as TTLMs and PollIntervalMs.
func (c *Client) Get(ctx context.Context, id string) (*tasks.GetTaskResult, error) {
	raw, err := mcp.CallCustomMethod[*tasks.GetTaskParams, *getResult](c.routed(ctx, id), c.cs, tasks.MethodGet, &tasks.GetTaskParams{TaskID: id})
	if err != nil {
		return nil, fmt.Errorf("tasks/get %s: %w", id, err)
	}
	g := raw.normal()
	if g.TaskID != id {
		return nil, fmt.Errorf("tasks/get %s: the server answered for task %q", id, g.TaskID)
	}
	return g, nil
}

// routed marks ctx, for a tasks/* request about task id, to carry the
// Mcp-Name routing header, which the tasks extension of protocol
// 2026-07-28 asks for; protocol 2025-11-25 defines no such header, and a
// session of it sends none.
func (c *Client) routed(ctx context.Context, id string) context.Context {
	if Legacy(c.cs) {
		return ctx
	}
	return withTaskID(ctx, id)
}

// Update sends answers to a task's questions (tasks/update).
func (c *Client) Update(ctx context.Context, id string, responses map[string]*mcp.ElicitResult) error {
	raw := make(map[string]json.RawMessage, len(responses))
	for k, v := range responses {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("encode the answer to %q: %w", k, err)
		}
		raw[k] = b
	}
	_, err := mcp.CallCustomMethod[*tasks.UpdateTaskParams, *tasks.UpdateTaskResult](c.routed(ctx, id), c.cs, tasks.MethodUpdate, &tasks.UpdateTaskParams{TaskID: id, InputResponses: raw})
	if err != nil {
		return fmt.Errorf("tasks/update %s: %w", id, err)
	}
	return nil
}

// Cancel asks the server to cancel a task (tasks/cancel). The task may still
// end otherwise if it finished first.
func (c *Client) Cancel(ctx context.Context, id string) error {
	_, err := mcp.CallCustomMethod[*tasks.CancelTaskParams, *tasks.CancelTaskResult](c.routed(ctx, id), c.cs, tasks.MethodCancel, &tasks.CancelTaskParams{TaskID: id})
	if err != nil {
		return fmt.Errorf("tasks/cancel %s: %w", id, err)
	}
	return nil
}

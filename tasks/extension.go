package tasks

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure an [Extension]. The zero value is usable.
type Options struct {
	// Store keeps the task records. Default: a new [MemoryStore].
	Store Store
	// TTL is how long a task is kept after its creation; tasks/get reports
	// an error for it afterwards. Default one hour; negative means unlimited.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients. Default 1s.
	PollInterval time.Duration
	// Heartbeat is how often a running task refreshes its record in a
	// [SharedStore], and so how soon it sees an answer or a cancellation
	// that reached another instance. A task whose heartbeat is older than
	// three intervals is failed as interrupted. Default 2s.
	Heartbeat time.Duration
	// Logger receives store errors the task's code cannot act on.
	// Default: discard.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Subject returns the authenticated user of a request: a task belongs to
	// the user who started it, and only that user may read, answer or cancel
	// it. Default subject.FromToken (TokenInfo.UserID, else its "sub"), as in
	// every toolkit package: give them all the same function.
	Subject subject.Func
	// RequireSubject refuses to start a task, or to serve tasks/*, for a
	// request without a user. Set it on servers where every request should be
	// authenticated. Without it, on a server without authentication, every
	// task belongs to the same nobody and is protected only by its id: 26
	// random characters (130 bits), unguessable but a bearer secret.
	RequireSubject bool
	// MaxTasks is how many unfinished tasks the extension runs at once
	// (DefaultMaxTasks if zero). When all run, a call of a caller holding
	// fewer than the caller holding the most (by two or more) ends that
	// caller's oldest task ([ErrEvicted]: the task fails, saying so) and
	// takes its place, so that callers at many addresses cannot keep another
	// out; otherwise it is refused with an error that says so
	// ([ErrTooManyTasks]).
	MaxTasks int
	// MaxTasksPerUser is how many unfinished tasks one caller may have
	// (DefaultMaxTasksPerUser if zero): an authenticated user or, for a
	// request without one, the client address it came from, as
	// subject.Share names them (the HTTP layer names the client on the
	// request's context: endpoint.Handler does). Requests nobody can tell
	// apart (stdio) share MaxTasks only. The same caller's records are
	// bounded in the store ([StoreLimits]).
	MaxTasksPerUser int
	// MaxArgumentBytes bounds the arguments of a call that starts a task
	// (DefaultMaxArgumentBytes if zero); larger ones are refused with
	// invalid params.
	MaxArgumentBytes int
	// MaxRecordBytes bounds what one task's record holds: questions, answers,
	// status message, result (DefaultMaxRecordBytes if zero). A question or
	// an answer that would cross it is refused, a result that would fails
	// the task; status messages are cut to MaxStatusBytes.
	MaxRecordBytes int
	// Immediate, if positive, lets a task that ends this soon after it
	// started answer its tools/call directly, as a synchronous call would,
	// instead of with a task handle; the task record is then dropped. A task
	// that asks a question in that time still answers with its handle.
	// Default 0: every task call answers with a handle.
	Immediate time.Duration
}

// Mode says whether a tool must run as a task.
type Mode int

const (
	// Optional tools run as a task when the client declared the extension
	// on the call, and synchronously otherwise.
	Optional Mode = iota
	// Required tools refuse a client that did not declare the extension,
	// with the JSON-RPC error -32021.
	Required
)

// Handler is the code of a task tool. It runs in its own goroutine once the
// task is created; ctx ends when the client cancels the task, when its TTL
// elapses or when the server shuts down (see [context.Cause]). A returned
// result completes the task, including one with IsError set; a returned
// error fails it with a JSON-RPC error (a *jsonrpc.Error keeps its code).
type Handler func(ctx context.Context, t *Task) (*mcp.CallToolResult, error)

// Extension is the tasks extension installed on one server. Make it with
// [Install]; the zero Extension is not usable.
type Extension struct {
	server   *mcp.Server
	store    Store
	opts     Options
	logger   *slog.Logger
	instance string
	shared   bool

	base context.Context
	stop context.CancelCauseFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	runs     map[string]*run
	active   int            // unfinished tasks started here
	evicting int            // of them, those ended for another's place, not yet done
	byShare  map[string]int // of them, per caller (subject.Share), but those evicting
}

// Install adds the extension to server: it advertises the extension in the
// server's capabilities, serves tasks/get, tasks/update and tasks/cancel, and
// turns a tools/call whose handler called [Extension.Start] into a
// CreateTaskResult. Call it once per server, before the server serves its
// first request.
func Install(server *mcp.Server, opts *Options) (*Extension, error) {
	o := withDefaults(opts)
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	x := &Extension{
		server:   server,
		store:    o.Store,
		opts:     o,
		logger:   logger,
		instance: rand.Text(),
		runs:     map[string]*run{},
		byShare:  map[string]int{},
	}
	if s, ok := o.Store.(SharedStore); ok {
		x.shared = s.Shared()
	}
	x.base, x.stop = context.WithCancelCause(context.Background())
	if err := mcp.AddReceivingCustomMethod(server, MethodGet, x.get); err != nil {
		return nil, fmt.Errorf("install tasks extension: %w", err)
	}
	if err := mcp.AddReceivingCustomMethod(server, MethodUpdate, x.update); err != nil {
		return nil, fmt.Errorf("install tasks extension: %w", err)
	}
	if err := mcp.AddReceivingCustomMethod(server, MethodCancel, x.cancel); err != nil {
		return nil, fmt.Errorf("install tasks extension: %w", err)
	}
	server.AddReceivingMiddleware(x.middleware)
	return x, nil
}

// withDefaults is opts (nil: none) with what they leave unset filled in.
func withDefaults(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Store == nil {
		o.Store = NewMemoryStore(nil)
	}
	if o.TTL == 0 {
		o.TTL = time.Hour
	}
	if o.TTL < 0 {
		o.TTL = 0
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 2 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Subject = o.Subject.Or()
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if o.MaxTasksPerUser <= 0 {
		o.MaxTasksPerUser = DefaultMaxTasksPerUser
	}
	if o.MaxArgumentBytes <= 0 {
		o.MaxArgumentBytes = DefaultMaxArgumentBytes
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	return o
}

// AddTool registers a tool whose calls run h as a task (see [Mode]).
func (x *Extension) AddTool(tool *mcp.Tool, mode Mode, h Handler) {
	x.server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return x.Start(ctx, req, mode, h)
	})
}

// Start runs h for the tool call req. If the client declared the extension
// on req, Start creates the task, starts h in its own goroutine and returns a
// placeholder result; the extension answers the call with the task's
// CreateTaskResult instead. Otherwise an [Optional] call runs h right here
// and returns its result, and a [Required] one fails with -32021.
//
// A tool handler may do anything before it calls Start, for example gather
// answers over multi round-trip requests and only then escalate to a task.
// Start must be called from a tool handler of the server the extension is
// installed on, at most once per call.
func (x *Extension) Start(ctx context.Context, req *mcp.CallToolRequest, mode Mode, h Handler) (*mcp.CallToolResult, error) {
	if n := len(req.Params.Arguments); n > x.opts.MaxArgumentBytes {
		return nil, invalidParams("arguments of %q: %d bytes, more than the %d this server takes", req.Params.Name, n, x.opts.MaxArgumentBytes)
	}
	if err := strictjson.CheckKeys(req.Params.Arguments); err != nil {
		return nil, invalidParams("arguments of %q: %v", req.Params.Name, err)
	}
	caps := requestCaps(req)
	if !declaresTasks(caps) {
		if mode == Required {
			return nil, missingCapability()
		}
		return x.runSync(ctx, req, h)
	}
	slot, ok := ctx.Value(slotKey{}).(*startSlot)
	if !ok || slot.x != x {
		return nil, errors.New("tasks: Start was called outside a tools/call of the server the extension is installed on")
	}
	if slot.created != nil {
		return nil, errors.New("tasks: Start was called twice for one tools/call")
	}
	owner, err := x.caller(req)
	if err != nil {
		return nil, err
	}
	share := subject.Share(ctx, owner)
	if err := x.admit(share); err != nil {
		return nil, err
	}
	rec, err := x.create(ctx, req.Params.Name, owner, share)
	if err != nil {
		x.release(share)
		return nil, err
	}
	slot.created = &CreateTaskResult{ResultType: ResultTypeTask, Info: rec.info()}
	r := x.launch(rec, req, h)
	if x.opts.Immediate > 0 {
		if res, ok, err := x.immediate(ctx, r); ok {
			slot.created = nil
			return res, err
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "task " + rec.ID + " started"}}}, nil
}

// create stores the record of a new task of tool, started by owner (of
// share), under a new id.
func (x *Extension) create(ctx context.Context, tool, owner, share string) (*Record, error) {
	now := x.opts.Now()
	rec := &Record{
		Owner:         owner,
		Share:         share,
		Tool:          tool,
		Status:        StatusWorking,
		StatusMessage: "The task has started.",
		CreatedAt:     now,
		UpdatedAt:     now,
		TTL:           x.opts.TTL,
		PollInterval:  x.opts.PollInterval,
		Runner:        x.instance,
		Heartbeat:     now,
	}
	var err error
	for range 3 {
		rec.ID = rand.Text()
		if err = x.store.Create(ctx, rec); !errors.Is(err, ErrExists) {
			break
		}
	}
	if err == nil {
		return rec, nil
	}
	if errors.Is(err, ErrStoreFull) {
		return nil, storeFull(err)
	}
	x.logger.Error("task store: create a task", "error", err)
	return nil, internalError("cannot start a task: %s", errStoreFailed)
}

// immediate waits up to Options.Immediate for a task to end and, if it did
// (without asking anything), returns what the call itself should answer.
func (x *Extension) immediate(ctx context.Context, r *run) (*mcp.CallToolResult, bool, error) {
	t := time.NewTimer(x.opts.Immediate)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
		return nil, false, nil
	case <-ctx.Done():
		return nil, false, nil
	}
	rec, err := x.store.Get(ctx, r.id)
	if err != nil || len(rec.Asked) > 0 {
		return nil, false, nil
	}
	switch rec.Status {
	case StatusCompleted:
		var res mcp.CallToolResult
		if json.Unmarshal(rec.Result, &res) != nil {
			return nil, false, nil
		}
		x.drop(ctx, r.id)
		return &res, true, nil
	case StatusFailed:
		x.drop(ctx, r.id)
		e := rec.Error
		if e == nil {
			e = &ErrorObject{Code: -32603, Message: "the task failed"}
		}
		return nil, true, &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return nil, false, nil
}

// drop deletes the record of a task nobody will ask about.
func (x *Extension) drop(ctx context.Context, id string) {
	if err := x.store.Delete(ctx, id); err != nil {
		x.logger.Warn("drop the record of an immediate task", "task", id, "error", err)
	}
}

// Close cancels every task still running with [ErrShutdown] as the cause and
// waits, until ctx ends, for their code to return; they end failed.
func (x *Extension) Close(ctx context.Context) error {
	x.stop(ErrShutdown)
	done := make(chan struct{})
	go func() { x.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("tasks: waiting for running tasks to stop: %w", ctx.Err())
	}
}

// startSlot carries the task a tool handler created back to the middleware.
type startSlot struct {
	x       *Extension
	created *CreateTaskResult
}

type slotKey struct{}

// callerKey carries the authenticated user of a tasks/* request.
type callerKey struct{}

func (x *Extension) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "server/discover":
			res, err := next(ctx, method, req)
			if err == nil {
				advertise(res)
			}
			return res, err
		case "tools/call":
			slot := &startSlot{x: x}
			res, err := next(context.WithValue(ctx, slotKey{}, slot), method, req)
			if slot.created != nil {
				return slot.created, nil
			}
			return res, err
		case MethodGet, MethodUpdate, MethodCancel:
			if !declaresTasks(requestCaps(req)) {
				return nil, missingCapability()
			}
			if err := checkRoutingHeader(req); err != nil {
				return nil, err
			}
			caller, err := x.caller(req)
			if err != nil {
				return nil, err
			}
			return next(context.WithValue(ctx, callerKey{}, caller), method, req)
		}
		return next(ctx, method, req)
	}
}

// advertise adds the extension to the capabilities of an initialize or
// server/discover result.
func advertise(res mcp.Result) {
	var caps **mcp.ServerCapabilities
	switch r := res.(type) {
	case *mcp.InitializeResult:
		caps = &r.Capabilities
	case *mcp.DiscoverResult:
		caps = &r.Capabilities
	default:
		return
	}
	if *caps == nil {
		*caps = &mcp.ServerCapabilities{}
	}
	(*caps).AddExtension(ExtensionID, map[string]any{})
}

// checkRoutingHeader rejects a tasks/* request whose Mcp-Name header names
// another task than its params. A missing header is tolerated.
func checkRoutingHeader(req mcp.Request) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil
	}
	names := extra.Header.Values("Mcp-Name")
	if len(names) == 0 {
		return nil
	}
	// A request with "params": null, or none, reaches here with a nil
	// pointer: no task id.
	var id string
	switch p := req.GetParams().(type) {
	case *GetTaskParams:
		if p != nil {
			id = p.TaskID
		}
	case *UpdateTaskParams:
		if p != nil {
			id = p.TaskID
		}
	case *CancelTaskParams:
		if p != nil {
			id = p.TaskID
		}
	}
	if len(names) != 1 || names[0] != id {
		return &jsonrpc.Error{Code: CodeHeaderMismatch, Message: fmt.Sprintf("header mismatch: Mcp-Name %q does not match params.taskId %q", names[0], id)}
	}
	return nil
}

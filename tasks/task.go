package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Task is what a [Handler] uses to report on its work and to ask the client.
// Its methods are safe for concurrent use.
type Task struct {
	run *run // nil when the call runs synchronously
	id  string
	req *mcp.CallToolRequest

	syncCtx context.Context // the call's context, synchronous mode only
	mu      sync.Mutex
	asked   []string // keys used, synchronous mode only
}

// ID is the task's ID, or "" when the call runs synchronously.
func (t *Task) ID() string { return t.id }

// Async reports whether the call runs as a task (the client declared the
// extension) rather than synchronously.
func (t *Task) Async() bool { return t.run != nil }

// Request is the tools/call request the task runs: its arguments and, over
// HTTP, the authenticated user. Its session may be gone by the time the task
// reads it; use it for data only.
func (t *Task) Request() *mcp.CallToolRequest { return t.req }

// Arguments decodes the call's arguments into v with encoding/json, after
// refusing arguments with an object whose keys repeat or differ only in
// letter case (at any depth): such arguments have no one meaning.
func (t *Task) Arguments(v any) error {
	if t.req == nil || t.req.Params == nil {
		return strictjson.Decode(nil, v)
	}
	if err := strictjson.Decode(t.req.Params.Arguments, v); err != nil {
		return fmt.Errorf("decode the arguments of %q: %w", t.req.Params.Name, err)
	}
	return nil
}

// CanAsk reports whether the client can be asked in the given elicitation
// mode ("form" or "url") right now.
func (t *Task) CanAsk(mode string) bool {
	if !t.declared(mode) {
		return false
	}
	return t.run != nil || usesOldProtocol(t.req)
}

// declared reports whether the client declared the elicitation mode on the
// call (package ask reads the declaration).
func (t *Task) declared(mode string) bool {
	if t.req == nil {
		return false
	}
	switch mode {
	case "form", "":
		return ask.Modes(t.req).Has(ask.Form)
	case "url":
		return ask.Modes(t.req).Has(ask.URL)
	}
	return false
}

// Status sets the task's status message, which the client sees on its next
// tasks/get. In a synchronous call it is sent as a progress notification when
// the client asked for progress.
func (t *Task) Status(msg string) {
	if t.run != nil {
		t.run.setStatus(msg)
		return
	}
	t.notify(0, 0, msg)
}

// Progress reports how far the work is: done out of total (total 0 when
// unknown) and what is happening. It is one call: the status message becomes
// "msg (done/total)".
func (t *Task) Progress(done, total float64, msg string) {
	if t.run != nil {
		if total > 0 {
			msg = fmt.Sprintf("%s (%s/%s)", msg, num(done), num(total))
		}
		t.run.setStatus(msg)
		return
	}
	t.notify(done, total, msg)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ProgressOf reads the progress [Task.Progress] writes at the end of a
// task's status message, "(done/total)": a client that shows how far a
// task is reads it back with this. ok is false for a message without it,
// or with numbers that are no progress (a total not above 0, done outside
// 0 to total, anything not finite).
func ProgressOf(msg string) (done, total float64, ok bool) {
	msg = strings.TrimSpace(msg)
	if !strings.HasSuffix(msg, ")") {
		return 0, 0, false
	}
	open := strings.LastIndexByte(msg, '(')
	if open < 0 {
		return 0, 0, false
	}
	a, b, found := strings.Cut(msg[open+1:len(msg)-1], "/")
	if !found {
		return 0, 0, false
	}
	done, err1 := strconv.ParseFloat(a, 64)
	total, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil || !(total > 0) || math.IsInf(total, 0) || !(done >= 0) || done > total {
		return 0, 0, false
	}
	return done, total, true
}

// notify sends a progress notification for a synchronous call.
func (t *Task) notify(done, total float64, msg string) {
	if t.req == nil || t.req.Session == nil || t.req.Params == nil || t.syncCtx == nil {
		return
	}
	token := t.req.Params.GetProgressToken()
	if token == nil {
		return
	}
	_ = t.req.Session.NotifyProgress(t.syncCtx, &mcp.ProgressNotificationParams{
		ProgressToken: token, Progress: done, Total: total, Message: msg,
	})
}

// Ask puts one question to the client and waits for the answer. While it
// waits, the task is input_required and tasks/get shows the question under
// key; the answer arrives through tasks/update and the code simply goes on.
// Keys are unique over the task's lifetime.
//
// Ask returns [ErrCannotAsk] when the client did not declare the mode of p
// (a URL question to a client that only does forms, for example) or cannot
// be asked mid-call; ctx's error when it ends first, for example when the
// client cancels the task. Decline and cancel are answers, not errors: look
// at the result's Action.
func (t *Task) Ask(ctx context.Context, key string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	res, err := t.AskAll(ctx, map[string]*mcp.ElicitParams{key: p})
	if err != nil {
		return nil, err
	}
	return res[key], nil
}

// AskAll puts several questions at once and waits until every one is
// answered; the client may answer them one tasks/update at a time.
func (t *Task) AskAll(ctx context.Context, questions map[string]*mcp.ElicitParams) (map[string]*mcp.ElicitResult, error) {
	if len(questions) == 0 {
		return map[string]*mcp.ElicitResult{}, nil
	}
	raws := map[string]json.RawMessage{}
	for _, key := range sortedKeys(questions) {
		raw, err := t.prepare(key, questions[key])
		if err != nil {
			return nil, err
		}
		raws[key] = raw
	}
	if t.run == nil {
		return t.askSync(ctx, questions)
	}
	return t.run.ask(ctx, raws)
}

// prepare checks one question and renders it in wire form.
func (t *Task) prepare(key string, p *mcp.ElicitParams) (json.RawMessage, error) {
	if key == "" {
		return nil, errors.New("tasks: a question needs a non-empty key")
	}
	if p == nil {
		return nil, fmt.Errorf("tasks: question %q is nil", key)
	}
	q := *p
	if q.Mode == "" {
		q.Mode = "form"
		if q.URL != "" {
			q.Mode = "url"
		}
	}
	if !t.CanAsk(q.Mode) {
		if !t.declared(q.Mode) {
			return nil, fmt.Errorf("question %q: %w: the client did not declare %s elicitation", key, ErrCannotAsk, q.Mode)
		}
		return nil, fmt.Errorf("question %q: %w: the client did not declare the %s extension, so the call runs synchronously and cannot wait for an answer", key, ErrCannotAsk, ExtensionID)
	}
	switch q.Mode {
	case "form":
		if q.URL != "" {
			return nil, fmt.Errorf("tasks: form question %q must not carry a URL", key)
		}
		if q.RequestedSchema == nil {
			return nil, fmt.Errorf("tasks: form question %q needs a requested schema", key)
		}
		if _, err := formschema.Parse(q.RequestedSchema); err != nil {
			return nil, fmt.Errorf("tasks: form question %q: %w", key, err)
		}
	case "url":
		if q.URL == "" {
			return nil, fmt.Errorf("tasks: URL question %q needs a URL", key)
		}
	default:
		return nil, fmt.Errorf("tasks: question %q has unknown mode %q", key, q.Mode)
	}
	params, err := json.Marshal(&q)
	if err != nil {
		return nil, fmt.Errorf("tasks: encode question %q: %w", key, err)
	}
	return json.Marshal(inputRequestWire{Method: methodElicit, Params: params})
}

// askSync asks over an older protocol, where the server may send
// elicitation/create in the middle of the call.
func (t *Task) askSync(ctx context.Context, questions map[string]*mcp.ElicitParams) (map[string]*mcp.ElicitResult, error) {
	t.mu.Lock()
	for key := range questions {
		if slices.Contains(t.asked, key) {
			t.mu.Unlock()
			return nil, fmt.Errorf("question %q: %w", key, ErrKeyReused)
		}
	}
	for key := range questions {
		t.asked = append(t.asked, key)
	}
	t.mu.Unlock()
	out := map[string]*mcp.ElicitResult{}
	for _, key := range sortedKeys(questions) {
		q := questions[key]
		res, err := t.req.Session.Elicit(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("ask %q: %w", key, err)
		}
		// The go-sdk checks the answer against the schema loosely (fields
		// the form does not ask for, formats, any action): hold it to what
		// tasks/update holds an answer to.
		a := *res
		mode := q.Mode
		if mode == "" && q.URL != "" {
			mode = "url"
		}
		if err := checkAnswer(mode, q.RequestedSchema, &a); err != nil {
			return nil, fmt.Errorf("ask %q: the client's answer: %w", key, err)
		}
		out[key] = &a
	}
	return out, nil
}

// ask records the questions, marks the task input_required and waits.
func (r *run) ask(ctx context.Context, raws map[string]json.RawMessage) (map[string]*mcp.ElicitResult, error) {
	chans, err := r.addWaiters(raws)
	if err != nil {
		return nil, err
	}
	message := firstMessage(raws)
	_, err = r.x.store.Update(r.ctx, r.id, r.x.bounded(func(rec *Record) error {
		return r.recordQuestions(rec, raws, message)
	}))
	if err != nil {
		r.forget(chans)
		if errors.Is(err, ErrCancelled) && r.ctx.Err() != nil {
			return nil, context.Cause(r.ctx)
		}
		return nil, fmt.Errorf("tasks: record question: %w", err)
	}

	answers := map[string]*mcp.ElicitResult{}
	for _, key := range sortedKeys(chans) {
		select {
		case a := <-chans[key]:
			answers[key] = a
		case <-ctx.Done():
			r.forget(chans)
			r.withdraw(raws)
			return nil, context.Cause(ctx)
		case <-r.ctx.Done():
			r.forget(chans)
			return nil, context.Cause(r.ctx)
		}
	}
	r.consume(raws)
	return answers, nil
}

// addWaiters makes a channel for the answer to each question of raws, for
// deliver; a question of the same key waiting already is refused.
func (r *run) addWaiters(raws map[string]json.RawMessage) (map[string]chan *mcp.ElicitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key := range raws {
		if _, busy := r.waiters[key]; busy {
			return nil, fmt.Errorf("question %q: %w", key, ErrKeyReused)
		}
	}
	chans := map[string]chan *mcp.ElicitResult{}
	for key := range raws {
		chans[key] = make(chan *mcp.ElicitResult, 1)
		r.waiters[key] = chans[key]
	}
	return chans, nil
}

// forget stops waiting on chans.
func (r *run) forget(chans map[string]chan *mcp.ElicitResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, ch := range chans {
		if r.waiters[key] == ch {
			delete(r.waiters, key)
		}
	}
}

// firstMessage is the message of the first question of raws, by key.
func firstMessage(raws map[string]json.RawMessage) string {
	var q struct {
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	}
	if json.Unmarshal(raws[sortedKeys(raws)[0]], &q) != nil {
		return ""
	}
	return q.Params.Message
}

// recordQuestions writes the questions raws into rec and marks the task
// input_required; a task ended or being cancelled asks nothing, and a key
// asked before in the task is refused.
func (r *run) recordQuestions(rec *Record, raws map[string]json.RawMessage, message string) error {
	if rec.Status.Terminal() || rec.CancelRequested {
		return ErrCancelled
	}
	for key := range raws {
		if slices.Contains(rec.Asked, key) {
			return fmt.Errorf("question %q: %w", key, ErrKeyReused)
		}
	}
	if rec.InputRequests == nil {
		rec.InputRequests = map[string]json.RawMessage{}
	}
	for _, key := range sortedKeys(raws) {
		rec.InputRequests[key] = raws[key]
		rec.Asked = append(rec.Asked, key)
	}
	rec.Status = StatusInputRequired
	rec.StatusMessage = clip("Waiting for an answer: " + message)
	rec.UpdatedAt = r.x.opts.Now()
	return nil
}

// withdraw removes questions nobody waits for any more.
func (r *run) withdraw(raws map[string]json.RawMessage) {
	_ = r.tidy(func(rec *Record) {
		for key := range raws {
			delete(rec.InputRequests, key)
			delete(rec.Responses, key)
		}
		if len(rec.InputRequests) == 0 && rec.Status == StatusInputRequired {
			rec.Status = StatusWorking
			rec.UpdatedAt = r.x.opts.Now()
		}
	})
}

// consume drops answers the code has taken.
func (r *run) consume(raws map[string]json.RawMessage) {
	_ = r.tidy(func(rec *Record) {
		for key := range raws {
			delete(rec.Responses, key)
		}
	})
}

// tidy changes the run's record with f, within 10s of its own: the
// context of the call that asked may be gone by then.
func (r *run) tidy(f func(rec *Record)) error {
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	_, err := r.x.store.Update(ctx, r.id, func(rec *Record) error {
		f(rec)
		return nil
	})
	return err
}

// runSync runs h in the call itself, for a client without the extension.
func (x *Extension) runSync(ctx context.Context, req *mcp.CallToolRequest, h Handler) (*mcp.CallToolResult, error) {
	t := &Task{req: req, syncCtx: ctx}
	res, err := x.call(ctx, h, t)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, internalError("the tool's code returned neither a result nor an error")
	}
	return res, nil
}

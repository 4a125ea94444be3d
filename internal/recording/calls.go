package recording

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// metaRelatedTask is the key of a question's _meta that names its task.
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// CallHooks are what a reader of a recording's calls (a conversation for
// `script`, a stand-in's script for `serve`) makes of what a CallReader
// pairs. C is what it keeps of a call, R of a request of the client while
// it waits for its answer, Q of a question of the server while it waits
// for the client's. An error a hook returns ends the walk.
type CallHooks[C comparable, R, Q any] interface {
	// Event hears an entry that is no message (an EventNotRPC for a
	// message that does not decode, Walk).
	Event(line int, e Entry)
	// Notification hears a notification of the server (progress, a log
	// message, a list changed).
	Notification(m Message, r *jsonrpc.Request)
	// Request hears every request and notification of the client first,
	// before it is paired.
	Request(m Message, r *jsonrpc.Request, p Params) error
	// Call hears the first request of a call (tools/call, prompts/get,
	// resources/read; name is the tool's or prompt's, or the resource's
	// URI) and returns the call. Orphan: it carries answers or a
	// requestState of a round the recording does not hold.
	Call(m Message, r *jsonrpc.Request, name string, p Params, orphan bool) (C, R, error)
	// Round hears a request that continues call c: a next round of it.
	Round(m Message, r *jsonrpc.Request, c C, p Params) (R, error)
	// Other hears any other request, and returns the call it concerns, if
	// any (a list's next page, a task's request), else the zero C.
	Other(m Message, r *jsonrpc.Request, p Params) (C, R, error)
	// Cancelled hears that the client cancelled req, still waiting.
	Cancelled(line int, req *Pending[C, R])
	// Response hears the server's answer to req; req is nil when the
	// recording holds no request it answers. A hook that reads the answer
	// as a round of questions files it with Wait; a call that ends, with
	// End; a task, with RunsAsTask.
	Response(m Message, req *Pending[C, R], r *jsonrpc.Response) error
	// Question hears a question of the server (elicitation/create,
	// sampling/createMessage, roots/list) with the call it was asked
	// during, and returns what to keep of it until the client answers.
	Question(m Message, r *jsonrpc.Request, asker Asker[C]) (Q, error)
	// Answer hears the client's answer to a server request: q is what
	// Question returned (the zero Q for a server request that is no
	// question, such as ping); found is false when the recording holds no
	// request it answers.
	Answer(m Message, q Q, found bool, r *jsonrpc.Response)
}

// Pending is a request of the client waiting for the server's answer.
type Pending[C, R any] struct {
	Line   int
	Method string
	Stream string
	// Call is the call it is a request of: one of its rounds (Round), or
	// what Other returned.
	Call  C
	Round bool
	// Data is what the hooks keep of it.
	Data R
}

// Asker is the call a question of the server was asked during.
type Asker[C any] struct {
	Call  C
	Found bool
	// Others counts the other calls waiting that it might as well belong
	// to: nothing in the recording said whose it is.
	Others int
}

// CallReader is the one reader of a recording's calls: a Visitor that
// pairs each response with its request (by id within the session and
// stream), each later round with its call (the call whose requestState it
// sends back untouched; see openRounds.Continue for the whole rule), each
// question of the server with the call it was asked during (the task its
// _meta names; the call whose stream carried it; the earliest waiting; the
// last task still running in its session) and each answer of the client
// with its question, and hands each to its hooks. Make one with
// NewCallReader and hand it to Walk or WalkReader.
type CallReader[C comparable, R, Q any] struct {
	h      CallHooks[C, R, Q]
	reqs   waiting[*Pending[C, R]]
	sreqs  waiting[Q]
	rounds openRounds[C]
	tasks  []task[C]
}

type task[C any] struct {
	id, session string
	call        C
	ended       bool
}

// NewCallReader returns a reader of calls that hands what it pairs to h.
func NewCallReader[C comparable, R, Q any](h CallHooks[C, R, Q]) *CallReader[C, R, Q] {
	return &CallReader[C, R, Q]{h: h}
}

// Wait files call c's last round as waiting for a next request of the
// client (openRounds.Wait).
func (cr *CallReader[C, R, Q]) Wait(c C, r Round) { cr.rounds.Wait(c, r) }

// End says call c ended: no request continues it, and its task, if it ran
// as one, runs no more.
func (cr *CallReader[C, R, Q]) End(c C) {
	cr.rounds.Forget(c)
	for i := range cr.tasks {
		if cr.tasks[i].call == c {
			cr.tasks[i].ended = true
		}
	}
}

// RunsAsTask says call c, made in session, runs as the task id.
func (cr *CallReader[C, R, Q]) RunsAsTask(c C, id, session string) {
	cr.tasks = append(cr.tasks, task[C]{id: id, session: session, call: c})
}

// Task is the call that runs as the task id, the last one filed with it.
func (cr *CallReader[C, R, Q]) Task(id string) (C, bool) {
	for i := len(cr.tasks) - 1; i >= 0; i-- {
		if cr.tasks[i].id == id {
			return cr.tasks[i].call, true
		}
	}
	var zero C
	return zero, false
}

// Waiting is the requests of the client waiting with id in session.
func (cr *CallReader[C, R, Q]) Waiting(session string, id jsonrpc.ID) []*Pending[C, R] {
	return cr.reqs.Get(session, id)
}

// Event hands an entry that is no message to the hooks.
func (cr *CallReader[C, R, Q]) Event(line int, e Entry) { cr.h.Event(line, e) }

// ClientRequest takes a request of the client: a call's first request or
// its next round, or another request; a cancel.
func (cr *CallReader[C, R, Q]) ClientRequest(m Message, r *jsonrpc.Request) error {
	p := ReadParams(r.Params)
	if err := cr.h.Request(m, r, p); err != nil {
		return err
	}
	if !r.ID.IsValid() {
		cr.notification(m, r, p)
		return nil
	}
	req := &Pending[C, R]{Line: m.Line, Method: r.Method, Stream: m.Stream}
	var err error
	if name, ok := callName(r.Method, p); ok {
		c, continued := cr.rounds.Continue(r.Method, name, m.Session, p)
		if continued {
			req.Data, err = cr.h.Round(m, r, c, p)
		} else {
			c, req.Data, err = cr.h.Call(m, r, name, p, len(p.InputResponses) > 0 || p.RequestState != nil)
		}
		req.Call, req.Round = c, true
	} else {
		req.Call, req.Data, err = cr.h.Other(m, r, p)
	}
	if err != nil {
		return err
	}
	cr.reqs.Add(m.Session, m.Stream, r.ID, req)
	return nil
}

// callName is the name a call's request names (a tool's, a prompt's, a
// resource's URI); false for a request that is no call.
func callName(method string, p Params) (string, bool) {
	switch method {
	case "tools/call", "prompts/get":
		return p.Name, true
	case "resources/read":
		return p.URI, true
	}
	return "", false
}

func (cr *CallReader[C, R, Q]) notification(m Message, r *jsonrpc.Request, p Params) {
	if r.Method != "notifications/cancelled" {
		return
	}
	id, ok := CancelledID(p.RequestID)
	if !ok {
		return
	}
	for _, req := range cr.reqs.Get(m.Session, id) {
		cr.h.Cancelled(m.Line, req)
	}
}

// ServerResponse takes the server's answer to a request of the client.
func (cr *CallReader[C, R, Q]) ServerResponse(m Message, r *jsonrpc.Response) error {
	req, ok := cr.reqs.Take(m.Session, m.Stream, r.ID)
	if !ok {
		return cr.h.Response(m, nil, r)
	}
	if req.Round {
		cr.rounds.Forget(req.Call) // it ends, or asks a round of its own
	}
	return cr.h.Response(m, req, r)
}

// ServerRequest takes a request of the server: a question, with the call
// it was asked during, or another (ping), answered by the client alone.
func (cr *CallReader[C, R, Q]) ServerRequest(m Message, r *jsonrpc.Request) error {
	if !r.ID.IsValid() {
		cr.h.Notification(m, r)
		return nil
	}
	var q Q
	switch r.Method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
		var err error
		if q, err = cr.h.Question(m, r, cr.asker(m, ReadParams(r.Params))); err != nil {
			return err
		}
	}
	cr.sreqs.Add(m.Session, "", r.ID, q)
	return nil
}

// asker finds the call a question was asked during: the task its _meta
// names; the call whose request stream carries it, else the earliest
// waiting (waiting.Asker; a call's round, or tasks/result of its task of
// 2025-11-25); else the last task still running in its session.
func (cr *CallReader[C, R, Q]) asker(m Message, p Params) Asker[C] {
	if raw, ok := p.Meta[metaRelatedTask]; ok {
		var rt struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(raw, &rt)
		if c, ok := cr.Task(rt.TaskID); ok {
			return Asker[C]{Call: c, Found: true}
		}
	}
	var none C
	asks := func(r *Pending[C, R]) bool { return r.Round || r.Method == "tasks/result" && r.Call != none }
	if req, others, ok := cr.reqs.Asker(m.Session, m.Stream, asks); ok {
		return Asker[C]{Call: req.Call, Found: true, Others: others}
	}
	for i := len(cr.tasks) - 1; i >= 0; i-- {
		if t := cr.tasks[i]; !t.ended && t.session == m.Session {
			return Asker[C]{Call: t.call, Found: true}
		}
	}
	return Asker[C]{}
}

// ClientResponse takes the client's answer to a server request.
func (cr *CallReader[C, R, Q]) ClientResponse(m Message, r *jsonrpc.Response) error {
	q, ok := cr.sreqs.Take(m.Session, "", r.ID)
	cr.h.Answer(m, q, ok, r)
	return nil
}

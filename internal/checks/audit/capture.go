package audit

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// exchange is one request the client sent and the response it got, as they
// were on the wire.
type exchange struct {
	Method string
	Params json.RawMessage
	Result json.RawMessage // nil when the response was an error, or none came
	Err    error           // the JSON-RPC error of the response
	Done   bool            // a response arrived
}

// recorder keeps the raw requests and responses of a session, so that the
// audit can show them as evidence and see fields the SDK's typed results
// drop (a resultType on a tools/list result, for example).
type recorder struct {
	mu      sync.Mutex
	byID    map[any]*exchange
	entries []*exchange
}

func newRecorder() *recorder { return &recorder{byID: map[any]*exchange{}} }

func (r *recorder) sent(req *jsonrpc.Request) {
	if !req.IsCall() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &exchange{Method: req.Method, Params: append(json.RawMessage(nil), req.Params...)}
	r.byID[req.ID.Raw()] = e
	r.entries = append(r.entries, e)
	// Keep the log bounded: a probe sends a handful of requests.
	if len(r.entries) > 200 {
		r.entries = r.entries[len(r.entries)-200:]
	}
}

func (r *recorder) received(resp *jsonrpc.Response) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byID[resp.ID.Raw()]
	if !ok {
		return
	}
	delete(r.byID, resp.ID.Raw())
	e.Done = true
	e.Result = append(json.RawMessage(nil), resp.Result...)
	e.Err = resp.Error
}

// last returns the latest exchange of method, or nil.
func (r *recorder) last(method string) *exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.entries) - 1; i >= 0; i-- {
		if r.entries[i].Method == method {
			e := *r.entries[i]
			return &e
		}
	}
	return nil
}

// all returns a copy of every exchange so far.
func (r *recorder) all() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]exchange, len(r.entries))
	for i, e := range r.entries {
		out[i] = *e
	}
	return out
}

// observe records the client's requests and the responses to them as they
// pass on the wire (a wire.Observer).
func (r *recorder) observe(sent bool, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if sent {
			r.sent(m)
		}
	case *jsonrpc.Response:
		if !sent {
			r.received(m)
		}
	}
}

// describe renders an exchange's response for evidence.
func (e *exchange) response() string {
	if e == nil || !e.Done {
		return "(no response)"
	}
	if e.Err != nil {
		return "error " + shorten(errorJSON(e.Err))
	}
	return shorten(withoutMeta(e.Result))
}

// request renders an exchange's request for evidence, without the
// per-request _meta the SDK adds.
func (e *exchange) request() string {
	if e == nil {
		return ""
	}
	return e.Method + " " + shorten(withoutMeta(e.Params))
}

func errorJSON(err error) []byte {
	if w, ok := err.(*jsonrpc.Error); ok {
		b, _ := json.Marshal(w)
		return b
	}
	return []byte(fmt.Sprintf("%q", err.Error()))
}

func withoutMeta(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	delete(m, "_meta")
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

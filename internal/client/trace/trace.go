// Package trace records an MCP session's traffic as JSON lines, one message
// a line, with its direction, kind, method, id and timing, and with secrets
// kept out: a requestState is shown by its length unless asked otherwise,
// arguments and answers that are secrets by name or form are hidden, and
// HTTP credentials never appear.
//
// A Recorder sees every JSON-RPC message as it crosses the wire (ids and
// raw results included), through Observe (a wire.Observer: session.Options.Observe), without
// changing what is sent.
package trace

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/termsafe"
)

// Directions of an Event.
const (
	Out = "out" // from the tester to the server
	In  = "in"  // from the server to the tester
)

// Kinds of an Event.
const (
	KindRequest      = "request"
	KindResponse     = "response"
	KindError        = "error"
	KindNotification = "notification"
	KindInfo         = "info"
)

// Event is one line of a trace.
type Event struct {
	// At is the time since the trace began, in milliseconds.
	At float64 `json:"t_ms"`
	// Server and Session name the server and the session a line is of, in
	// a trace of several (Options.Server, Options.Session); empty in the
	// trace of one session.
	Server  string `json:"server,omitempty"`
	Session string `json:"session,omitempty"`
	// Dir is Out or In; empty for KindInfo.
	Dir string `json:"dir,omitempty"`
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	// ID is the JSON-RPC id of a request or response, when known.
	ID any `json:"id,omitempty"`
	// Method is the method of a request or notification, or of the request
	// a response answers.
	Method string `json:"method,omitempty"`
	// Latency is, for a response or error, the time since its request, in
	// milliseconds.
	Latency *float64 `json:"latency_ms,omitempty"`
	// Params, Result and Error are the message's payload, redacted.
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// Info carries the facts of a KindInfo line.
	Info map[string]any `json:"info,omitempty"`
}

// Options configure a Recorder.
type Options struct {
	// ShowState prints requestState values as they are instead of their
	// length. Only for debugging a server of one's own.
	ShowState bool
	// ShowSecrets shows credentials in HTTP headers and URLs as they are
	// instead of "[redacted]". Only for debugging a server of one's own.
	ShowSecrets bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Start is the time t_ms counts from; zero means when the Recorder is
	// made. The Recorders of the sessions of one trace share it.
	Start time.Time
	// Server and Session are written on every line: in a trace of several
	// sessions (scan's servers, grade's probes), which one a line is of.
	Server, Session string
}

// Recorder writes Events to a writer, one JSON object a line. It is safe
// for concurrent use.
type Recorder struct {
	opts  Options
	start time.Time

	mu      sync.Mutex
	w       io.Writer
	pending map[string]pending // requests awaiting a response, by direction and id
	last    map[string]json.RawMessage
}

type pending struct {
	method string
	at     time.Time
}

// New returns a Recorder that writes to w.
func New(w io.Writer, opts Options) *Recorder {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	start := opts.Start
	if start.IsZero() {
		start = opts.Now()
	}
	return &Recorder{opts: opts, start: start, w: w, pending: map[string]pending{}, last: map[string]json.RawMessage{}}
}

// LastResult returns the last result received for method exactly as it
// arrived (not redacted), or nil. Only a Recorder that hears the session
// through Observe sees raw results.
func (r *Recorder) LastResult(method string) json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[method]
}

// Info writes a KindInfo line, such as the target connected to. Values
// must already be free of secrets (see RedactHeaders).
func (r *Recorder) Info(info map[string]any) {
	r.emit(Event{Kind: KindInfo, Info: info}, r.opts.Now())
}

func (r *Recorder) emit(e Event, now time.Time) {
	e.At = ms(now.Sub(r.start))
	e.Server, e.Session = r.opts.Server, r.opts.Session
	if !r.opts.ShowSecrets {
		// Arguments and answers that are secrets by name or form.
		e.Params, _ = credential.HidePart("params", e.Params)
		e.Result, _ = credential.HidePart("result", e.Result)
	}
	e.Params = Redact(e.Params, r.opts.ShowState)
	e.Result = Redact(e.Result, r.opts.ShowState)
	e.Error = Redact(e.Error, r.opts.ShowState)
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	// The trace may go to a terminal: what the server sent is written with
	// its control characters as \u escapes.
	b = append(termsafe.JSON(b), '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(b) // the trace is a view of the session, which a full disk does not stop
}

// begin notes a request that a response will answer.
func (r *Recorder) begin(key, method string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) < 10000 { // bounded: a peer that never answers cannot grow it forever
		r.pending[key] = pending{method: method, at: at}
	}
}

// end finds the request a response answers.
func (r *Recorder) end(key string, at time.Time) (string, *float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pending[key]
	if !ok {
		return "", nil
	}
	delete(r.pending, key)
	l := ms(at.Sub(p.at))
	return p.method, &l
}

func (r *Recorder) keep(method string, raw json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[method] = append(json.RawMessage(nil), raw...)
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

package recording

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MetaProtocol is the key of a 2026-07-28 request's _meta that names its
// protocol version.
const MetaProtocol = "io.modelcontextprotocol/protocolVersion"

// Line is the recording's line of Recording.Entries[i] (the header is
// line 1).
func Line(i int) int { return i + 2 }

// Message is where a JSON-RPC message of a recording stands: its line, its
// entry, and over HTTP the session and stream that carried it.
type Message struct {
	Line    int
	Entry   Entry
	Session string
	Stream  string
}

// Visitor hears a recording's entries in order (Walk): each event, and
// each message decoded, by its kind and direction. The first error a
// method returns ends the walk.
type Visitor interface {
	Event(line int, e Entry)
	ClientRequest(m Message, r *jsonrpc.Request) error
	ServerRequest(m Message, r *jsonrpc.Request) error
	ServerResponse(m Message, r *jsonrpc.Response) error
	ClientResponse(m Message, r *jsonrpc.Response) error
}

// Walk hands rec's entries to v in order: a batch an earlier proxy
// recorded as one line as its messages, and a message that does not
// decode as JSON-RPC as an EventNotRPC event.
func Walk(rec *Recording, v Visitor) error {
	for i, e := range rec.Entries {
		if err := visit(Line(i), e, v); err != nil {
			return err
		}
	}
	return nil
}

// WalkReader hands the entries rd reads to v in order as it reads them,
// keeping none: a reader of a large recording holds what it makes of it,
// not the recording too. It reads at most maxEntries entries (1,000,000
// when 0), as Read does; rd.Truncated says afterwards whether the last line
// was cut short.
func WalkReader(rd *Reader, v Visitor, maxEntries int) error {
	if maxEntries <= 0 {
		maxEntries = defaultMaxEntries
	}
	for n := 0; ; n++ {
		e, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n == maxEntries {
			return &Error{Line: rd.line, Err: fmt.Errorf("more than %d entries", maxEntries)}
		}
		if err := visit(rd.line, e, v); err != nil {
			return err
		}
	}
}

func visit(line int, e Entry, v Visitor) error {
	if !e.IsMessage() {
		v.Event(line, e)
		return nil
	}
	if batch, ok := Batch(e.Message); ok {
		// An earlier stdio proxy recorded a batch as one line: its
		// messages, in order, at that line.
		for _, m := range batch {
			one := e
			one.Message = m
			if err := visitMessage(line, one, v); err != nil {
				return err
			}
		}
		return nil
	}
	return visitMessage(line, e, v)
}

// visitMessage hands the message of e to v, or, when it is no JSON-RPC
// message (a JSON frame an earlier proxy recorded as one), an EventNotRPC.
func visitMessage(line int, e Entry, v Visitor) error {
	msg, err := DecodeMessage(e.Message)
	if err != nil {
		e.Event, e.Note = EventNotRPC, NotRPCNote(len(e.Message), err)
		v.Event(line, e)
		return nil
	}
	m := Message{Line: line, Entry: e}
	if e.HTTP != nil {
		m.Session, m.Stream = e.HTTP.Session, e.HTTP.Stream
	}
	client := e.Dir == ClientToServer
	switch r := msg.(type) {
	case *jsonrpc.Request:
		if client {
			return v.ClientRequest(m, r)
		}
		return v.ServerRequest(m, r)
	case *jsonrpc.Response:
		if client {
			return v.ClientResponse(m, r)
		}
		return v.ServerResponse(m, r)
	}
	return nil
}

// waiting holds the requests of one side that wait for the other's answer,
// by id within their HTTP session, each with what its reader keeps of it.
// The zero value is empty and ready.
type waiting[T any] struct {
	m map[waitKey][]waiter[T]
	n int // requests added, for their order
	// onStream are the ids of the requests sent on each stream of each
	// session (kept after they are answered: a stream carries few).
	onStream map[waitKey][]string
}

type waitKey struct{ session, id string }

type waiter[T any] struct {
	stream string
	seq    int
	v      T
}

// Add files a request with its id, sent in session on stream.
func (w *waiting[T]) Add(session, stream string, id jsonrpc.ID, v T) {
	if w.m == nil {
		w.m = map[waitKey][]waiter[T]{}
	}
	k := waitKey{session, idKey(id)}
	if stream != "" {
		if w.onStream == nil {
			w.onStream = map[waitKey][]string{}
		}
		sk := waitKey{session, stream}
		w.onStream[sk] = append(w.onStream[sk], k.id)
	}
	w.n++
	w.m[k] = append(w.m[k], waiter[T]{stream: stream, seq: w.n, v: v})
}

// Get is the requests waiting with id in session, in the order they came.
func (w *waiting[T]) Get(session string, id jsonrpc.ID) []T {
	var out []T
	for _, x := range w.m[waitKey{session, idKey(id)}] {
		out = append(out, x.v)
	}
	return out
}

// Take removes and returns the request an answer with id in session
// answers: the one sent on stream when several wait with that id, else the
// first. An answer whose id is null (an error of a server that could not
// read the request's id) answers the one request sent on its stream, if
// one alone was.
//
// The answer that opened a session (initialize) comes in the session while
// its request was sent without one: an answer in a session that no request
// of the session waits for takes the one sent without a session.
func (w *waiting[T]) Take(session, stream string, id jsonrpc.ID) (T, bool) {
	v, ok := w.take(session, stream, id)
	if !ok && session != "" {
		return w.take("", stream, id)
	}
	return v, ok
}

func (w *waiting[T]) take(session, stream string, id jsonrpc.ID) (T, bool) {
	if !id.IsValid() {
		return w.takeStream(session, stream)
	}
	k := waitKey{session, idKey(id)}
	list := w.m[k]
	if len(list) == 0 {
		var zero T
		return zero, false
	}
	i := 0
	for j, x := range list {
		if stream != "" && x.stream == stream {
			i = j
			break
		}
	}
	return w.remove(k, i), true
}

// remove removes and returns the i-th request waiting with key k.
func (w *waiting[T]) remove(k waitKey, i int) T {
	list := w.m[k]
	v := list[i].v
	if list = slices.Delete(list, i, i+1); len(list) == 0 {
		delete(w.m, k)
	} else {
		w.m[k] = list
	}
	return v
}

// takeStream removes and returns the one request waiting in session that
// was sent on stream; none when stream is empty or several were.
func (w *waiting[T]) takeStream(session, stream string) (T, bool) {
	var zero T
	if stream == "" {
		return zero, false
	}
	var found waitKey
	at, n := 0, 0
	ids := w.onStream[waitKey{session, stream}]
	for j, id := range ids {
		if slices.Contains(ids[:j], id) {
			continue
		}
		k := waitKey{session, id}
		for i, x := range w.m[k] {
			if x.stream == stream {
				found, at = k, i
				n++
			}
		}
	}
	if n != 1 {
		return zero, false
	}
	return w.remove(found, at), true
}

// In is every request waiting in session with the stream it was sent on,
// in the order they came.
func (w *waiting[T]) In(session string) (streams []string, values []T) {
	var all []waiter[T]
	for k, list := range w.m {
		if k.session == session {
			all = append(all, list...)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	for _, x := range all {
		streams, values = append(streams, x.stream), append(values, x.v)
	}
	return streams, values
}

// Asker finds the request a server request in session, carried on
// stream, was asked during, of the requests for which call holds: the one
// whose HTTP stream carries it; else (over stdio, or on a stream of its
// own) the earliest still waiting, the one that has waited longest, with
// the number of others it might as well belong to. CallReader takes a
// question as a call's by this rule.
func (w *waiting[T]) Asker(session, stream string, call func(T) bool) (asker T, others int, ok bool) {
	streams, values := w.In(session)
	for i, v := range values {
		if !call(v) {
			continue
		}
		if stream != "" && streams[i] == stream {
			return v, 0, true
		}
	}
	for _, v := range values {
		if !call(v) {
			continue
		}
		if !ok {
			asker, ok = v, true
			continue
		}
		others++
	}
	return asker, others, ok
}

// idKey tells ids apart as JSON-RPC does: the string "1" is not the
// number 1.
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return "s:" + v
	case float64:
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64)
	case int64:
		return "n:" + strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(id.Raw())
}

// CancelledID is the request a notifications/cancelled names in its
// requestId, if it names one.
func CancelledID(requestID json.RawMessage) (jsonrpc.ID, bool) {
	if len(requestID) == 0 {
		return jsonrpc.ID{}, false
	}
	var raw any
	if json.Unmarshal(requestID, &raw) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(raw)
	if err != nil || !id.IsValid() {
		return jsonrpc.ID{}, false
	}
	return id, true
}

// Params are the members of a request's params that the readers of a
// recording (a conversation, a stand-in) look at.
type Params struct {
	Meta           map[string]json.RawMessage `json:"_meta"`
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      json.RawMessage            `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`
	TaskID         string                     `json:"taskId"`
	Level          string                     `json:"level"`
	Cursor         *string                    `json:"cursor"`
	RequestID      json.RawMessage            `json:"requestId"`
	Protocol       string                     `json:"protocolVersion"`
}

// ReadParams reads what it can of a request's params: none, or params
// that are no object, read as empty.
func ReadParams(raw json.RawMessage) Params {
	var p Params
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	return p
}

// MetaProtocol is the protocol version the request's _meta names, "" if
// none.
func (p Params) MetaProtocol() string {
	var v string
	if raw, ok := p.Meta[MetaProtocol]; ok {
		_ = json.Unmarshal(raw, &v)
	}
	return v
}

// WireError is the JSON-RPC error a recorded response carries.
func WireError(err error) *jsonrpc.Error {
	if we, ok := err.(*jsonrpc.Error); ok {
		return we
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// InputRequest is one question of a 2026-07-28 input_required result.
type InputRequest struct {
	Key    string          `json:"-"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// InputRequests reads the questions of an input_required result in the
// order of their keys (the order a client answers them): each with what
// could be read of it, and an error naming the first that is not a
// question object.
func InputRequests(reqs map[string]json.RawMessage) ([]InputRequest, error) {
	out := make([]InputRequest, 0, len(reqs))
	var first error
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		ir := InputRequest{Key: k}
		if err := json.Unmarshal(reqs[k], &ir); err != nil && first == nil {
			first = fmt.Errorf("question %q: %v", k, err)
		}
		out = append(out, ir)
	}
	return out, first
}

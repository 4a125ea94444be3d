package session

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// toolResults watches the raw answers to the client's requests as they
// cross the wire, for what the go-sdk's decoding hides and a tester must
// not pass: a tools/call result of null, or one without content (decoded
// as an empty content list); a key given twice in an object (read as its
// last value: "isError": true, "isError": false passes as success); keys
// another client reads otherwise ("isError": false, "IsError": true: a
// client using encoding/json reads true); a second message after the
// answer in one body, or a second answer to one request (a result, then an
// error); a resultType the protocol does not define; a task handle no
// task was asked for.
type toolResults struct {
	mu       sync.Mutex
	pending  map[jsonrpc.ID]string // requests sent, not yet answered: their method
	empty    bool                  // a tools/call answer had no content since the last take
	handle   bool                  // a tools/call answer was a task handle since the last takeHandle
	repeated error                 // the first answer a client cannot trust since the last takeRepeated
	twice    error                 // the first request answered twice, kept until takeTwice
	// answered are the latest requests answered (their method, and
	// whether the answer was an error), to tell a second answer.
	answered answeredRing
	// stray is the id of the first answer to no request the client sent
	// (a server that answers with another id than the request's), kept
	// while every request sent is remembered (dropped: none can be told).
	stray   string
	dropped bool
	// unanswered is the first request whose JSON answer over HTTP was an
	// answer to no request instead of its own (see endUnanswered): no
	// other answer to it can come, and the connection ends on it.
	unanswered error
	// streamEnded is the latest request whose event stream ended after an
	// answer to no request instead of its own, until a request that ended
	// so takes it.
	streamEnded error
}

// watch is a wire.Watcher: it notes the requests the client sends and,
// in the answers to them, a tools/call result without content and a key
// given twice in one object.
func (t *toolResults) watch(sent bool, m jsonscan.Message) {
	switch {
	case m.Kind == jsonscan.Request && sent && m.ID.IsValid():
		t.mu.Lock()
		t.sent(m)
		t.mu.Unlock()
	case m.Kind == jsonscan.Response && !sent:
		t.mu.Lock()
		if method, ok := t.pending[m.ID]; ok {
			t.answer(method, m)
		} else {
			t.unmatched(m)
		}
		t.mu.Unlock()
	}
}

// sent remembers the request m as pending, while there is room. t.mu is held.
func (t *toolResults) sent(m jsonscan.Message) {
	if t.pending == nil {
		t.pending = map[jsonrpc.ID]string{}
	}
	if len(t.pending) < maxPendingCalls {
		t.pending[m.ID] = m.Method
	} else {
		t.dropped = true
	}
}

// answer notes m, the answer to the pending request of method: an answer
// without content, one a client cannot trust, a task handle. t.mu is held.
func (t *toolResults) answer(method string, m jsonscan.Message) {
	delete(t.pending, m.ID)
	t.answered.add(m.ID, method, m.Failed)
	if !m.Failed && method == "tools/call" && !m.Result.Answered() {
		t.empty = true
	}
	if t.repeated == nil {
		t.repeated = untrusted(method, m)
	}
	if !m.Failed && method == "tools/call" && (m.Result.Task || m.Result.Type == resultTypeTask) {
		t.handle = true
	}
}

// unmatched notes m, an answer to no pending request: a second answer to
// one already answered, or an answer to no request at all. t.mu is held.
func (t *toolResults) unmatched(m jsonscan.Message) {
	if first, again := t.answered.find(m.ID); again {
		if t.twice == nil {
			t.twice = fmt.Errorf("the server answered %s (id %s) twice: %s, then %s; refused (a client may take either)", first.method, idText(m.ID), first.kind(), kindOf(m.Failed))
		}
	} else if !t.dropped && t.stray == "" && m.ID.IsValid() {
		t.stray = idText(m.ID)
	}
}

// answered is what the watcher remembers of a request answered.
type answered struct {
	method string
	failed bool
}

func (a answered) kind() string { return kindOf(a.failed) }

func kindOf(failed bool) string {
	if failed {
		return "an error"
	}
	return "a result"
}

// maxAnswered bounds the answered requests remembered.
const maxAnswered = 256

// answeredRing remembers the latest maxAnswered requests answered, the
// oldest forgotten first. Its entries hold no pointer: the collector does
// not look into them at each cycle of a long session. An id is kept as
// its number, or a string id as its hash (the ids are the client's own:
// the go-sdk numbers its requests); a method as its place in methods. It
// is searched only for an answer to no request pending, from the newest.
type answeredRing struct {
	entries []answeredAt // a ring once full: next is the oldest
	next    int
	methods []string // the methods the entries name, each once
	seed    maphash.Seed
}

// answeredAt is one request answered.
type answeredAt struct {
	id     int64
	str    bool  // id is the hash of a string id
	method uint8 // its place in methods
	failed bool
}

// maxMethods bounds the methods an answeredRing names; a request of
// another is remembered as "a request".
const maxMethods = 64

// key is how the ring keeps id; false for an id it cannot keep.
func (a *answeredRing) key(id jsonrpc.ID) (n int64, str, ok bool) {
	switch v := id.Raw().(type) {
	case int64:
		return v, false, true
	case string:
		if a.seed == (maphash.Seed{}) {
			a.seed = maphash.MakeSeed()
		}
		return int64(maphash.String(a.seed, v)), true, true
	}
	return 0, false, false
}

// add remembers that the request id, of method, was answered.
func (a *answeredRing) add(id jsonrpc.ID, method string, failed bool) {
	n, str, ok := a.key(id)
	if !ok {
		return
	}
	i := slices.Index(a.methods, method)
	if i < 0 && len(a.methods) < maxMethods {
		a.methods = append(a.methods, method)
		i = len(a.methods) - 1
	}
	e := answeredAt{id: n, str: str, method: maxMethods, failed: failed} // maxMethods: "a request"
	if i >= 0 {
		e.method = uint8(i)
	}
	if len(a.entries) < maxAnswered {
		if a.entries == nil {
			a.entries = make([]answeredAt, 0, maxAnswered)
		}
		a.entries = append(a.entries, e)
		return
	}
	a.entries[a.next] = e
	a.next = (a.next + 1) % maxAnswered
}

// find returns what it remembers of the request id, the latest first.
func (a *answeredRing) find(id jsonrpc.ID) (answered, bool) {
	n, str, ok := a.key(id)
	if !ok {
		return answered{}, false
	}
	for k := range a.entries {
		e := a.entries[(a.next-1-k+2*len(a.entries))%len(a.entries)]
		if e.id == n && e.str == str {
			method := "a request"
			if int(e.method) < len(a.methods) {
				method = a.methods[e.method]
			}
			return answered{method: method, failed: e.failed}, true
		}
	}
	return answered{}, false
}

// resultTypeTask is the resultType of a task handle (the tasks extension).
const resultTypeTask = "task"

// untrusted says why an answer to method cannot be trusted, nil when it
// can: a key twice, keys another client reads otherwise, a second message
// after it, a resultType the protocol does not define, a task handle to a
// request that cannot start a task.
func untrusted(method string, m jsonscan.Message) error {
	switch {
	case m.Repeat != nil && !m.Failed:
		return fmt.Errorf("the server's answer to %s: %w; refused (which one was meant?)", method, m.Repeat)
	case m.Case != nil && !m.Failed:
		return fmt.Errorf("the server's answer to %s: %w; refused (which one was meant?)", method, m.Case)
	case m.Trailing:
		return fmt.Errorf("the server's answer to %s is followed by more in the same body (a second answer?); refused (a client may read either)", method)
	case m.Failed:
		return nil
	}
	if m.Result.BadIsError && method == "tools/call" {
		return fmt.Errorf("the server's answer to %s has an isError that is neither true nor false; refused (a client may read it as success, another as failure)", method)
	}
	return resultTypeProblem(method, m.Result)
}

// resultTypeProblem says what is wrong with the resultType of a result to
// method, nil when nothing is.
func resultTypeProblem(method string, r jsonscan.Result) error {
	switch t := r.Type; {
	case t == "" || t == "complete" || t == "input_required":
	case t == resultTypeTask && method == "tools/call":
	case t == resultTypeTask || r.Task && method != "tools/call":
		return fmt.Errorf("the server answered %s with a task handle, which only tools/call can start; refused", method)
	default:
		return fmt.Errorf("the server's answer to %s has resultType %q, which the protocol does not define (complete, input_required, task); refused", method, termsafe.Clip(t, 64))
	}
	return nil
}

// idText is an id as a message names it.
func idText(id jsonrpc.ID) string {
	if _, num := id.Raw().(int64); num {
		return fmt.Sprint(id.Raw())
	}
	return termsafe.Clip(fmt.Sprintf("%q", fmt.Sprint(id.Raw())), 64)
}

// takeTwice returns the first request answered twice that no call has
// reported yet, and forgets it. A second answer may come after the first
// was taken for the call's: it is reported by the next request, or when
// the session closes.
func (t *toolResults) takeTwice() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.twice
	t.twice = nil
	return e
}

// takeHandle reports whether a tools/call answer was a task handle since
// the last takeHandle, and forgets it.
func (t *toolResults) takeHandle() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.handle
	t.handle = false
	return h
}

// maxPendingCalls bounds the tools/call requests remembered at once.
const maxPendingCalls = 1024

// take reports whether an answer without content arrived since the last
// take, and forgets it.
func (t *toolResults) take() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.empty
	t.empty = false
	return e
}

// takeRepeated returns the first answer with a key twice in one object
// since the last call, and forgets it.
func (t *toolResults) takeRepeated() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.repeated
	t.repeated = nil
	return e
}

// endUnanswered is a wire.Unanswered: the HTTP answer to the request
// awaited ended without its answer, having carried an answer with the id
// other. When other is no request's (not a second answer to one answered
// before), it returns the error that ends the answer's body, and keeps
// it, so that the request fails at once with it rather than wait out its
// time limit. Otherwise (an answer meant for another request, or the
// requests sent are no longer all remembered) it returns nil and the
// request waits, as for an answer that may still come.
func (t *toolResults) endUnanswered(awaited, other jsonrpc.ID, stream bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, again := t.answered.find(other); again || t.dropped {
		return nil
	}
	err := strayError(idText(other))
	switch {
	case stream:
		t.streamEnded = err
	case t.unanswered == nil:
		t.unanswered = err
	}
	return err
}

// strayError says that the server answered with the JSON-RPC id id, which
// no request had.
func strayError(id string) error {
	return fmt.Errorf("the server answered with the JSON-RPC id %s, which no request had", id)
}

// unansweredBy returns the error of a request whose HTTP answer ended
// with an answer to no request (see endUnanswered) when err, a failure of
// the connection or of a request, follows from it, nil otherwise: over a
// JSON body, err carries its text (the go-sdk keeps the error only as
// text); over an event stream, err is the go-sdk's own for a stream that
// ended without the answer, and takes the error kept.
func (t *toolResults) unansweredBy(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err == nil:
	case t.unanswered != nil && strings.Contains(err.Error(), t.unanswered.Error()):
		return t.unanswered
	case t.streamEnded != nil && strings.Contains(err.Error(), streamEndedUnanswered):
		e := t.streamEnded
		t.streamEnded = nil
		return e
	}
	return nil
}

// streamEndedUnanswered is what the go-sdk says of a request whose event
// stream ended without its answer, and which it will not resume.
const streamEndedUnanswered = "request terminated without response"

// takeStray returns the id of an answer to no request sent, "" if none
// came, and forgets it.
func (t *toolResults) takeStray() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stray
	t.stray = ""
	return s
}

package standin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// settleBound bounds the wait, once a stdio client's input has ended,
// for the requests it sent to be answered: a request still unanswered
// then is cut short (reported so).
const settleBound = 30 * time.Second

// inputEnd follows a stdio connection's requests so that the end of the
// client's input cuts none short unseen: the requests read before it
// are answered first (their answers still go out, as a client that
// closes its side after its last request expects), except those that
// wait for the client itself (a question sent to it, whose answer can no
// longer come) or for a delay fault; those, and any whose answer could
// not be written, are each a problem of the report.
type inputEnd struct {
	stop <-chan struct{} // the stand-in ends (an interrupt): wait no more

	mu       sync.Mutex
	changed  chan struct{} // closed (and replaced) at each change
	pending  map[jsonrpc.ID]string
	order    []jsonrpc.ID // pending's keys, in the order read
	unsent   []string     // requests whose answer could not be written
	asking   map[jsonrpc.ID]bool
	sleeping int
	ended    bool
	stopped  bool           // interrupted before the input ended
	broken   bool           // a write failed: nothing more can be answered
	claimed  map[string]int // cut-short requests reported already, by label
}

func newInputEnd(stop <-chan struct{}) *inputEnd {
	return &inputEnd{stop: stop, changed: make(chan struct{}), pending: map[jsonrpc.ID]string{},
		asking: map[jsonrpc.ID]bool{}, claimed: map[string]int{}}
}

// changedLocked wakes the wait for the requests to settle.
func (e *inputEnd) changedLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// read notes a message the client sent.
func (e *inputEnd) read(msg jsonrpc.Message) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			if _, ok := e.pending[m.ID]; !ok {
				e.order = append(e.order, m.ID)
			}
			e.pending[m.ID] = label(m.Method, paramsName(m.Method, m.Params))
		}
	case *jsonrpc.Response:
		delete(e.asking, m.ID)
	}
	e.changedLocked()
}

// writing notes a message the stand-in is about to write. A question
// (a request of its own) counts as asked from now: the client may
// answer it, and its answer be read, before the write has returned, and
// an answer read must not leave the question counted as open (the end
// of the input would then cut short the call the answer was for).
func (e *inputEnd) writing(msg jsonrpc.Message) {
	if m, ok := msg.(*jsonrpc.Request); ok && m.IsCall() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.asking[m.ID] = true
	}
}

// wrote notes a message the stand-in wrote (err: it could not).
func (e *inputEnd) wrote(msg jsonrpc.Message, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if lbl, ok := e.pending[m.ID]; ok {
			delete(e.pending, m.ID)
			if err != nil {
				e.unsent = append(e.unsent, lbl)
			}
		}
	case *jsonrpc.Request:
		if m.IsCall() && err != nil {
			delete(e.asking, m.ID) // not asked after all
		}
	}
	if err != nil {
		e.broken = true
	}
	e.changedLocked()
}

// sleep notes a delay fault begun (+1) or over (-1).
func (e *inputEnd) sleep(delta int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sleeping += delta
	e.changedLocked()
}

// settledLocked reports whether every request read is answered, or
// waits for the client (as many as questions are open to it) or a delay,
// or can no longer be answered (the output is gone).
func (e *inputEnd) settledLocked() bool {
	return e.broken || len(e.pending) == 0 || len(e.asking)+e.sleeping >= len(e.pending)
}

// end marks the client's input ended and waits until the requests read
// have settled (or the stand-in ends, or settleBound has passed).
func (e *inputEnd) end() {
	timer := time.NewTimer(settleBound)
	defer timer.Stop()
	e.mu.Lock()
	e.ended = true
	for !e.settledLocked() {
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-e.stop:
			return
		case <-timer.C:
			return
		}
		e.mu.Lock()
	}
	e.mu.Unlock()
}

// hasEnded reports whether the client's input has ended.
func (e *inputEnd) hasEnded() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ended
}

// interrupt notes that the stand-in is stopped (an interrupt) before the
// client's input ended: what is cut short then is the interrupt's doing.
func (e *inputEnd) interrupt() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ended {
		e.stopped = true
	}
	e.changedLocked()
}

// interrupted reports whether the stand-in was stopped (an interrupt)
// before the client's input ended.
func (e *inputEnd) interrupted() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopped
}

// cutDetail is the report's words for a request the end cut short: the
// end of the client's input, or the stand-in interrupted before it.
func (e *inputEnd) cutDetail(lbl string) string {
	if e.interrupted() {
		return fmt.Sprintf("the stand-in was interrupted before %s was answered", lbl)
	}
	return inputEndedDetail(lbl)
}

// claim notes that the cut-short request lbl was reported already.
func (e *inputEnd) claim(lbl string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.claimed[lbl]++
}

// cutShort are the requests the end of the input, or an interrupt
// before it, left unanswered, in the order read, less those claimed.
func (e *inputEnd) cutShort() []string {
	stopped := e.interrupted()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ended && !stopped {
		return nil
	}
	out := slices.Clone(e.unsent)
	for _, id := range e.order {
		if lbl, ok := e.pending[id]; ok {
			out = append(out, lbl)
		}
	}
	var left []string
	for _, lbl := range out {
		if e.claimed[lbl] > 0 {
			e.claimed[lbl]--
			continue
		}
		left = append(left, lbl)
	}
	return left
}

// inputEndedDetail is the report's words for a request cut short.
func inputEndedDetail(lbl string) string {
	return fmt.Sprintf("the client's input ended before %s was answered", lbl)
}

// paramsName is the tool or prompt name or resource URI of a request's
// params ("" when it names none).
func paramsName(method string, params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if method == "resources/read" {
		return p.URI
	}
	return p.Name
}

// endTransport is a stdio transport whose connection tells e what it
// reads and writes, and holds back the end of the input until e has
// settled.
type endTransport struct {
	inner mcp.Transport
	e     *inputEnd
}

func (t *endTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &endConn{Connection: c, e: t.e}, nil
}

type endConn struct {
	mcp.Connection
	e *inputEnd
}

func (c *endConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.e.read(msg)
	} else if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		c.e.end()
	}
	return msg, err
}

func (c *endConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.e.writing(msg)
	err := c.Connection.Write(ctx, msg)
	c.e.wrote(msg, err)
	return err
}

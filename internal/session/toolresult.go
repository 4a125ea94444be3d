package session

import (
	"fmt"
	"sync"

	"github.com/askback/askback/internal/jsonscan"
	"github.com/askback/askback/internal/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// toolResults watches the raw answers to the client's requests as they
// cross the wire: the go-sdk decodes a tools/call result of null, or one
// without content, as an empty content list, which a tester must not take
// for a tool that answered; and it reads a key given twice in an object
// as its last value ("isError": true, "isError": false passes as success).
type toolResults struct {
	mu       sync.Mutex
	pending  map[jsonrpc.ID]string // requests sent, not yet answered: their method
	empty    bool                  // a tools/call answer had no content since the last take
	repeated error                 // the first answer with a key twice since the last takeRepeated
	// stray is the id of the first answer to no request the client sent
	// (a server that answers with another id than the request's), kept
	// while every request sent is remembered (dropped: none can be told).
	stray   string
	dropped bool
}

// watch is a wire.Watcher: it notes the requests the client sends and,
// in the answers to them, a tools/call result without content and a key
// given twice in one object.
func (t *toolResults) watch(sent bool, m jsonscan.Message) {
	switch {
	case m.Kind == jsonscan.Request && sent && m.ID.IsValid():
		t.mu.Lock()
		if t.pending == nil {
			t.pending = map[jsonrpc.ID]string{}
		}
		if len(t.pending) < maxPendingCalls {
			t.pending[m.ID] = m.Method
		} else {
			t.dropped = true
		}
		t.mu.Unlock()
	case m.Kind == jsonscan.Response && !sent:
		t.mu.Lock()
		method, ok := t.pending[m.ID]
		if !ok && !t.dropped && t.stray == "" && m.ID.IsValid() {
			t.stray = termsafe.Clip(fmt.Sprintf("%q", fmt.Sprint(m.ID.Raw())), 64)
			if _, num := m.ID.Raw().(int64); num {
				t.stray = fmt.Sprint(m.ID.Raw())
			}
		}
		if ok {
			delete(t.pending, m.ID)
			if !m.Failed && method == "tools/call" && !m.Result.Answered() {
				t.empty = true
			}
			if m.Repeat != nil && !m.Failed && t.repeated == nil {
				t.repeated = fmt.Errorf("the server's answer to %s: %w; refused (which one was meant?)", method, m.Repeat)
			}
		}
		t.mu.Unlock()
	}
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

// takeStray returns the id of an answer to no request sent, "" if none
// came, and forgets it.
func (t *toolResults) takeStray() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stray
	t.stray = ""
	return s
}

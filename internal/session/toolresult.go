package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/askback/askback/internal/strictjson"
	"github.com/askback/askback/internal/wire"
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
}

// observer returns a wire.Observer that notes tools/call answers without
// content, then tells next (if any).
func (t *toolResults) observer(next wire.Observer) wire.Observer {
	return func(sent bool, msg jsonrpc.Message) {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if sent && m.IsCall() {
				t.mu.Lock()
				if t.pending == nil {
					t.pending = map[jsonrpc.ID]string{}
				}
				if len(t.pending) < maxPendingCalls {
					t.pending[m.ID] = m.Method
				}
				t.mu.Unlock()
			}
		case *jsonrpc.Response:
			if !sent {
				t.mu.Lock()
				if method, ok := t.pending[m.ID]; ok {
					delete(t.pending, m.ID)
					if m.Error == nil && method == "tools/call" && !hasContent(m.Result) {
						t.empty = true
					}
					if err := strictjson.CheckRepeats(m.Result); err != nil && m.Error == nil && t.repeated == nil {
						t.repeated = fmt.Errorf("the server's answer to %s: %w; refused (which one was meant?)", method, err)
					}
				}
				t.mu.Unlock()
			}
		}
		if next != nil {
			next(sent, msg)
		}
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

// hasContent reports whether raw, the result of a tools/call, is an object
// with content, or one that needs none: a question (resultType
// input_required) or a task handle.
func hasContent(raw json.RawMessage) bool {
	var r map[string]json.RawMessage
	if json.Unmarshal(raw, &r) != nil || r == nil {
		return false
	}
	if c, ok := r["content"]; ok && !bytes.Equal(bytes.TrimSpace(c), []byte("null")) {
		return true
	}
	if _, ok := r["task"]; ok {
		return true
	}
	var rt string
	_ = json.Unmarshal(r["resultType"], &rt)
	return rt != "" && rt != "complete"
}

package session

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/askback/askback/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// toolResults watches the raw answers to tools/call as they cross the wire:
// the go-sdk decodes a result of null, or one without content, as an empty
// content list, which a tester must not take for a tool that answered.
type toolResults struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // tools/call requests sent, not yet answered
	empty   bool                // an answer had no content since the last take
}

// observer returns a wire.Observer that notes tools/call answers without
// content, then tells next (if any).
func (t *toolResults) observer(next wire.Observer) wire.Observer {
	return func(sent bool, msg jsonrpc.Message) {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if sent && m.IsCall() && m.Method == "tools/call" {
				t.mu.Lock()
				if t.pending == nil {
					t.pending = map[jsonrpc.ID]bool{}
				}
				if len(t.pending) < maxPendingCalls {
					t.pending[m.ID] = true
				}
				t.mu.Unlock()
			}
		case *jsonrpc.Response:
			if !sent {
				t.mu.Lock()
				if t.pending[m.ID] {
					delete(t.pending, m.ID)
					if m.Error == nil && !hasContent(m.Result) {
						t.empty = true
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

package session

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// executions keeps the execution member of each tool a server listed
// (whether and how it runs as a task: "taskSupport"), which the go-sdk's
// Tool has no field for: read from the tools/list answers as they cross
// the wire (Options.KeepExecution), by tool name, the last listing's.
type executions struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool        // tools/list requests not yet answered
	byName  map[string]json.RawMessage // each listed tool's execution member
}

// maxPendingLists bounds the tools/list requests remembered.
const maxPendingLists = 64

// observe is a wire.Observer that notes tools/list requests and reads
// the execution members of their answers.
func (x *executions) observe(sent bool, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if sent && m.Method == "tools/list" && m.ID.IsValid() {
			x.listed(m.ID)
		}
	case *jsonrpc.Response:
		if !sent {
			x.answered(m)
		}
	}
}

// listed remembers the tools/list request id, while there is room.
func (x *executions) listed(id jsonrpc.ID) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.pending == nil {
		x.pending = map[jsonrpc.ID]bool{}
	}
	if len(x.pending) < maxPendingLists {
		x.pending[id] = true
	}
}

// answered reads the execution members of m when it answers a pending
// tools/list request.
func (x *executions) answered(m *jsonrpc.Response) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.pending[m.ID] {
		return
	}
	delete(x.pending, m.ID)
	if m.Error != nil {
		return
	}
	var page struct {
		Tools []struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(m.Result, &page) != nil {
		return
	}
	if x.byName == nil {
		x.byName = map[string]json.RawMessage{}
	}
	for _, t := range page.Tools {
		if len(t.Execution) > 0 && string(t.Execution) != "null" {
			x.byName[t.Name] = t.Execution
		} else {
			delete(x.byName, t.Name)
		}
	}
}

// ToolExecution is the execution member of the tool named name as the
// server last listed it (a JSON object, e.g. {"taskSupport":"optional"}),
// or nil: none was given, or the session does not keep them
// (Options.KeepExecution).
func (s *Session) ToolExecution(name string) json.RawMessage {
	if s.execs == nil {
		return nil
	}
	s.execs.mu.Lock()
	defer s.execs.mu.Unlock()
	return s.execs.byName[name]
}

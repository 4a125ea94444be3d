package session

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// listed keeps what a server said of itself and its lists as it sent it,
// which the go-sdk's types drop in part (a capability they do not know,
// such as tasks, or a member of a tool such as execution): the initialize
// answer's capabilities and serverInfo, and each item of the tools,
// prompts, resources and resource templates lists, read from the answers
// as they cross the wire (Options.KeepListed), by the item's key (a
// tool's or prompt's name, a resource's URI, a template's URI template),
// the last listing's.
type listed struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]string // requests not yet answered, by id: their method
	init    struct {
		capabilities, serverInfo json.RawMessage
	}
	items map[string]map[string]json.RawMessage // by list method, by key
	// scopes holds, by list method, the cacheScope member of its pages as
	// sent (nil for a page without one): the first that is neither
	// "public" nor "private", else the last page's.
	scopes map[string]sentScope
}

// sentScope is the cacheScope member of a list's pages, as sent.
type sentScope struct {
	raw json.RawMessage // nil: the member was missing
	bad bool            // neither "public" nor "private"
}

// maxPendingLists bounds the requests remembered.
const maxPendingLists = 64

// listKey is where the answer to the list method holds its items, and
// the member that keys each; ok is false for another method.
func listKey(method string) (list, key string, ok bool) {
	switch method {
	case "tools/list":
		return "tools", "name", true
	case "prompts/list":
		return "prompts", "name", true
	case "resources/list":
		return "resources", "uri", true
	case "resources/templates/list":
		return "resourceTemplates", "uriTemplate", true
	}
	return "", "", false
}

// observe is a wire.Observer that notes initialize and list requests and
// reads their answers.
func (x *listed) observe(sent bool, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if _, _, ok := listKey(m.Method); (ok || m.Method == "initialize") && sent && m.ID.IsValid() {
			x.asked(m.ID, m.Method)
		}
	case *jsonrpc.Response:
		if !sent {
			x.answered(m)
		}
	}
}

// asked remembers the request id, while there is room.
func (x *listed) asked(id jsonrpc.ID, method string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.pending == nil {
		x.pending = map[jsonrpc.ID]string{}
	}
	if len(x.pending) < maxPendingLists {
		x.pending[id] = method
	}
}

// answered reads m when it answers a pending request.
func (x *listed) answered(m *jsonrpc.Response) {
	x.mu.Lock()
	defer x.mu.Unlock()
	method, ok := x.pending[m.ID]
	if !ok {
		return
	}
	delete(x.pending, m.ID)
	if m.Error != nil {
		return
	}
	if method == "initialize" {
		var init struct {
			Capabilities json.RawMessage `json:"capabilities"`
			ServerInfo   json.RawMessage `json:"serverInfo"`
		}
		if json.Unmarshal(m.Result, &init) == nil {
			x.init.capabilities, x.init.serverInfo = init.Capabilities, init.ServerInfo
		}
		return
	}
	x.page(method, m.Result)
}

// page keeps the items of one page of the list method.
func (x *listed) page(method string, result json.RawMessage) {
	list, keyMember, _ := listKey(method)
	var page map[string]json.RawMessage
	if json.Unmarshal(result, &page) != nil {
		return
	}
	x.noteScope(method, page)
	var items []json.RawMessage
	if json.Unmarshal(page[list], &items) != nil {
		return
	}
	if x.items == nil {
		x.items = map[string]map[string]json.RawMessage{}
	}
	if x.items[method] == nil {
		x.items[method] = map[string]json.RawMessage{}
	}
	for _, item := range items {
		var key map[string]json.RawMessage
		var name string
		if json.Unmarshal(item, &key) != nil || json.Unmarshal(key[keyMember], &name) != nil {
			continue
		}
		x.items[method][name] = item
	}
}

// noteScope keeps the cacheScope member of a page of the list method:
// the first that is neither "public" nor "private" stands, else the last
// page's.
func (x *listed) noteScope(method string, page map[string]json.RawMessage) {
	raw, ok := page["cacheScope"]
	if !ok {
		raw = nil
	}
	var scope string
	bad := json.Unmarshal(raw, &scope) != nil || scope != "public" && scope != "private"
	if x.scopes == nil {
		x.scopes = map[string]sentScope{}
	}
	if x.scopes[method].bad {
		return // the first that breaks the protocol stands
	}
	x.scopes[method] = sentScope{raw: raw, bad: bad}
}

// ListedCacheScope is the cacheScope member of the answers to the list
// method (tools/list, prompts/list, resources/list,
// resources/templates/list) as the server last sent it: nil when the
// member was missing. listed is false when the session saw no answer to
// the method or does not keep them (Options.KeepListed). Of a list of
// several pages it is the first page's member that is neither "public"
// nor "private", else the last page's.
func (s *Session) ListedCacheScope(method string) (scope json.RawMessage, listed bool) {
	if s.listed == nil {
		return nil, false
	}
	s.listed.mu.Lock()
	defer s.listed.mu.Unlock()
	sc, ok := s.listed.scopes[method]
	return sc.raw, ok
}

// Listed is the item keyed key (a tool's or prompt's name, a resource's
// URI, a template's URI template) of the list method (tools/list,
// prompts/list, resources/list, resources/templates/list) as the server
// last sent it, every member, or nil: it sent none, or the session does
// not keep them (Options.KeepListed).
func (s *Session) Listed(method, key string) json.RawMessage {
	if s.listed == nil {
		return nil
	}
	s.listed.mu.Lock()
	defer s.listed.mu.Unlock()
	return s.listed.items[method][key]
}

// AsSent is item, listed by the list method under key (a tool's or
// prompt's name, a resource's URI, a template's URI template), as the
// server sent it when the session kept it (Listed: every member, those the
// go-sdk's types lack among them, such as a tool's execution), else item
// itself: what a listing shows of an item for machines.
func (s *Session) AsSent(method, key string, item any) any {
	if raw := s.Listed(method, key); raw != nil {
		return raw
	}
	return item
}

// RawCapabilities are the capabilities the server declared as it sent
// them, every member (the go-sdk's ServerCapabilities drops those it does
// not know, such as tasks); nil when the session does not keep them
// (Options.KeepListed).
func (s *Session) RawCapabilities() json.RawMessage {
	if s.listed == nil {
		return nil
	}
	s.listed.mu.Lock()
	defer s.listed.mu.Unlock()
	return s.listed.init.capabilities
}

// RawServerInfo is what the server said of itself (serverInfo) as it sent
// it; nil when the session does not keep it (Options.KeepListed).
func (s *Session) RawServerInfo() json.RawMessage {
	if s.listed == nil {
		return nil
	}
	s.listed.mu.Lock()
	defer s.listed.mu.Unlock()
	return s.listed.init.serverInfo
}

// ToolExecution is the execution member of the tool named name as the
// server last listed it (a JSON object, e.g. {"taskSupport":"optional"}),
// or nil: none was given, or the session does not keep them
// (Options.KeepListed).
func (s *Session) ToolExecution(name string) json.RawMessage {
	var tool struct {
		Execution json.RawMessage `json:"execution"`
	}
	if json.Unmarshal(s.Listed("tools/list", name), &tool) != nil || string(tool.Execution) == "null" {
		return nil
	}
	return tool.Execution
}

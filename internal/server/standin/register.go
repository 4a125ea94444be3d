package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// anyObject is the input schema of a listed tool whose recorded schema is
// not an object schema, as the go-sdk requires one: any object.
var anyObject = json.RawMessage(`{"type":"object"}`)

// calledSchema is the input schema of a tool the recording calls but never
// lists: an object with the arguments the recorded calls pass, each of the
// JSON type its values have (no type where they differ), and others
// allowed, since the recording does not say which the tool refuses. A
// client that checks arguments against the schema (a script's
// `call_tool deploy service:"auth"`) then sends what it sent before.
func (s *Standin) calledSchema(name string) json.RawMessage {
	props := map[string]map[string]any{}
	for k, t := range s.calledArguments(name) {
		props[k] = map[string]any{}
		if t != "" {
			props[k]["type"] = t
		}
	}
	schema := map[string]any{"type": "object", "additionalProperties": true}
	if len(props) > 0 {
		schema["properties"] = props
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return anyObject
	}
	return b
}

// calledArguments are the arguments the recorded calls of the tool name
// pass, each with the JSON Schema type of its values ("" where they
// differ).
func (s *Standin) calledArguments(name string) map[string]string {
	types := map[string]string{}
	for _, x := range s.script.Of("tools/call") {
		if x.Name != name {
			continue
		}
		var p struct {
			Arguments map[string]json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(x.Params, &p) != nil {
			continue
		}
		for k, v := range p.Arguments {
			t := jsonType(v)
			if prev, ok := types[k]; ok && prev != t {
				t = ""
			}
			types[k] = t
		}
	}
	return types
}

// jsonType is the JSON Schema type of a JSON value ("" for null or a
// value that is none).
func jsonType(v json.RawMessage) string {
	t := bytes.TrimLeft(v, " \t\r\n")
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return ""
	}
	return "number"
}

// register puts the recorded tools, prompts, resources and templates on
// the server (those listed, and those only called), and says for each
// list where its answer comes from.
func (s *Standin) register() error {
	if err := s.registerTools(); err != nil {
		return err
	}
	if err := s.registerPrompts(); err != nil {
		return err
	}
	return s.registerResources()
}

// listed returns the ended results of a list method, in order.
func (s *Standin) listed(method string) []*Exchange {
	var out []*Exchange
	for _, x := range s.script.Of(method) {
		if x.Ended && x.Err == nil {
			out = append(out, x)
		}
	}
	return out
}

// called returns the names the recording's requests of method name, in
// the order they first appear.
func (s *Standin) called(method string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s.script.Of(method) {
		if !seen[x.Name] {
			seen[x.Name] = true
			out = append(out, x.Name)
		}
	}
	return out
}

// safely runs a registration the go-sdk may refuse with a panic (an
// invalid URI or URI template, a schema it cannot read), as an error.
func safely(line int, what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &recording.Error{Line: line, Err: fmt.Errorf("%s cannot be served: %v", what, r)}
		}
	}()
	f()
	return nil
}

// lists is what each list method answers: from the recording, derived
// from the calls, or empty; Notes says it in one line.
type lists struct {
	recorded, derived, empty []string
}

func (s *Standin) listNote(method string, results []*Exchange, n int, kind string, derived []string) {
	switch {
	case len(results) > 0:
		if d := byDeclared(results); d > 1 {
			s.lists.recorded = append(s.lists.recorded, fmt.Sprintf("%s (%s; %d lists that differ by what their clients declared: a client gets the one of the client that declared the nearest)", method, plural(n, kind), d))
			break
		}
		s.lists.recorded = append(s.lists.recorded, fmt.Sprintf("%s (%s)", method, plural(n, kind)))
	case len(derived) > 0:
		s.lists.derived = append(s.lists.derived, fmt.Sprintf("%s (%s %s)", method, plural(len(derived), kind), strings.Join(quoteAll(derived), ", ")))
	default:
		s.lists.empty = append(s.lists.empty, method)
	}
}

// plural writes a count and a noun, in the plural unless the count is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// byDeclared counts the answered lists of results that differ, when
// their clients declared different capabilities (capsNearest chooses
// among them); 1 when they do not.
func byDeclared(results []*Exchange) int {
	caps := map[string]bool{}
	answers := map[string]bool{}
	for _, x := range results {
		if x.Ended && x.Err == nil {
			caps[strings.Join(x.clientCaps, ",")] = true
			answers[string(x.Result)] = true
		}
	}
	if len(caps) < 2 {
		return 1
	}
	return len(answers)
}

// listsNote says in one line where the lists' answers come from.
func (l lists) note() string {
	var parts []string
	if len(l.recorded) > 0 {
		parts = append(parts, "from the recording: "+strings.Join(l.recorded, ", "))
	}
	if len(l.derived) > 0 {
		parts = append(parts, "not recorded, so listing what the recording calls: "+strings.Join(l.derived, ", "))
	}
	if len(l.empty) > 0 {
		parts = append(parts, "not recorded, so answered empty: "+strings.Join(l.empty, ", "))
	}
	return "lists " + strings.Join(parts, "; ")
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// feature is one kind of thing a server lists and a call names: how to
// read it from a list result, and to register it, listed or only called.
type feature[T any] struct {
	list, call string // "tools/list", "tools/call"; call is "" for templates
	noun       string // "tool"
	items      func(mcp.Result) []T
	key        func(T) string
	add        func(T)      // registers a listed one
	derive     func(string) // registers one the recording calls and lists not; nil: none
}

// registerFeature registers what the recorded lists of f list (the first
// of each name), then what the recording calls and no list lists, and
// notes where the list's answer comes from. The go-sdk refuses with a
// panic what it cannot serve (an invalid URI): an error naming the line.
func registerFeature[T any](s *Standin, f feature[T]) error {
	results := s.listed(f.list)
	have, err := registerListed(f, results)
	if err != nil {
		return err
	}
	n := len(have)
	derived, err := registerCalled(s, f, have)
	if err != nil {
		return err
	}
	if len(results) > 0 && len(derived) > 0 {
		s.note("%s names %s, which no recorded %s lists: served, not listed", f.call, strings.Join(quoteAll(derived), ", "), f.list)
		derived = nil
	}
	s.listNote(f.list, results, n, f.noun, derived)
	return nil
}

// registerListed registers what the recorded lists of f list, the first
// of each name, and returns the names.
func registerListed[T any](f feature[T], results []*Exchange) (map[string]bool, error) {
	have := map[string]bool{}
	for _, x := range results {
		res, err := decodeResult(x.Method, x.Result)
		if err != nil {
			return nil, &recording.Error{Line: x.ResultLine, Err: err}
		}
		for _, it := range f.items(res) {
			k := f.key(it)
			if have[k] {
				continue
			}
			have[k] = true
			if err := safely(x.ResultLine, fmt.Sprintf("%s %q", f.noun, k), func() { f.add(it) }); err != nil {
				return nil, err
			}
		}
	}
	return have, nil
}

// registerCalled registers what the recording calls of f and no list
// lists (have), and returns their names.
func registerCalled[T any](s *Standin, f feature[T], have map[string]bool) ([]string, error) {
	if f.derive == nil {
		return nil, nil
	}
	var derived []string
	for _, name := range s.called(f.call) {
		if have[name] {
			continue
		}
		derived = append(derived, name)
		if err := safely(0, fmt.Sprintf("%s %q", f.noun, name), func() { f.derive(name) }); err != nil {
			return nil, err
		}
	}
	return derived, nil
}

// nonNil returns the elements of xs that are not nil.
func nonNil[T any](xs []*T) []*T {
	out := make([]*T, 0, len(xs))
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

func (s *Standin) registerTools() error {
	return registerFeature(s, feature[*mcp.Tool]{
		list: "tools/list", call: "tools/call", noun: "tool",
		items: func(r mcp.Result) []*mcp.Tool { return nonNil(r.(*mcp.ListToolsResult).Tools) },
		key:   func(t *mcp.Tool) string { return t.Name },
		add: func(t *mcp.Tool) {
			if !objectSchema(t.InputSchema) {
				t.InputSchema = anyObject
			}
			s.server.AddTool(t, s.tool)
		},
		derive: func(name string) { s.server.AddTool(&mcp.Tool{Name: name, InputSchema: s.calledSchema(name)}, s.tool) },
	})
}

// objectSchema reports whether a tool's input schema is an object schema,
// as the go-sdk requires.
func objectSchema(schema any) bool {
	m, ok := schema.(map[string]any)
	return ok && m["type"] == "object"
}

func (s *Standin) registerPrompts() error {
	return registerFeature(s, feature[*mcp.Prompt]{
		list: "prompts/list", call: "prompts/get", noun: "prompt",
		items:  func(r mcp.Result) []*mcp.Prompt { return nonNil(r.(*mcp.ListPromptsResult).Prompts) },
		key:    func(p *mcp.Prompt) string { return p.Name },
		add:    func(p *mcp.Prompt) { s.server.AddPrompt(p, s.prompt) },
		derive: func(name string) { s.server.AddPrompt(&mcp.Prompt{Name: name}, s.prompt) },
	})
}

func (s *Standin) registerResources() error {
	// Every URI read is registered as a resource of its own (a template
	// may match it too): the handler finds its recorded answer by URI.
	err := registerFeature(s, feature[*mcp.Resource]{
		list: "resources/list", call: "resources/read", noun: "resource",
		items:  func(r mcp.Result) []*mcp.Resource { return nonNil(r.(*mcp.ListResourcesResult).Resources) },
		key:    func(r *mcp.Resource) string { return r.URI },
		add:    func(r *mcp.Resource) { s.server.AddResource(r, s.resource) },
		derive: func(uri string) { s.server.AddResource(&mcp.Resource{URI: uri, Name: uri}, s.resource) },
	})
	if err != nil {
		return err
	}
	err = registerFeature(s, feature[*mcp.ResourceTemplate]{
		list: "resources/templates/list", noun: "template",
		items: func(r mcp.Result) []*mcp.ResourceTemplate {
			return nonNil(r.(*mcp.ListResourceTemplatesResult).ResourceTemplates)
		},
		key: func(t *mcp.ResourceTemplate) string { return t.URITemplate },
		add: func(t *mcp.ResourceTemplate) { s.server.AddResourceTemplate(t, s.resource) },
	})
	if err != nil {
		return err
	}
	s.note("%s", s.lists.note())
	return nil
}

// The handlers of the registered features: each replays its exchange.

func (s *Standin) tool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return replayCall(ctx, s, req, "tools/call", func(qs mcp.InputRequestMap, state string) *mcp.CallToolResult {
		return &mcp.CallToolResult{InputRequests: qs, RequestState: state}
	})
}

func (s *Standin) prompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return replayCall(ctx, s, req, "prompts/get", func(qs mcp.InputRequestMap, state string) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{InputRequests: qs, RequestState: state}
	})
}

func (s *Standin) resource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return replayCall(ctx, s, req, "resources/read", func(qs mcp.InputRequestMap, state string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{InputRequests: qs, RequestState: state}
	})
}

// replayCall answers a call with its questions (asking makes the
// method's input_required result of them) or its recorded answer.
func replayCall[R mcp.Result](ctx context.Context, s *Standin, req mcp.Request, method string, asking func(mcp.InputRequestMap, string) R) (R, error) {
	var zero R
	t, err := s.call(ctx, req, method)
	if err != nil {
		return zero, err
	}
	if t.questions != nil {
		return asking(t.questions, t.state), nil
	}
	res, err := s.final(t.x)
	if err != nil {
		return zero, err
	}
	return res.(R), nil
}

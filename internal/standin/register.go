package standin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// anyObject is the input schema of a tool the recording calls but never
// lists: any object.
var anyObject = json.RawMessage(`{"type":"object"}`)

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
			err = &BuildError{line, fmt.Errorf("%s cannot be served: %v", what, r)}
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

func (s *Standin) registerTools() error {
	results := s.listed("tools/list")
	have := map[string]bool{}
	n := 0
	for _, x := range results {
		res, err := decodeResult(x.Method, x.Result)
		if err != nil {
			return &BuildError{x.ResultLine, err}
		}
		for _, t := range res.(*mcp.ListToolsResult).Tools {
			if t == nil || have[t.Name] {
				continue
			}
			have[t.Name] = true
			n++
			if !objectSchema(t.InputSchema) {
				t.InputSchema = anyObject
			}
			if err := safely(x.ResultLine, fmt.Sprintf("tool %q", t.Name), func() { s.server.AddTool(t, s.tool) }); err != nil {
				return err
			}
		}
	}
	var derived []string
	for _, name := range s.called("tools/call") {
		if have[name] {
			continue
		}
		derived = append(derived, name)
		t := &mcp.Tool{Name: name, InputSchema: anyObject}
		if err := safely(0, fmt.Sprintf("tool %q", name), func() { s.server.AddTool(t, s.tool) }); err != nil {
			return err
		}
	}
	if len(results) > 0 && len(derived) > 0 {
		s.note("tools/call names %s, which no recorded tools/list lists: served, not listed", strings.Join(quoteAll(derived), ", "))
		derived = nil
	}
	s.listNote("tools/list", results, n, "tool", derived)
	return nil
}

// objectSchema reports whether a tool's input schema is an object schema,
// as the go-sdk requires.
func objectSchema(schema any) bool {
	m, ok := schema.(map[string]any)
	return ok && m["type"] == "object"
}

func (s *Standin) registerPrompts() error {
	results := s.listed("prompts/list")
	have := map[string]bool{}
	n := 0
	for _, x := range results {
		res, err := decodeResult(x.Method, x.Result)
		if err != nil {
			return &BuildError{x.ResultLine, err}
		}
		for _, p := range res.(*mcp.ListPromptsResult).Prompts {
			if p == nil || have[p.Name] {
				continue
			}
			have[p.Name] = true
			n++
			s.server.AddPrompt(p, s.prompt)
		}
	}
	var derived []string
	for _, name := range s.called("prompts/get") {
		if !have[name] {
			derived = append(derived, name)
			s.server.AddPrompt(&mcp.Prompt{Name: name}, s.prompt)
		}
	}
	if len(results) > 0 && len(derived) > 0 {
		s.note("prompts/get names %s, which no recorded prompts/list lists: served, not listed", strings.Join(quoteAll(derived), ", "))
		derived = nil
	}
	s.listNote("prompts/list", results, n, "prompt", derived)
	return nil
}

func (s *Standin) registerResources() error {
	results := s.listed("resources/list")
	have := map[string]bool{}
	n := 0
	for _, x := range results {
		res, err := decodeResult(x.Method, x.Result)
		if err != nil {
			return &BuildError{x.ResultLine, err}
		}
		for _, r := range res.(*mcp.ListResourcesResult).Resources {
			if r == nil || have[r.URI] {
				continue
			}
			have[r.URI] = true
			n++
			if err := safely(x.ResultLine, fmt.Sprintf("resource %q", r.URI), func() { s.server.AddResource(r, s.resource) }); err != nil {
				return err
			}
		}
	}
	templates := s.listed("resources/templates/list")
	nt := 0
	seenT := map[string]bool{}
	for _, x := range templates {
		res, err := decodeResult(x.Method, x.Result)
		if err != nil {
			return &BuildError{x.ResultLine, err}
		}
		for _, t := range res.(*mcp.ListResourceTemplatesResult).ResourceTemplates {
			if t == nil || seenT[t.URITemplate] {
				continue
			}
			seenT[t.URITemplate] = true
			nt++
			if err := safely(x.ResultLine, fmt.Sprintf("resource template %q", t.URITemplate), func() { s.server.AddResourceTemplate(t, s.resource) }); err != nil {
				return err
			}
		}
	}
	// Every URI read is registered as a resource of its own (a template
	// may match it too): the handler finds its recorded answer by URI.
	var derived []string
	for _, uri := range s.called("resources/read") {
		if have[uri] {
			continue
		}
		derived = append(derived, uri)
		r := &mcp.Resource{URI: uri, Name: uri}
		if err := safely(0, fmt.Sprintf("resource %q", uri), func() { s.server.AddResource(r, s.resource) }); err != nil {
			return err
		}
	}
	if len(results) > 0 && len(derived) > 0 {
		s.note("resources/read reads %s, which no recorded resources/list lists: served, not listed", strings.Join(quoteAll(derived), ", "))
		derived = nil
	}
	s.listNote("resources/list", results, n, "resource", derived)
	s.listNote("resources/templates/list", templates, nt, "template", nil)
	s.note("%s", s.lists.note())
	return nil
}

// The handlers of the registered features: each replays its exchange.

func (s *Standin) tool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	t, err := s.call(ctx, req, "tools/call")
	if err != nil {
		return nil, err
	}
	if t.questions != nil {
		return &mcp.CallToolResult{InputRequests: t.questions, RequestState: t.state}, nil
	}
	res, err := s.final(t.x)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.CallToolResult), nil
}

func (s *Standin) prompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	t, err := s.call(ctx, req, "prompts/get")
	if err != nil {
		return nil, err
	}
	if t.questions != nil {
		return &mcp.GetPromptResult{InputRequests: t.questions, RequestState: t.state}, nil
	}
	res, err := s.final(t.x)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.GetPromptResult), nil
}

func (s *Standin) resource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	t, err := s.call(ctx, req, "resources/read")
	if err != nil {
		return nil, err
	}
	if t.questions != nil {
		return &mcp.ReadResourceResult{InputRequests: t.questions, RequestState: t.state}, nil
	}
	res, err := s.final(t.x)
	if err != nil {
		return nil, err
	}
	return res.(*mcp.ReadResourceResult), nil
}

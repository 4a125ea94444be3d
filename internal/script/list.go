package script

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/text/suggest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listKinds are what the list command lists, and the member of its result
// that holds them.
var listKinds = map[string]string{
	"tools":              "tools",
	"prompts":            "prompts",
	"resources":          "resources",
	"resource_templates": "resourceTemplates",
}

func listKindNames() []string {
	var names []string
	for k := range listKinds {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// ListConn is a Conn that can list what the server offers, every page, for
// the list command.
type ListConn interface {
	Conn
	// List lists one kind (tools, prompts, resources or
	// resource_templates) and returns the result as one JSON object
	// holding every page's items: {"tools": […]}.
	List(ctx context.Context, kind string) (json.RawMessage, error)
}

func checkList(p *parser, c *command, outers []*cmd) {
	s, ok := p.literalArg(c, 0, "what to list")
	if !ok {
		return
	}
	if _, ok := listKinds[s]; ok {
		return
	}
	msg := fmt.Sprintf("list takes %s, not %q", strings.Join(listKindNames(), ", "), s)
	if h, ok := suggest.Closest(s, listKindNames()); ok {
		msg = fmt.Sprintf("unknown list %q; did you mean %q?", s, h)
	}
	p.errorf(c.args[0].col, "%s", msg)
}

// sendList runs list KIND: the result is every page's items in one object.
func sendList(r *runner, ctx context.Context, c *command, _ []answer.Spec) (*Outcome, error) {
	lc, ok := r.conn.(ListConn)
	if !ok {
		return nil, &scriptError{fmt.Errorf("list: this connection cannot list")}
	}
	raw, err := lc.List(ctx, c.args[0].segs[0].text)
	if err != nil {
		return nil, err
	}
	return &Outcome{Raw: raw}, nil
}

// List implements ListConn.
func (c *SessionConn) List(ctx context.Context, kind string) (json.RawMessage, error) {
	all := session.Pages{All: true}
	var items []any
	var err error
	// Each item as the server sent it, every member (session.AsSent: a
	// tool's execution among them), so that a recorded list replays.
	switch kind {
	case "tools":
		items, err = asSent(c.S, "tools/list", func() ([]*mcp.Tool, string, error) { return c.S.ListTools(ctx, all) }, func(t *mcp.Tool) string { return t.Name })
	case "prompts":
		items, err = asSent(c.S, "prompts/list", func() ([]*mcp.Prompt, string, error) { return c.S.ListPrompts(ctx, all) }, func(p *mcp.Prompt) string { return p.Name })
	case "resources":
		items, err = asSent(c.S, "resources/list", func() ([]*mcp.Resource, string, error) { return c.S.ListResources(ctx, all) }, func(r *mcp.Resource) string { return r.URI })
	case "resource_templates":
		items, err = asSent(c.S, "resources/templates/list", func() ([]*mcp.ResourceTemplate, string, error) { return c.S.ListResourceTemplates(ctx, all) }, func(t *mcp.ResourceTemplate) string { return t.URITemplate })
	default:
		return nil, fmt.Errorf("list: unknown kind %q", kind)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{listKinds[kind]: items})
}

// asSent lists with list and gives each item as the server sent it
// (session.AsSent), keyed in the list method by keyOf.
func asSent[T any](s *session.Session, method string, list func() ([]T, string, error), keyOf func(T) string) ([]any, error) {
	items, _, err := list()
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		out = append(out, s.AsSent(method, keyOf(it), it))
	}
	return out, nil
}

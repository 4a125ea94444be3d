package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listing is what a client saw of a server, as the go-sdk decoded it: its
// initialize result and its lists, every page. It is the one model of a
// server's catalog in memory: `catalog save` makes a Catalog of it,
// inspect, grade and scan read it, completion and the audit take their
// subjects from it. List fills it.
type Listing struct {
	// Info is the server's initialize (or server/discover) result.
	Info *mcp.InitializeResult `json:"info,omitempty"`
	// Tools, Prompts, Resources and Templates are the server's lists, every
	// page, in the order they came.
	Tools     []*mcp.Tool             `json:"tools"`
	Prompts   []*mcp.Prompt           `json:"prompts"`
	Resources []*mcp.Resource         `json:"resources"`
	Templates []*mcp.ResourceTemplate `json:"resourceTemplates"`
	// Declared are the client capabilities the session that listed the
	// server declared (session.Declared), never nil once listed.
	Declared []string `json:"clientCapabilities,omitempty"`
	// ListErrors holds, by method (e.g. "prompts/list"), the lists the
	// server declared but failed to give.
	ListErrors map[string]string `json:"listErrors,omitempty"`
	// Failed is the first list that failed (in the order tools, prompts,
	// resources, templates), as its error; nil when none did.
	Failed error `json:"-"`
	// Sent is what the server sent as it sent it, where the go-sdk's
	// types above keep only what they know.
	Sent Sent `json:"-"`
}

// Sent is what a server sent as it sent it, every member: its
// capabilities (the go-sdk's ServerCapabilities drops those it does not
// know, such as tasks, and the members of a known one it does not know),
// its serverInfo, and each item of its lists (a tool's execution, a member
// of a later protocol). A member is nil, or an item missing, when it was
// not read as sent (a listing made in this process, a listing document).
type Sent struct {
	Capabilities json.RawMessage
	ServerInfo   json.RawMessage
	// Tools and Prompts are by name, Resources by URI, Templates by URI
	// template.
	Tools, Prompts, Resources, Templates map[string]json.RawMessage
	// CacheScopes are, by list method (tools/list …), the cacheScope
	// member of its answers as sent (see session.ListedCacheScope), nil
	// where it was missing; a method is absent when its answers were not
	// read as sent.
	CacheScopes map[string]json.RawMessage
}

// ScopeSender is a Sender that keeps the cacheScope member of the answers
// to each list method (*session.Session does).
type ScopeSender interface {
	ListedCacheScope(method string) (scope json.RawMessage, listed bool)
}

// Capabilities are the capabilities the server declared, every member, as
// plain JSON (objects, arrays, strings, json.Number, booleans, nil): as
// sent when they were read so, else as the go-sdk decoded them. Never nil.
func (l *Listing) Capabilities() (map[string]any, error) {
	var v any
	var err error
	switch {
	case len(l.Sent.Capabilities) > 0 && string(l.Sent.Capabilities) != "null":
		v, err = plainJSON(l.Sent.Capabilities)
	case l.Info != nil && l.Info.Capabilities != nil:
		v, err = plain(l.Info.Capabilities)
	}
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, fmt.Errorf("capabilities: not a JSON object")
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// ServerInfo is what the server says of itself (its serverInfo); nil
// when it said nothing.
func (l *Listing) ServerInfo() *mcp.Implementation {
	if l.Info == nil {
		return nil
	}
	return l.Info.ServerInfo
}

// Instructions are the server's instructions; "" when none.
func (l *Listing) Instructions() string {
	if l.Info == nil {
		return ""
	}
	return l.Info.Instructions
}

// Sender is a session that keeps what the server sent as it sent it
// (*session.Session does, with session.Options.KeepListed).
type Sender interface {
	RawCapabilities() json.RawMessage
	RawServerInfo() json.RawMessage
	// Listed is the item keyed key of the list method as sent, nil when
	// none was.
	Listed(method, key string) json.RawMessage
}

// Lists names the lists List asks for.
type Lists uint8

// The lists of a server. A list is asked for only when the server declares
// its capability (resources for both resources and templates).
const (
	Tools Lists = 1 << iota
	Prompts
	Resources
	Templates
	// Every list.
	Every = Tools | Prompts | Resources | Templates
)

// Bounds of a listing: a server cannot make the client hold more. The
// pages are bounded by the session (session.MaxPages).
const (
	// MaxItems bounds the items of one list.
	MaxItems = 10000
	// MaxBytes bounds the items of all lists together, as JSON: what a
	// catalog file may hold (MaxFileSize).
	MaxBytes = MaxFileSize
)

// Options say what List asks for and how much it takes.
type Options struct {
	// Lists are the lists to ask for; 0 is Every.
	Lists Lists
	// MaxItems and MaxBytes bound the listing; 0 is the package's bound.
	MaxItems, MaxBytes int
}

// ErrTooLarge is the error of a listing past its bounds (items, bytes, or
// the session's pages), wrapped in a session error of KindProtocol: the
// server sent more than the tester takes, exit 1 in every command.
var ErrTooLarge = session.ErrTooLarge

// List reads what the server behind s offers: each list o asks for that
// the server declares, every page. A server that is gone, an answer with a
// key twice in one object, or a listing past its bounds ends the listing
// with an error (ErrTooLarge for the bounds); another failure of one list
// is noted (ListErrors, Failed) and the others are listed. A server that
// declares resources but does not know resources/templates/list (it came
// after resources/list in the protocol) has no templates.
func List(ctx context.Context, s Lister, o Options) (*Listing, error) {
	if o.Lists == 0 {
		o.Lists = Every
	}
	b := &budget{items: cmp.Or(o.MaxItems, MaxItems), bytes: cmp.Or(o.MaxBytes, MaxBytes)}
	l := &Listing{Info: s.InitializeResult(), Declared: s.Declared()}
	if l.Declared == nil {
		l.Declared = []string{}
	}
	caps := s.ServerCapabilities()
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	for _, list := range []struct {
		which    Lists
		declared bool
		method   string
		fetch    func(session.Pages) error
	}{
		{Tools, caps.Tools != nil, "tools/list", func(p session.Pages) (err error) { l.Tools, _, err = s.ListTools(ctx, p); return err }},
		{Prompts, caps.Prompts != nil, "prompts/list", func(p session.Pages) (err error) { l.Prompts, _, err = s.ListPrompts(ctx, p); return err }},
		{Resources, caps.Resources != nil, "resources/list", func(p session.Pages) (err error) { l.Resources, _, err = s.ListResources(ctx, p); return err }},
		{Templates, caps.Resources != nil, "resources/templates/list", func(p session.Pages) (err error) {
			l.Templates, _, err = s.ListResourceTemplates(ctx, p)
			return err
		}},
	} {
		if o.Lists&list.which == 0 || !list.declared {
			continue
		}
		if err := l.note(list.method, list.fetch(b.pages(list.method))); err != nil {
			return nil, err
		}
	}
	if sender, ok := s.(Sender); ok {
		l.keepSent(sender)
	}
	return l, nil
}

// keepSent keeps what s kept of what the server sent of l.
func (l *Listing) keepSent(s Sender) {
	l.Sent.Capabilities, l.Sent.ServerInfo = s.RawCapabilities(), s.RawServerInfo()
	keep := func(method string, keys []string) map[string]json.RawMessage {
		var out map[string]json.RawMessage
		for _, k := range keys {
			if raw := s.Listed(method, k); raw != nil {
				if out == nil {
					out = map[string]json.RawMessage{}
				}
				out[k] = raw
			}
		}
		return out
	}
	l.Sent.Tools = keep("tools/list", keysOf(l.Tools, func(t *mcp.Tool) string { return t.Name }))
	l.Sent.Prompts = keep("prompts/list", keysOf(l.Prompts, func(p *mcp.Prompt) string { return p.Name }))
	l.Sent.Resources = keep("resources/list", keysOf(l.Resources, func(r *mcp.Resource) string { return r.URI }))
	l.Sent.Templates = keep("resources/templates/list", keysOf(l.Templates, func(t *mcp.ResourceTemplate) string { return t.URITemplate }))
	if ss, ok := s.(ScopeSender); ok {
		for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
			if scope, listed := ss.ListedCacheScope(m); listed {
				if l.Sent.CacheScopes == nil {
					l.Sent.CacheScopes = map[string]json.RawMessage{}
				}
				l.Sent.CacheScopes[m] = scope
			}
		}
	}
}

// keysOf is the key of each item that is not nil.
func keysOf[T any](items []*T, key func(*T) string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it != nil {
			out = append(out, key(it))
		}
	}
	return out
}

// note notes the failure err of the list method, or returns it when it
// ends the listing: a server that is gone, one whose answer has a key
// twice in one object (which one was meant?), or one that sends more than
// the tester takes.
func (l *Listing) note(method string, err error) error {
	if err == nil {
		return nil
	}
	if session.KindOf(err) == session.KindUnreachable || errors.Is(err, strictjson.ErrAmbiguous) || errors.Is(err, ErrTooLarge) {
		return err
	}
	if method == "resources/templates/list" && isMethodNotFound(err) {
		return nil
	}
	if l.ListErrors == nil {
		l.ListErrors = map[string]string{}
	}
	l.ListErrors[method] = err.Error()
	if l.Failed == nil {
		l.Failed = err
	}
	return nil
}

// Failures are the lists that failed, each as "method: why", in the
// order of their methods' names.
func (l *Listing) Failures() []string {
	out := make([]string, 0, len(l.ListErrors))
	for _, m := range slices.Sorted(maps.Keys(l.ListErrors)) {
		out = append(out, m+": "+l.ListErrors[m])
	}
	return out
}

// isMethodNotFound reports a JSON-RPC "Method not found" error (-32601).
func isMethodNotFound(err error) bool {
	w := session.RPCError(err)
	return w != nil && w.Code == jsonrpc.CodeMethodNotFound
}

// budget is what a listing has left to take.
type budget struct {
	items, bytes int // the bounds
	spent        int // bytes taken by every list so far
}

// pages is every page of the list method, bounded by b.
func (b *budget) pages(method string) session.Pages {
	n := 0
	return session.Pages{All: true, Page: func(items any, count int) error {
		n += count
		if n > b.items {
			return session.TooLarge(method, fmt.Sprintf("more than %d items", b.items))
		}
		data, err := json.Marshal(items)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		b.spent += len(data)
		if b.spent > b.bytes {
			return session.TooLarge(method, fmt.Sprintf("the lists pass %d bytes", b.bytes))
		}
		return nil
	}}
}

// Capabilities a server may offer tools by: a server may list a tool only
// to clients that declare the capability its tool asks for.
const (
	CapabilitySampling = "sampling"
	CapabilityRoots    = "roots"
)

// ListedBy is the one wording of what the client that listed a server
// declared, which every report of a catalog gives (scan, inspect, grade,
// audit): "listed by a client that declared elicitation (form, url),
// sampling, roots", or "… declared nothing".
func ListedBy(declared []string) string {
	if len(declared) == 0 {
		return "listed by a client that declared nothing"
	}
	return "listed by a client that declared " + strings.Join(declared, ", ")
}

// DeclaredLine says what a client that listed a server declared, and what
// it did not that a server may offer tools by (UndeclaredNote): "listed by
// a client that declared elicitation (form, url); not sampling or roots:
// tools a server offers only to clients that declare them are not listed
// (--sample, --root declare them)".
func DeclaredLine(declared []string, option func(capability string) string) string {
	line := ListedBy(declared)
	if note := UndeclaredNote(declared, option); note != "" {
		return line + "; " + note
	}
	return line
}

// UndeclaredNote says which of the capabilities a server may offer tools
// by (sampling, roots) a client that declared declared did not, and that
// such tools are then not listed, with the options that declare them
// (option names them, "--sample" or "Samples"): "not sampling or roots:
// tools a server offers only to clients that declare them are not listed
// (--sample, --root declare them)". It is "" when both were declared. The
// audit's report and a call of a tool the server does not list say it
// alike.
func UndeclaredNote(declared []string, option func(capability string) string) string {
	var missing, options []string
	for _, c := range []string{CapabilitySampling, CapabilityRoots} {
		if !slices.Contains(declared, c) {
			missing = append(missing, c)
			options = append(options, option(c))
		}
	}
	switch len(missing) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("not %s: tools a server offers only to clients that declare it are not listed (%s declares it)", missing[0], options[0])
	}
	return fmt.Sprintf("not %s: tools a server offers only to clients that declare them are not listed (%s declare them)", strings.Join(missing, " or "), strings.Join(options, ", "))
}

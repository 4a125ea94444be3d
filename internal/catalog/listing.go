package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

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

// ErrTooLarge is the error of a listing past its bounds.
var ErrTooLarge = errors.New("the server's catalog is larger than the tester takes")

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
	return l, nil
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
			return fmt.Errorf("%s: more than %d items; stopped: %w", method, b.items, ErrTooLarge)
		}
		data, err := json.Marshal(items)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		b.spent += len(data)
		if b.spent > b.bytes {
			return fmt.Errorf("%s: the lists pass %d bytes; stopped: %w", method, b.bytes, ErrTooLarge)
		}
		return nil
	}}
}

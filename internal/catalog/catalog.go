// Package catalog is a server's catalog as one canonical JSON file: what
// it says about itself (name, version, protocol, capabilities,
// instructions) and what it offers (tools, prompts, resources, resource
// templates, with their schemas, annotations and icons), every page of
// every list. `mcp-tester catalog save` writes it, `catalog diff`
// compares two.
//
// The file diffs well in git: keys sorted, tools and prompts in name order,
// resources by URI, templates by URI template, one value a line, two
// spaces of indentation, and nothing that changes with a resource's
// content (its size and modification date). Characters that must not
// reach a terminal are written as \u escapes.
//
// Listing is the one model of a server's catalog; Catalog is not a second
// one but its file form: the projection of a Listing that `catalog save`
// writes and `catalog diff` compares, built only by FromListing (from a
// server) and parseSaved (from a file). It stays a type of its own because
// the projection is where the file's rules live, once: what it leaves out
// (a resource's lastModified and size, the order the server listed in),
// what it keeps that the go-sdk's types cannot hold, read from what the
// server sent (Listing.Sent): every capability as sent (tasks, those of
// an extension, a later protocol's), a tool's execution, and every other
// member of the server's info and of an item (_meta, a later protocol's),
// each item's Other; and how it orders. Comparing projections is what
// makes a file just saved and the live server it came from show no
// change by construction; a diff of Listings would have to repeat every
// one of those rules, and the file and the server would be compared by
// two readings that can drift apart.
package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/askback/askback/internal/client/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Format is the version of the file's layout, its catalogFormat.
const Format = 1

// Catalog is the file form of a server's Listing (see the package
// comment): what `catalog save` writes, `catalog diff` compares and
// ReadSaved reads back.
type Catalog struct {
	Format          int            `json:"catalogFormat"`
	Server          Server         `json:"server"`
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	// ClientCapabilities are what the client that fetched the catalog
	// declared (a server may offer more to a client that declares more).
	ClientCapabilities []string   `json:"clientCapabilities,omitempty"`
	Instructions       string     `json:"instructions,omitempty"`
	Tools              []Tool     `json:"tools"`
	Prompts            []Prompt   `json:"prompts"`
	Resources          []Resource `json:"resources"`
	Templates          []Template `json:"resourceTemplates"`
}

// Server is what the server says about itself (serverInfo).
type Server struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
	// Other are the members the server sent that the fields above do not
	// name (its _meta, a member of a later protocol), as plain JSON; the
	// file writes them beside the others. A catalog read from a file
	// holds them as their text instead (otherText): Others reads either.
	Other     map[string]any `json:"-"`
	otherText json.RawMessage
}

// Icon is an icon of the server, a tool, a prompt or a resource.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Tool is one tool.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema and OutputSchema are plain JSON trees, or their JSON
	// text (json.RawMessage) when read from a file: SchemaTree reads
	// either.
	InputSchema  any              `json:"inputSchema"`
	OutputSchema any              `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Execution is how the tool runs as a task (taskSupport), as the
	// server listed it.
	Execution any    `json:"execution,omitempty"`
	Icons     []Icon `json:"icons,omitempty"`
	// Other: see Server.Other.
	Other     map[string]any `json:"-"`
	otherText json.RawMessage
}

// ToolAnnotations are a tool's hints; a nil hint was not given.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly, Destructive, Idempotent and OpenWorld are the hints as MCP
// defines them when absent: not read-only, destructive, not idempotent,
// open world.
func (a *ToolAnnotations) ReadOnly() bool {
	return a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint
}

// Destructive: see ReadOnly.
func (a *ToolAnnotations) Destructive() bool {
	return a == nil || a.DestructiveHint == nil || *a.DestructiveHint
}

// Idempotent: see ReadOnly.
func (a *ToolAnnotations) Idempotent() bool {
	return a != nil && a.IdempotentHint != nil && *a.IdempotentHint
}

// OpenWorld: see ReadOnly.
func (a *ToolAnnotations) OpenWorld() bool {
	return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint
}

// Prompt is one prompt.
type Prompt struct {
	Name        string     `json:"name"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description,omitempty"`
	Arguments   []Argument `json:"arguments,omitempty"`
	Icons       []Icon     `json:"icons,omitempty"`
	// Other: see Server.Other.
	Other     map[string]any `json:"-"`
	otherText json.RawMessage
}

// Argument is one argument of a prompt.
type Argument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Resource is one resource. Its size and modification date are left
// out: they change with its content, not with what the server offers.
type Resource struct {
	URI         string   `json:"uri"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	MIMEType    string   `json:"mimeType,omitempty"`
	Audience    []string `json:"audience,omitempty"`
	Priority    *float64 `json:"priority,omitempty"`
	Icons       []Icon   `json:"icons,omitempty"`
	// Other: see Server.Other.
	Other     map[string]any `json:"-"`
	otherText json.RawMessage
}

// Template is one resource template.
type Template struct {
	URITemplate string   `json:"uriTemplate"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	MIMEType    string   `json:"mimeType,omitempty"`
	Audience    []string `json:"audience,omitempty"`
	Priority    *float64 `json:"priority,omitempty"`
	Icons       []Icon   `json:"icons,omitempty"`
	// Other: see Server.Other.
	Other     map[string]any `json:"-"`
	otherText json.RawMessage
}

// Lister is what Fetch needs of a session: what the server said when it
// began, and its lists, page by page (*session.Session has them).
type Lister interface {
	InitializeResult() *mcp.InitializeResult
	ServerCapabilities() *mcp.ServerCapabilities
	ListTools(context.Context, session.Pages) ([]*mcp.Tool, string, error)
	ListPrompts(context.Context, session.Pages) ([]*mcp.Prompt, string, error)
	ListResources(context.Context, session.Pages) ([]*mcp.Resource, string, error)
	ListResourceTemplates(context.Context, session.Pages) ([]*mcp.ResourceTemplate, string, error)
	// Declared are the client capabilities the session declared.
	Declared() []string
}

// Fetch reads the catalog of the server behind s: every page of each list
// the server declares, as List reads them, every member as the server sent
// it when s keeps them (a Sender). A list that fails fails the
// fetch: a catalog with a list missing would read as everything in it
// removed.
func Fetch(ctx context.Context, s Lister) (*Catalog, error) {
	if s.InitializeResult() == nil {
		return nil, fmt.Errorf("the session has not begun")
	}
	l, err := List(ctx, s, Options{})
	if err != nil {
		return nil, err
	}
	if l.Failed != nil {
		return nil, l.Failed
	}
	return FromListing(l)
}

// FromListing is the catalog of l: every member the server sent (l.Sent),
// but for what the file leaves out (see the package comment).
func FromListing(l *Listing) (*Catalog, error) {
	init := l.Info
	if init == nil {
		init = &mcp.InitializeResult{}
	}
	c := &Catalog{Format: Format, ProtocolVersion: init.ProtocolVersion, Instructions: init.Instructions, ClientCapabilities: l.Declared}
	if len(c.ClientCapabilities) == 0 {
		c.ClientCapabilities = nil
	}
	var err error
	if si := init.ServerInfo; si != nil {
		c.Server = Server{Name: si.Name, Title: si.Title, Description: si.Description, Version: si.Version, WebsiteURL: si.WebsiteURL, Icons: icons(si.Icons)}
		if c.Server.Other, err = others(l.Sent.ServerInfo, Server{}); err != nil {
			return nil, fmt.Errorf("serverInfo: %w", err)
		}
	}
	if c.Capabilities, err = l.Capabilities(); err != nil {
		return nil, fmt.Errorf("capabilities: %w", err)
	}
	for _, t := range l.Tools {
		ct, err := tool(t, l.Sent.Tools[t.Name])
		if err != nil {
			return nil, err
		}
		c.Tools = append(c.Tools, ct)
	}
	for _, p := range l.Prompts {
		cp := prompt(p)
		if cp.Other, err = others(l.Sent.Prompts[p.Name], Prompt{}); err != nil {
			return nil, fmt.Errorf("prompt %q: %w", p.Name, err)
		}
		c.Prompts = append(c.Prompts, cp)
	}
	for _, r := range l.Resources {
		cr := resource(r)
		if cr.Other, err = others(l.Sent.Resources[r.URI], Resource{}, leftOut()...); err != nil {
			return nil, fmt.Errorf("resource %q: %w", r.URI, err)
		}
		c.Resources = append(c.Resources, cr)
	}
	for _, t := range l.Templates {
		ct := template(t)
		if ct.Other, err = others(l.Sent.Templates[t.URITemplate], Template{}, leftOut()...); err != nil {
			return nil, fmt.Errorf("resource template %q: %w", t.URITemplate, err)
		}
		c.Templates = append(c.Templates, ct)
	}
	c.Sort()
	return c, nil
}

// leftOut are the members of a listed resource or template the file does
// not keep as sent: its size (it changes with its content), and its
// annotations, kept as audience and priority (their lastModified is a
// time).
func leftOut() []string { return []string{"size", "annotations"} }

// others are the members of the item sent (nil when not read as sent)
// that the catalog's type of it (a Tool{}, a Server{}, …) has no field for,
// but for those skipped, as plain JSON; nil when none.
func others(sent json.RawMessage, of any, skip ...string) (map[string]any, error) {
	if len(sent) == 0 {
		return nil, nil
	}
	v, err := plainJSON(sent)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	known := jsonNames(of)
	var out map[string]any
	for k, v := range m {
		if known[k] || slices.Contains(skip, k) {
			continue
		}
		if foldsToKnown(k, known) {
			// The go-sdk read it into the field of that name (encoding/json
			// matches names in any letter case): kept there, not twice, so
			// that the file reads back (a member in other letter case is
			// refused there, as one that would be read into the field).
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out, nil
}

// Sort puts the lists in the file's order: tools, prompts and prompt
// arguments by name, resources by URI, templates by URI template (then
// by name when those are equal).
func (c *Catalog) Sort() {
	slices.SortStableFunc(c.Tools, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortStableFunc(c.Prompts, func(a, b Prompt) int { return cmp.Compare(a.Name, b.Name) })
	for _, p := range c.Prompts {
		slices.SortStableFunc(p.Arguments, func(a, b Argument) int { return cmp.Compare(a.Name, b.Name) })
	}
	slices.SortStableFunc(c.Resources, func(a, b Resource) int {
		return cmp.Or(cmp.Compare(a.URI, b.URI), cmp.Compare(a.Name, b.Name))
	})
	slices.SortStableFunc(c.Templates, func(a, b Template) int {
		return cmp.Or(cmp.Compare(a.URITemplate, b.URITemplate), cmp.Compare(a.Name, b.Name))
	})
}

// tool is the file form of the listed tool t; sent is the tool as the
// server sent it (nil when not read so): its execution and the members
// the go-sdk's Tool does not know.
func tool(t *mcp.Tool, sent json.RawMessage) (Tool, error) {
	in, err := plain(t.InputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: inputSchema: %w", t.Name, err)
	}
	out, err := plain(t.OutputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: outputSchema: %w", t.Name, err)
	}
	ct := Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: in, OutputSchema: out, Icons: icons(t.Icons)}
	if a := t.Annotations; a != nil {
		ct.Annotations = &ToolAnnotations{Title: a.Title, ReadOnlyHint: &a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
			IdempotentHint: &a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	}
	if ct.Other, err = others(sent, Tool{}); err != nil {
		return Tool{}, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if sent != nil {
		var m map[string]any
		if v, err := plainJSON(sent); err == nil {
			m, _ = v.(map[string]any)
		}
		ct.Execution = m["execution"]
	}
	return ct, nil
}

func prompt(p *mcp.Prompt) Prompt {
	cp := Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Icons: icons(p.Icons)}
	for _, a := range p.Arguments {
		if a != nil {
			cp.Arguments = append(cp.Arguments, Argument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
	}
	return cp
}

func resource(r *mcp.Resource) Resource {
	cr := Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Icons: icons(r.Icons)}
	cr.Audience, cr.Priority = annotations(r.Annotations)
	return cr
}

func template(t *mcp.ResourceTemplate) Template {
	ct := Template{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType, Icons: icons(t.Icons)}
	ct.Audience, ct.Priority = annotations(t.Annotations)
	return ct
}

// annotations keeps a resource's audience and priority; its lastModified
// is a time, left out.
func annotations(a *mcp.Annotations) ([]string, *float64) {
	if a == nil {
		return nil, nil
	}
	var audience []string
	for _, r := range a.Audience {
		audience = append(audience, string(r))
	}
	var priority *float64
	if a.Priority != 0 {
		priority = &a.Priority
	}
	return audience, priority
}

func icons(in []mcp.Icon) []Icon {
	var out []Icon
	for _, i := range in {
		out = append(out, Icon{Src: i.Source, MIMEType: i.MIMEType, Sizes: i.Sizes, Theme: string(i.Theme)})
	}
	return out
}

// plain is v as encoding/json reads it back (objects, arrays, strings,
// json.Number, booleans, nil): one form for a schema whichever way it was
// decoded.
func plain(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return plainJSON(b)
}

// plainJSON is the JSON text b as plain reads it back.
func plainJSON(b []byte) (any, error) {
	if string(b) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

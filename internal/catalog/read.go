package catalog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Named is one server a catalog file holds: its listing, and the name it
// goes by (the server's own name, else the one the file gives it, else
// the file's).
type Named struct {
	Name    string
	Listing *Listing
	// Saved is the catalog as `catalog save` wrote it, when the file is
	// one (it has a catalogFormat); nil for the other forms.
	Saved *Catalog
	// At is where the catalog is in the file: no step for the whole file,
	// "catalog", or servers[i].catalog. The listing's lists are the
	// file's, item for item: a path into the listing
	// ($.tools[0].description) is the same path from there.
	At []jsonscan.Step
}

// The members of a listing document, one of which a file must have to be
// one.
var documentMembers = []string{"server", "instructions", "tools", "prompts", "resources", "resourceTemplates"}

// fileMembers are the members a catalog file's forms give a meaning to.
var fileMembers = append(slices.Clip(documentMembers), "catalogFormat", "protocolVersion", "capabilities", "clientCapabilities", "catalog", "servers")

// ReadFile reads the servers of a catalog file, the one reader of every
// catalog file (`catalog diff`, `scan --catalog`): a catalog `catalog
// save` wrote (it has a catalogFormat, and is read strictly: no
// member the format does not have), a listing document (the members of a
// saved catalog that say what the server offers: server, instructions,
// tools, prompts, resources, resourceTemplates; its lists read as the
// go-sdk reads a server's, keys matched as written, other members left
// alone), or the scan corpus's forms {"catalog": {…}} and {"servers":
// [{"name": …, "catalog": {…}}, …]}, each catalog in them either of the
// first two. Whatever the form, a key twice in one object, a top-level
// member in other letter case than the format's, and anything after the
// JSON value are refused, and so is a tool, prompt, prompt argument,
// resource or resource template listed twice (by name, URI or URI
// template); every error begins with name and says where (a line and
// column, or a path). A caller reads at most MaxFileSize bytes.
func ReadFile(name string, data []byte) ([]Named, error) {
	out, err := readFile(name, data, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// readFile reads the servers of a catalog file; savedOnly reads of a
// saved catalog only its Catalog (no Listing), which is all ReadSaved
// wants: the file is then not held a third time in the go-sdk's types.
func readFile(name string, data []byte, savedOnly bool) ([]Named, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("larger than %d MiB", MaxFileSize>>20)
	}
	if err := oneValue(data); err != nil {
		return nil, err
	}
	if err := strictjson.CheckRepeats(data); err != nil {
		return nil, err
	}
	top, err := members(data)
	if err != nil {
		return nil, err
	}
	named, err := readForm(name, data, top, savedOnly)
	if err != nil {
		return nil, err
	}
	if err := unique(data, named); err != nil {
		return nil, err
	}
	return named, nil
}

// readForm reads a catalog file (data, its top-level members top) by its
// form: {"catalog": …}, {"servers": […]}, or one catalog, saved or a
// listing document.
func readForm(name string, data []byte, top map[string]json.RawMessage, savedOnly bool) ([]Named, error) {
	if raw, ok := top["catalog"]; ok {
		n, err := readOne(name, raw, savedOnly)
		if err != nil {
			return nil, fmt.Errorf("\"catalog\" is not a catalog: %w", err)
		}
		n.At = []jsonscan.Step{jsonscan.KeyStep("catalog")}
		return []Named{n}, nil
	}
	if raw, ok := top["servers"]; ok {
		return readServers(raw, savedOnly)
	}
	_, saved := top["catalogFormat"]
	if !saved && !hasAny(top, documentMembers) {
		return nil, fmt.Errorf("no catalog: none of %s", strings.Join(documentMembers, ", "))
	}
	n, err := readOne(name, data, savedOnly)
	if err != nil {
		return nil, err
	}
	return []Named{n}, nil
}

// ReadSaved reads a catalog file that `catalog save` wrote (with
// ReadFile): any other form is refused.
func ReadSaved(name string, data []byte) (*Catalog, error) {
	named, err := readFile(name, data, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(named) != 1 || named[0].Saved == nil {
		return nil, fmt.Errorf("%s: no catalogFormat: not a catalog written by mcp-tester catalog save", name)
	}
	return named[0].Saved, nil
}

// readServers reads the corpus's list of named catalogs.
func readServers(raw json.RawMessage, savedOnly bool) ([]Named, error) {
	var servers []struct {
		Name    string          `json:"name"`
		Catalog json.RawMessage `json:"catalog"`
	}
	if err := strictjson.DecodeLikeSDK(raw, &servers); err != nil {
		return nil, fmt.Errorf("\"servers\" is not a list of named catalogs: %w", err)
	}
	var out []Named
	for i, s := range servers {
		if s.Name == "" || len(s.Catalog) == 0 || string(s.Catalog) == "null" {
			return nil, fmt.Errorf("servers[%d] needs a name and a catalog", i)
		}
		n, err := readOne(s.Name, s.Catalog, savedOnly)
		if err != nil {
			return nil, fmt.Errorf("servers[%d].catalog: %w", i, err)
		}
		n.Name = s.Name // the name the file gives it, whatever the server's
		n.At = []jsonscan.Step{jsonscan.KeyStep("servers"), jsonscan.ItemStep(i), jsonscan.KeyStep("catalog")}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("\"servers\" is empty")
	}
	return out, nil
}

// document is a listing as a file writes it: the members of a saved
// catalog, the lists in MCP's own form.
type document struct {
	Server             *mcp.Implementation     `json:"server"`
	ProtocolVersion    string                  `json:"protocolVersion"`
	Capabilities       *mcp.ServerCapabilities `json:"capabilities"`
	ClientCapabilities []string                `json:"clientCapabilities"`
	Instructions       string                  `json:"instructions"`
	Tools              []json.RawMessage       `json:"tools"` // read one at a time (fileTools)
	Prompts            []*mcp.Prompt           `json:"prompts"`
	Resources          []*mcp.Resource         `json:"resources"`
	Templates          []*mcp.ResourceTemplate `json:"resourceTemplates"`
}

// readOne reads one catalog: a saved one or a listing document (of a
// saved one only its Catalog when savedOnly).
func readOne(name string, data []byte, savedOnly bool) (Named, error) {
	top, err := members(data)
	if err != nil {
		return Named{}, err
	}
	var saved *Catalog
	if _, ok := top["catalogFormat"]; ok {
		if saved, err = parseSaved(data); err != nil {
			return Named{}, err
		}
		if savedOnly {
			return Named{Name: cmp.Or(saved.Server.Name, name), Saved: saved}, nil
		}
	}
	var doc document
	if err := strictjson.DecodeLikeSDK(data, &doc); err != nil {
		return Named{}, err
	}
	tools, err := fileTools(doc.Tools)
	if err != nil {
		return Named{}, err
	}
	l := &Listing{Info: &mcp.InitializeResult{ServerInfo: doc.Server, ProtocolVersion: doc.ProtocolVersion,
		Capabilities: doc.Capabilities, Instructions: doc.Instructions},
		Tools: tools, Prompts: doc.Prompts, Resources: doc.Resources, Templates: doc.Templates, Declared: doc.ClientCapabilities,
		Sent: Sent{Capabilities: top["capabilities"], ServerInfo: top["server"]}}
	// Each item as the file holds it, every member, as a server's listing
	// keeps what the server sent: a member MCP does not define is read
	// too (scan), and kept (catalog save).
	l.Sent.Tools = sentItems(doc.Tools, tools, func(t *mcp.Tool) string { return t.Name })
	if l.Sent.Prompts, err = sentList(top["prompts"], l.Prompts, func(p *mcp.Prompt) string { return p.Name }); err != nil {
		return Named{}, err
	}
	if l.Sent.Resources, err = sentList(top["resources"], l.Resources, func(r *mcp.Resource) string { return r.URI }); err != nil {
		return Named{}, err
	}
	if l.Sent.Templates, err = sentList(top["resourceTemplates"], l.Templates, func(t *mcp.ResourceTemplate) string { return t.URITemplate }); err != nil {
		return Named{}, err
	}
	for _, p := range l.Prompts {
		if p != nil {
			p.Meta = fitted(p.Meta)
		}
	}
	for _, r := range l.Resources {
		if r != nil {
			r.Meta = fitted(r.Meta)
		}
	}
	for _, t := range l.Templates {
		if t != nil {
			t.Meta = fitted(t.Meta)
		}
	}
	if saved != nil {
		savedAnnotations(l, saved)
	}
	if doc.Server != nil && doc.Server.Name != "" {
		name = doc.Server.Name
	}
	return Named{Name: name, Listing: l, Saved: saved}, nil
}

// sentList is sentItems of a list as its file holds it (raw), its items
// read already (items).
func sentList[T any](raw json.RawMessage, items []*T, key func(*T) string) (map[string]json.RawMessage, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, err
	}
	return sentItems(raws, items, key), nil
}

// sentItems is each item of items (read from raws[i]) as raws holds it,
// by its key.
func sentItems[T any](raws []json.RawMessage, items []*T, key func(*T) string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for i, it := range items {
		if it == nil || i >= len(raws) {
			continue
		}
		if out == nil {
			out = make(map[string]json.RawMessage, len(items))
		}
		out[key(it)] = raws[i]
	}
	return out
}

// fileTools reads a file's tools one at a time, each one's input and
// output schemas kept as their text (a json.RawMessage): as trees of maps,
// the schemas of a large catalog held about ten times the file's size,
// while a reader (scan, a served catalog) needs one tool's tree at a time.
func fileTools(raws []json.RawMessage) ([]*mcp.Tool, error) {
	if raws == nil {
		return nil, nil
	}
	tools := make([]*mcp.Tool, len(raws))
	for i, raw := range raws {
		if string(raw) == "null" {
			continue
		}
		// A non-nil pointer in an interface is decoded into: the schemas
		// are read as their text, never as trees.
		var in, out json.RawMessage
		t := &mcp.Tool{InputSchema: &in, OutputSchema: &out}
		if err := strictjson.DecodeLikeSDK(raw, t); err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		t.InputSchema, t.OutputSchema = schemaText(in), schemaText(out)
		t.Meta = fitted(t.Meta)
		tools[i] = t
	}
	return tools, nil
}

// fitted is m in a map of its size: the go-sdk's decoder makes each
// object it reads into a map[string]any with room for many members (4.75
// kB for one), which a catalog of many items, each with a small _meta,
// would hold as many times.
func fitted(m mcp.Meta) mcp.Meta {
	if m == nil {
		return nil
	}
	out := make(mcp.Meta, len(m))
	maps.Copy(out, m)
	return out
}

// schemaText is a schema's text as a tool's schema (nil when absent or
// null).
func schemaText(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// savedAnnotations gives the resources and templates of l the audience
// and priority a saved catalog writes as their own members (a saved
// catalog has no annotations member: l has none of its own).
func savedAnnotations(l *Listing, c *Catalog) {
	type key struct {
		template  bool
		uri, name string
	}
	saved := map[key]*mcp.Annotations{}
	for _, r := range c.Resources {
		saved[key{false, r.URI, r.Name}] = mcpAnnotations(r.Audience, r.Priority)
	}
	for _, t := range c.Templates {
		saved[key{true, t.URITemplate, t.Name}] = mcpAnnotations(t.Audience, t.Priority)
	}
	for _, r := range l.Resources {
		if r != nil {
			r.Annotations = saved[key{false, r.URI, r.Name}]
		}
	}
	for _, t := range l.Templates {
		if t != nil {
			t.Annotations = saved[key{true, t.URITemplate, t.Name}]
		}
	}
}

// mcpAnnotations are a resource's annotations as MCP writes them; nil
// when it has none.
func mcpAnnotations(audience []string, priority *float64) *mcp.Annotations {
	if len(audience) == 0 && priority == nil {
		return nil
	}
	a := &mcp.Annotations{}
	for _, r := range audience {
		a.Audience = append(a.Audience, mcp.Role(r))
	}
	if priority != nil {
		a.Priority = *priority
	}
	return a
}

// members are the members of the JSON object data, refusing one whose
// name differs only in letter case from a member of a catalog file (it
// would be left unread).
func members(data []byte) (map[string]json.RawMessage, error) {
	var refs map[string]rawRef
	if err := json.Unmarshal(data, &refs); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	top := make(map[string]json.RawMessage, len(refs))
	for k, v := range refs {
		top[k] = json.RawMessage(v)
	}
	for k := range top {
		for _, want := range fileMembers {
			if k != want && strings.EqualFold(k, want) {
				return nil, fmt.Errorf("%s: not a member of a catalog file (%q is)", Path("").Key(k), want)
			}
		}
	}
	return top, nil
}

// rawRef is a JSON value as the part of the text it is in, not a copy:
// json.Unmarshal hands UnmarshalJSON a part of the text it was given,
// which the catalog readers keep and never change while they read it.
type rawRef []byte

// UnmarshalJSON keeps b, the value's part of the text.
func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

func hasAny(top map[string]json.RawMessage, names []string) bool {
	for _, n := range names {
		if _, ok := top[n]; ok {
			return true
		}
	}
	return false
}

// oneValue refuses data that is not one JSON value, saying where: the
// line and column of a syntax error, or of what comes after the value.
func oneValue(data []byte) error {
	if json.Valid(data) {
		return nil // one value: json.Valid refuses anything after it
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %w", position(data, se.Offset-1), err)
		}
		if err == io.EOF {
			return errors.New("empty: no JSON value")
		}
		return fmt.Errorf("%s: %w", position(data, int64(len(data))), err)
	}
	off := dec.InputOffset()
	rest := bytes.TrimLeft(data[off:], " \t\r\n")
	if len(rest) > 0 {
		return fmt.Errorf("%s: text after the JSON value", position(data, int64(len(data)-len(rest))))
	}
	return nil
}

// position is "line L, column C" of the byte at offset in data (from 1;
// the column in bytes).
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

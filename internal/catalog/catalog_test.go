package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lister is a session that says what it was told to.
type lister struct {
	init      *mcp.InitializeResult
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	fail      error
	// templatesFail is the answer to resources/templates/list.
	templatesFail error
	// sentCaps and sent are what the server sent as it sent it: its
	// capabilities, and items by "method key".
	sentCaps json.RawMessage
	sent     map[string]json.RawMessage
}

// page hands items to p.Page one item a page, as a session does.
func page[T any](p session.Pages, items []T) ([]T, string, error) {
	for _, it := range items {
		if p.Page != nil {
			if err := p.Page([]T{it}, 1); err != nil {
				return nil, "", err
			}
		}
	}
	return items, "", nil
}

func (l *lister) InitializeResult() *mcp.InitializeResult { return l.init }
func (l *lister) Declared() []string                      { return []string{"elicitation (form, url)", "sampling", "roots"} }
func (l *lister) RawCapabilities() json.RawMessage        { return l.sentCaps }
func (l *lister) RawServerInfo() json.RawMessage          { return nil }
func (l *lister) Listed(method, key string) json.RawMessage {
	return l.sent[method+" "+key]
}
func (l *lister) ServerCapabilities() *mcp.ServerCapabilities { return l.init.Capabilities }
func (l *lister) ListTools(_ context.Context, p session.Pages) ([]*mcp.Tool, string, error) {
	return page(p, l.tools)
}
func (l *lister) ListPrompts(_ context.Context, p session.Pages) ([]*mcp.Prompt, string, error) {
	if l.fail != nil {
		return nil, "", l.fail
	}
	return page(p, l.prompts)
}
func (l *lister) ListResources(_ context.Context, p session.Pages) ([]*mcp.Resource, string, error) {
	return page(p, l.resources)
}
func (l *lister) ListResourceTemplates(_ context.Context, p session.Pages) ([]*mcp.ResourceTemplate, string, error) {
	if l.templatesFail != nil {
		return nil, "", l.templatesFail
	}
	return page(p, l.templates)
}

func sampleLister() *lister {
	yes := true
	return &lister{
		init: &mcp.InitializeResult{ProtocolVersion: "2026-07-28", Instructions: "Be careful.\x1b[2J",
			ServerInfo:   &mcp.Implementation{Name: "s", Version: "1"},
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}, Resources: &mcp.ResourceCapabilities{Subscribe: true}}},
		tools: []*mcp.Tool{
			{Name: "zeta", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "integer", "maximum": 1.5}, "a": map[string]any{"type": "string"}}}},
			{Name: "alpha", Description: "first", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}},
		},
		prompts:   []*mcp.Prompt{{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "y"}, {Name: "x", Required: true}}}},
		resources: []*mcp.Resource{{URI: "file:///b", Name: "b", Size: 99, Annotations: &mcp.Annotations{LastModified: "2026-01-01T00:00:00Z", Priority: 0.5}}, {URI: "file:///a", Name: "a"}},
		templates: []*mcp.ResourceTemplate{{URITemplate: "x://{id}", Name: "x"}},
	}
}

// A catalog is fetched whole, sorted, without volatile values, and reads
// back as written.
func TestFetchEncodeParse(t *testing.T) {
	c, err := Fetch(context.Background(), sampleLister())
	if err != nil {
		t.Fatal(err)
	}
	data, lines, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, absent := range []string{"lastModified", "2026-01-01", `"size"`, "\x1b"} {
		if strings.Contains(text, absent) {
			t.Errorf("the file holds %q:\n%s", absent, text)
		}
	}
	if !strings.Contains(text, `\u001b[2J`) {
		t.Errorf("the escape sequence is not written as an escape:\n%s", text)
	}
	if strings.Index(text, `"alpha"`) > strings.Index(text, `"zeta"`) || strings.Index(text, `"file:///a"`) > strings.Index(text, `"file:///b"`) {
		t.Errorf("tools or resources out of order:\n%s", text)
	}
	if strings.Index(text, `"name": "x"`) > strings.Index(text, `"name": "y"`) {
		t.Errorf("prompt arguments out of order:\n%s", text)
	}
	for _, p := range []Path{"tools.zeta.inputSchema.properties.b.maximum", `resources["file:///b"]`, "prompts.p.arguments.x", `resourceTemplates["x://{id}"]`} {
		n := lines[p]
		if n == 0 {
			t.Errorf("no line for %s", p)
			continue
		}
		if line := strings.Split(text, "\n")[n-1]; !strings.Contains(line, strings.Trim(string(p.Segments()[len(p.Segments())-1]), `"`)) && !strings.HasSuffix(line, "{") {
			t.Errorf("line %d of %s is %q", n, p, line)
		}
	}
	if got := lines.Line("tools.zeta.inputSchema.properties.nope"); got != lines["tools.zeta.inputSchema.properties"] {
		t.Errorf("a path not in the file is shown at %d, want its nearest parent's line", got)
	}
	if ok, err := c.Matches(data); !ok || err != nil {
		t.Errorf("the catalog does not match its own file: %v", err)
	}
	changed := bytes.Replace(data, []byte(`"alpha"`), []byte(`"alphA"`), 1)
	for _, other := range [][]byte{data[:len(data)-1], append(slices.Clip(data), ' '), changed, bytes.ReplaceAll(data, []byte("  "), []byte(" "))} {
		if ok, _ := c.Matches(other); ok {
			t.Errorf("the catalog matches another file:\n%s", other)
		}
	}
	if lines2, err := c.LinesOf([]Path{"tools.zeta.inputSchema.properties.b.maximum", "prompts.p.arguments.nope"}); err != nil ||
		lines2.Line("tools.zeta.inputSchema.properties.b.maximum") != lines.Line("tools.zeta.inputSchema.properties.b.maximum") ||
		lines2.Line("prompts.p.arguments.nope") != lines.Line("prompts.p.arguments.nope") || len(lines2) >= len(lines) {
		t.Errorf("LinesOf: %v %v", lines2, err)
	}
	back, err := parseSaved(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	again, _, err := back.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("read and written again, the file changed:\n%s\n---\n%s", data, again)
	}
}

// A list that fails fails the fetch: a catalog without it would read as
// every prompt removed.
func TestFetchFailsOnAFailedList(t *testing.T) {
	l := sampleLister()
	l.fail = context.DeadlineExceeded
	if _, err := Fetch(context.Background(), l); err == nil {
		t.Fatal("a failed prompts/list gave a catalog")
	}
}

func TestPathKey(t *testing.T) {
	for _, tc := range []struct {
		p    Path
		want string
		segs []string
	}{
		{Path("tools").Key("deploy").Key("inputSchema"), "tools.deploy.inputSchema", []string{"tools", "deploy", "inputSchema"}},
		{Path("resources").Key("file:///a.b"), `resources["file:///a.b"]`, []string{"resources", "file:///a.b"}},
		{Path("tools").Key(`a"].b[`).Index(2), `tools["a\"].b["][2]`, []string{"tools", `a"].b[`, "[2]"}},
	} {
		if string(tc.p) != tc.want {
			t.Errorf("path %q, want %q", tc.p, tc.want)
		}
		if got := tc.p.Segments(); strings.Join(got, "|") != strings.Join(tc.segs, "|") {
			t.Errorf("%s: segments %q, want %q", tc.p, got, tc.segs)
		}
	}
}

// FuzzParse reads any bytes as a catalog file: no panic, and what it
// accepts writes back in a form it reads the same.
func FuzzParse(f *testing.F) {
	c, _ := Fetch(context.Background(), sampleLister())
	data, _, _ := c.Encode()
	f.Add(data)
	f.Add([]byte(`{"catalogFormat":1,"tools":[{"name":"a","inputSchema":{"type":"object"}}],"Tools":[]}`))
	f.Add([]byte(`{"catalogFormat":1,"tools":[],"tools":[]}`))
	f.Add([]byte(`{"catalogFormat":2}`))
	f.Add([]byte(`{"catalogFormat":1,"tools":[{"name":"a","inputSchema":{"properties":{"x":{"maximum":1e400}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseSaved(data)
		if err != nil {
			return
		}
		out, _, err := c.Encode()
		if err != nil {
			return
		}
		back, err := parseSaved(out)
		if err != nil {
			t.Fatalf("the canonical form of an accepted file is refused: %v\n%s", err, out)
		}
		again, _, _ := back.Encode()
		if !bytes.Equal(out, again) {
			t.Fatalf("the canonical form is not stable:\n%s\n---\n%s", out, again)
		}
	})
}

// A catalog keeps every capability and every member of an item the server
// sent, those the go-sdk's types do not know too (tasks, a member of a
// known capability, experimental, extensions, a tool's _meta or a member of
// a later protocol), and reads them back as written; a member that differs
// from one of the file's only in letter case is refused.
func TestFetchKeepsWhatTheServerSent(t *testing.T) {
	l := sampleLister()
	l.sentCaps = json.RawMessage(`{"tools":{"listChanged":true,"later":1},"prompts":{},"resources":{"subscribe":true},
		"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}},"experimental":{"x":{}},"extensions":{"io.example/y":{}}}`)
	l.sent = map[string]json.RawMessage{
		"tools/list zeta":          json.RawMessage(`{"name":"zeta","inputSchema":{"type":"object"},"_meta":{"ui/resourceUri":"ui://z"},"later":[1.5],"execution":{"taskSupport":"optional"}}`),
		"prompts/list p":           json.RawMessage(`{"name":"p","_meta":{"k":"v"}}`),
		"resources/list file:///b": json.RawMessage(`{"uri":"file:///b","name":"b","size":99,"annotations":{"lastModified":"2026-01-01T00:00:00Z"},"later":true}`),
	}
	c, err := Fetch(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{`"tasks": {`, `"requests": {`, `"call": {}`, `"later": 1`, `"experimental": {`, `"io.example/y": {}`,
		`"ui/resourceUri": "ui://z"`, `"later": [`, `"k": "v"`, `"later": true`, `"taskSupport": "optional"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lacks %s:\n%s", want, text)
		}
	}
	for _, absent := range []string{"lastModified", `"size"`} {
		if strings.Contains(text, absent) {
			t.Errorf("the file holds %q:\n%s", absent, text)
		}
	}
	back, err := parseSaved(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if again, _, _ := back.Encode(); !bytes.Equal(again, data) {
		t.Errorf("read and written again, the file changed:\n%s\n---\n%s", data, again)
	}
	cased := strings.Replace(text, `"name": "zeta"`, `"name": "zeta", "Description": "d"`, 1)
	if _, err := parseSaved([]byte(cased)); err == nil || !strings.Contains(err.Error(), `"description" is`) {
		t.Errorf("a member in other letter case: %v", err)
	}
}

// A member a server sent in other letter case than the protocol's
// ("Annotations") was read by the go-sdk into that field: the file keeps
// it there, not a second time as sent, so that the file reads back (it
// was refused, which made a server's own baseline unusable).
func TestSentInOtherCaseReadsBack(t *testing.T) {
	l := sampleLister()
	l.sent = map[string]json.RawMessage{
		"tools/list zeta": json.RawMessage(`{"name":"zeta","inputSchema":{"type":"object"},"Annotations":{"readOnlyHint":true},"DESCRIPTION":"x"}`),
	}
	c, err := Fetch(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	data, _, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"Annotations"`) || strings.Contains(string(data), `"DESCRIPTION"`) {
		t.Errorf("the file keeps a member in other letter case:\n%s", data)
	}
	if _, err := parseSaved(data); err != nil {
		t.Errorf("the file saved does not read back: %v\n%s", err, data)
	}
}

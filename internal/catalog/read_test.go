package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A catalog file is read in each of its forms; what is not a catalog, or
// says a key twice, is refused with the file's name and where.
func TestReadFile(t *testing.T) {
	good := []struct {
		doc   string
		names []string
	}{
		{`{"server": {"name": "s"}, "tools": [{"name": "a", "inputSchema": {"type": "object"}}], "extra": 1}`, []string{"s"}},
		{`{"tools": []}`, []string{"file.json"}},
		{`{"catalog": {"instructions": "hi"}}`, []string{"file.json"}},
		{`{"servers": [{"name": "a", "catalog": {}}, {"name": "b", "catalog": {"tools": []}}]}`, []string{"a", "b"}},
		{`{"servers": [{"name": "a", "catalog": {"server": {"name": "own"}}}]}`, []string{"a"}},
		{`{"catalogFormat": 1, "server": {"name": "saved"}, "tools": []}`, []string{"saved"}},
		{`{"catalog": {"catalogFormat": 1, "server": {"name": "inner"}, "tools": []}}`, []string{"inner"}},
	}
	for _, c := range good {
		servers, err := catalog.ReadFile("file.json", []byte(c.doc))
		if err != nil {
			t.Errorf("%s: %v", c.doc, err)
			continue
		}
		var names []string
		for _, s := range servers {
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != strings.Join(c.names, ",") {
			t.Errorf("%s: servers %v, want %v", c.doc, names, c.names)
		}
	}
	bad := map[string]string{
		`[1]`:                          "not a JSON object",
		`{"name": "x"}`:                "no catalog",
		`{"servers": []}`:              `"servers" is empty`,
		`{"servers": [{"name": "a"}]}`: "needs a name and a catalog",
		`{"catalog": 3}`:               `"catalog" is not a catalog`,
		`{"tools": "x"}`:               "cannot unmarshal",
		"":                             "no JSON value",
		// Anything after the value, with where it begins.
		"{\"tools\": []}\n{\"tools\": []}": "line 2, column 1: text after the JSON value",
		"{\"tools\": []} x":                "line 1, column 15: text after the JSON value",
		"{\"tools\": [}":                   "line 1, column 12: invalid character",
		// A member in other letter case would be left unread.
		`{"server": {"name": "s"}, "Tools": [{"name": "x"}]}`: `Tools: not a member of a catalog file ("tools" is)`,
		// A file that says it is a saved catalog is one, strictly.
		`{"catalogFormat": 1, "tools": [], "extra": 1}`:                 "extra: not a member of a catalog",
		`{"catalogFormat": 2, "tools": []}`:                             "catalogFormat 2",
		`{"servers": [{"name": "a", "catalog": {"catalogFormat": 9}}]}`: "servers[0].catalog: catalogFormat 9",
	}
	for doc, want := range bad {
		_, err := catalog.ReadFile("file.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "file.json: ") {
			t.Errorf("%q: %v, want an error naming the file and %q", doc, err, want)
		}
	}
	_, err := catalog.ReadFile("file.json", []byte(`{"tools": [{"name": "x", "name": "y"}]}`))
	if !errors.Is(err, strictjson.ErrAmbiguous) || !strings.Contains(err.Error(), "$.tools[0]") {
		t.Errorf("a key twice: %v, want the object's path", err)
	}
}

// A saved catalog reads as the listing it was made of: what catalog save
// writes of a server, scan --catalog reads back, its resources'
// annotations, instructions and client capabilities included.
func TestReadFileOfASavedCatalog(t *testing.T) {
	l := &catalog.Listing{
		Info: &mcp.InitializeResult{ProtocolVersion: "2026-07-28", Instructions: "Be brief.",
			ServerInfo: &mcp.Implementation{Name: "notes", Version: "2.0"}, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}},
		Tools:     []*mcp.Tool{{Name: "b", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, {Name: "a", Description: "A.", InputSchema: map[string]any{"type": "object"}}},
		Resources: []*mcp.Resource{{URI: "file:///n", Name: "n", Annotations: &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: 0.5}}},
		Declared:  []string{"elicitation"},
	}
	c, err := catalog.FromListing(l)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	named, err := catalog.ReadFile("saved.json", buf.Bytes())
	if err != nil || len(named) != 1 || named[0].Saved == nil {
		t.Fatalf("%v, %+v", err, named)
	}
	got := named[0]
	if got.Name != "notes" || got.Listing.Instructions() != "Be brief." || got.Listing.Info.ProtocolVersion != "2026-07-28" ||
		strings.Join(got.Listing.Declared, ",") != "elicitation" || got.Listing.Info.Capabilities == nil || got.Listing.Info.Capabilities.Tools == nil {
		t.Errorf("server: %+v %+v", got, got.Listing.Info)
	}
	if len(got.Listing.Tools) != 2 || got.Listing.Tools[0].Name != "a" || got.Listing.Tools[1].Annotations == nil || !got.Listing.Tools[1].Annotations.ReadOnlyHint {
		t.Errorf("tools (in the file's order): %+v", got.Listing.Tools)
	}
	if r := got.Listing.Resources; len(r) != 1 || r[0].Annotations == nil || r[0].Annotations.Priority != 0.5 || len(r[0].Annotations.Audience) != 1 {
		t.Errorf("resources: %+v", r)
	}
}

// Every scan corpus file reads as a catalog file.
func TestCorpusFilesAreCatalogFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "checks", "scan", "testdata", "corpus", "*.json"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if _, err := catalog.ReadFile(f, b); err != nil {
			t.Error(err)
		}
	}
}

func FuzzReadFile(f *testing.F) {
	for _, s := range []string{`{"tools": []}`, `{"catalog": {"tools": [{"name": "a"}]}}`, `{"servers": [{"name": "a", "catalog": {}}]}`,
		`{"server": {"name": "x"}, "instructions": "i", "prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}`, `[]`, `{"a":1,"a":2}`,
		`{"catalogFormat": 1, "server": {"name": "s"}, "resources": [{"uri": "u", "name": "n", "audience": ["user"], "priority": 1}]}`, `{"tools": []} 1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		named, err := catalog.ReadFile("f", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: ") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if len(named) == 0 {
			t.Fatal("no server and no error")
		}
		for _, n := range named {
			if n.Name == "" || n.Listing == nil {
				t.Fatalf("a server without a name or listing: %+v", n)
			}
		}
	})
}

// A catalog file of many tools, each with a small _meta and a schema,
// read as scan reads it (the saved catalog and the listing both), holds
// a few bytes of heap per byte of the file (7): the schemas are kept as
// their text, and each _meta in a map of its size, where the go-sdk's
// decoder made each _meta a map of 4.75 kB and the schemas trees of such
// maps (30 bytes per byte). A ratio of sizes, not a time.
func TestReadFileHoldsAFewTimesTheFile(t *testing.T) {
	var tools []string
	for i := range 3000 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%05d","description":"Does thing %d, described at some length for the model.",`+
			`"inputSchema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y","z"],"description":"one"},"b":{"type":"integer","description":"two"}}},"_meta":{"k":%d}}`, i, i, i))
	}
	data := []byte(`{"catalogFormat":1,"protocolVersion":"2025-11-25","server":{"name":"w","version":"1"},"capabilities":{"tools":{}},"tools":[` +
		strings.Join(tools, ",") + `]}`)
	held := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := held()
	servers, err := catalog.ReadFile("many.json", data)
	if err != nil {
		t.Fatal(err)
	}
	perByte := float64(held()-before) / float64(len(data))
	runtime.KeepAlive(servers)
	t.Logf("%d bytes held %.1f bytes of heap per byte", len(data), perByte)
	if perByte > 10 {
		t.Errorf("the catalog read holds %.1f bytes of heap per byte of its file, want at most 10", perByte)
	}
	if s, ok := servers[0].Listing.Tools[0].InputSchema.(json.RawMessage); !ok || !strings.Contains(string(s), `"enum":["x","y","z"]`) {
		t.Errorf("the first tool's input schema is %T %v, want its text", servers[0].Listing.Tools[0].InputSchema, servers[0].Listing.Tools[0].InputSchema)

	}
}

// A catalog that lists one tool, prompt, prompt argument, resource or
// resource template twice is refused, in every form of file, with both
// places; a null item is no name.
func TestReadFileRefusesDuplicates(t *testing.T) {
	for doc, want := range map[string]string{
		`{"tools": [{"name": "a", "inputSchema": {"type": "object"}}, {"name": "a", "inputSchema": {"type": "object"}}]}`:    `f.json: line 1, column 62, tools[1]: tool "a" listed again (first at line 1, column 12, tools[0]): tools are told apart by name; remove or rename one`,
		`{"prompts": [{"name": "p"}, {"name": "q"}, {"name": "p"}]}`:                                                         `prompts[2]: prompt "p" listed again (first at line 1, column 14, prompts[0])`,
		`{"prompts": [{"name": "p", "arguments": [{"name": "x"}, {"name": "x"}]}]}`:                                          `prompts[0].arguments[1]: argument "x" of prompt "p" listed again`,
		`{"resources": [{"uri": "file:///a", "name": "a"}, null, {"uri": "file:///a", "name": "b"}]}`:                        `resources[2]: resource "file:///a" listed again (first at line 1, column 16, resources[0]): resources are told apart by URI`,
		`{"resourceTemplates": [{"uriTemplate": "x://{a}", "name": "a"}, {"uriTemplate": "x://{a}", "name": "b"}]}`:          `resourceTemplates[1]: resource template "x://{a}" listed again`,
		`{"catalog": {"tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]}}`:                       `catalog.tools[1]: tool "a" listed again (first at line 1, column 24, catalog.tools[0])`,
		`{"servers": [{"name": "s", "catalog": {}}, {"name": "t", "catalog": {"prompts": [{"name": "p"}, {"name": "p"}]}}]}`: `servers[1].catalog.prompts[1]: prompt "p" listed again`,
	} {
		_, err := catalog.ReadFile("f.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s", doc, err, want)
		}
	}
	// The same name in different lists, or null twice, is no duplicate.
	for _, doc := range []string{
		`{"tools": [{"name": "a", "inputSchema": {}}], "prompts": [{"name": "a", "arguments": [{"name": "a"}]}, {"name": "b", "arguments": [{"name": "a"}]}]}`,
		`{"resources": [null, null]}`,
	} {
		if _, err := catalog.ReadFile("f.json", []byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
	// A catalog in the form catalog save writes is refused alike.
	c := &catalog.Catalog{Server: catalog.Server{Name: "s", Version: "1"}, ProtocolVersion: "2025-11-25",
		Tools: []catalog.Tool{{Name: "a", InputSchema: map[string]any{"type": "object"}}, {Name: "a", InputSchema: map[string]any{"type": "object"}}}}
	saved, _, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.ReadSaved("saved.json", saved); err == nil || !strings.Contains(err.Error(), `saved.json: line 19, column 5, tools[1]: tool "a" listed again (first at line 13, column 5, tools[0])`) {
		t.Errorf("saved: %v", err)
	}
}

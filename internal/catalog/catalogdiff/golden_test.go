package catalogdiff

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/report/sarif"
)

var update = flag.Bool("update", false, "write testdata/reports again from what the reports say now")

// generatedPair is a generated pair of catalog files: the old one in the
// form catalog save writes, the new one compact (not in that form), each
// of 30 tools (with _meta, enums, output schemas), prompts and resources,
// the new one with changes of most kinds.
func generatedPair(t *testing.T) (old, new []byte) {
	t.Helper()
	cat := func(v2 bool) *catalog.Catalog {
		c := &catalog.Catalog{Server: catalog.Server{Name: "gen", Version: "1", Other: map[string]any{"_meta": map[string]any{"build": "a"}}},
			ProtocolVersion: "2025-11-25", Capabilities: map[string]any{"tools": map[string]any{"listChanged": true}, "prompts": map[string]any{}},
			Instructions: "Use the tools."}
		if v2 {
			c.Server.Version = "2"
			c.Instructions = "Use the tools with care."
			c.Server.Other["_meta"] = map[string]any{"build": "b", "extra": []any{1, 2}}
			delete(c.Capabilities, "prompts")
		}
		for i := range 30 {
			if v2 && i == 5 {
				continue // removed
			}
			props := map[string]any{}
			for j := range 4 {
				enum := []any{}
				for k := range 5 {
					enum = append(enum, fmt.Sprintf("v%d_%d", j, k))
				}
				p := map[string]any{"type": "string", "description": fmt.Sprintf("Parameter %d of tool %d.", j, i), "enum": enum, "maxLength": 10 + j}
				if v2 && i%7 == 0 {
					p["enum"] = append(enum[1:], "new")
					p["maxLength"] = 9 + j
				}
				if v2 && i%11 == 0 {
					p["description"] = fmt.Sprintf("Parameter %d of tool %d, now described <b>otherwise</b>.", j, i)
				}
				props[fmt.Sprintf("p%d", j)] = p
			}
			name := fmt.Sprintf("tool_%02d", i)
			if v2 && i == 9 {
				name = "tool_09_renamed"
			}
			tl := catalog.Tool{Name: name, Description: fmt.Sprintf("Tool %d does a thing.\nIt says so.", i),
				InputSchema:  map[string]any{"type": "object", "properties": props, "required": []any{"p0"}},
				OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
				Other:        map[string]any{"_meta": map[string]any{"n": i, "tags": []any{"a", "b"}}}}
			if v2 && i%5 == 0 {
				tl.Description += " Now more."
				tl.Other["_meta"] = map[string]any{"n": i + 1, "tags": []any{"a", "b"}}
			}
			if v2 && i%13 == 0 {
				tl.OutputSchema = map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "string"}}}
				tl.Annotations = &catalog.ToolAnnotations{}
			}
			c.Tools = append(c.Tools, tl)
		}
		if v2 {
			c.Tools = append(c.Tools, catalog.Tool{Name: "added", InputSchema: map[string]any{"type": "object"}})
		}
		c.Prompts = []catalog.Prompt{{Name: "p", Description: "A prompt.", Arguments: []catalog.Argument{{Name: "a", Required: v2}}}}
		c.Resources = []catalog.Resource{{URI: "file:///a", Name: "a", MIMEType: "text/plain", Other: map[string]any{"_meta": map[string]any{"v": v2}}}}
		return c
	}
	old, _, err := cat(false).Encode()
	if err != nil {
		t.Fatal(err)
	}
	saved, _, err := cat(true).Encode()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, saved); err != nil {
		t.Fatal(err)
	}
	return old, b.Bytes()
}

// The reports of a generated pair of catalogs (one saved, one compact)
// are the bytes of testdata/reports, in every format: the memory the diff
// saves changes none of what it says. go test -run
// TestGeneratedPairReports -update writes them again.
func TestGeneratedPairReports(t *testing.T) {
	oldFile, newFile := generatedPair(t)
	old, err := catalog.ReadSaved("old.json", oldFile)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := catalog.ReadSaved("new.json", newFile)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := old.Matches(oldFile); err != nil || !same {
		t.Fatalf("the old file is not in its saved form (%v)", err)
	}
	if same, err := cur.Matches(newFile); err != nil || same {
		t.Fatalf("the compact file reads as in its saved form (%v)", err)
	}
	rep := Compare(old, cur)
	rep.Old.Source, rep.New.Source = "old.json", "new.json"
	var paths []catalog.Path
	for _, c := range rep.Changes {
		paths = append(paths, c.Path)
	}
	files := Files{Old: "old.json", New: "new.json"}
	if files.OldLines, err = old.LinesOf(paths); err != nil {
		t.Fatal(err)
	}
	rep.Files = files
	for name, write := range map[string]func(io.Writer) error{
		"report.txt":  func(w io.Writer) error { return rep.WriteText(w, FailReview) },
		"report.json": func(w io.Writer) error { return rep.WriteJSON(w, FailReview, files) },
		"report.md":   func(w io.Writer) error { return rep.WriteMarkdown(w, FailReview) },
		"report.sarif": func(w io.Writer) error {
			return (&sarif.Log{Runs: []*sarif.Run{rep.SARIF(sarif.Tool{Name: "mcp-tester"}, sarif.Anchor{})}}).Write(w)
		},
	} {
		var got bytes.Buffer
		if err := write(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join("testdata", "reports", name)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from %s (-update writes it again):\n%s", name, path, got.Bytes())
		}
	}
}

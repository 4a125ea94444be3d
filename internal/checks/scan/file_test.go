package scan_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/checks/scan"
	"github.com/askback/askback/internal/encoding/strictjson"
)

// A catalog file is read in each of its forms; what is not a catalog, or
// says a key twice, is refused with the file's name.
func TestReadCatalogs(t *testing.T) {
	good := []struct {
		doc   string
		names []string
	}{
		{`{"server": {"name": "s"}, "tools": [{"name": "a", "inputSchema": {"type": "object"}}], "extra": 1}`, []string{"s"}},
		{`{"tools": []}`, []string{"file.json"}},
		{`{"catalog": {"instructions": "hi"}}`, []string{"file.json"}},
		{`{"servers": [{"name": "a", "catalog": {}}, {"name": "b", "catalog": {"tools": []}}]}`, []string{"a", "b"}},
	}
	for _, c := range good {
		servers, err := scan.ReadCatalogs("file.json", []byte(c.doc))
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
	}
	for doc, want := range bad {
		_, err := scan.ReadCatalogs("file.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "file.json") {
			t.Errorf("%s: %v, want an error naming the file and %q", doc, err, want)
		}
	}
	_, err := scan.ReadCatalogs("file.json", []byte(`{"tools": [], "tools": [{"name": "x"}]}`))
	if !errors.Is(err, strictjson.ErrAmbiguous) {
		t.Errorf("a key twice: %v", err)
	}
}

// Every corpus file reads as a catalog file.
func TestCorpusFilesAreCatalogFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if _, err := scan.ReadCatalogs(f, b); err != nil {
			t.Error(err)
		}
	}
}

func FuzzReadCatalogs(f *testing.F) {
	for _, s := range []string{`{"tools": []}`, `{"catalog": {"tools": [{"name": "a"}]}}`, `{"servers": [{"name": "a", "catalog": {}}]}`,
		`{"server": {"name": "x"}, "instructions": "i", "prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}`, `[]`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := scan.ReadCatalogs("f", data)
		if err != nil {
			return
		}
		checkReport(t, scan.Scan(servers...))
	})
}

package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"
)

func TestLocate(t *testing.T) {
	data := []byte(`{
  "server": {"name": "n\u00e9", "title": "Zürich 🚀"},
  "tools": [
    {"name": "a", "description": "plain"},
    {"n\u0061me": "b", "d\u0065scription": "escaped \"quote\" \\ and \ud83d\ude80",
     "inputSchema": {"type": "object", "properties": {
        "a b": {"description": "spaced key"},
        "nested": {"type": "object", "properties": {"deep": {"items": [{"description": "in an array"}]}}}
     }}}
  ],
  "Tools": 1
}`)
	tools := KeyStep("tools")
	props := []Step{tools, ItemStep(1), KeyStep("inputSchema"), KeyStep("properties")}
	cases := []struct {
		name  string
		path  []Step
		value string // data[Start:End]
		key   string // data[KeyStart:KeyEnd], "" for none
		found int    // -1: all of path
	}{
		{"root", nil, string(data), "", -1},
		{"unicode value", []Step{KeyStep("server"), KeyStep("title")}, `"Zürich 🚀"`, `"title"`, -1},
		{"escaped value", []Step{KeyStep("server"), KeyStep("name")}, `"n\u00e9"`, `"name"`, -1},
		{"item", []Step{tools, ItemStep(0), KeyStep("description")}, `"plain"`, `"description"`, -1},
		{"escaped key", []Step{tools, ItemStep(1), KeyStep("description")}, `"escaped \"quote\" \\ and \ud83d\ude80"`, `"d\u0065scription"`, -1},
		{"key with a space", append(props[:4:4], KeyStep("a b"), KeyStep("description")), `"spaced key"`, `"description"`, -1},
		{"nested schema", append(props[:4:4], KeyStep("nested"), KeyStep("properties"), KeyStep("deep"), KeyStep("items"), ItemStep(0), KeyStep("description")), `"in an array"`, `"description"`, -1},
		{"a member as written", []Step{KeyStep("Tools")}, `1`, `"Tools"`, -1},
		{"missing member: its parent", []Step{tools, ItemStep(0), KeyStep("annotations"), KeyStep("title")}, `{"name": "a", "description": "plain"}`, "", 2},
		{"missing item", []Step{tools, ItemStep(5)}, "", `"tools"`, 1},
		{"a key in letter case", []Step{KeyStep("TOOLS")}, string(data), "", 0},
		{"an index into an object", []Step{KeyStep("server"), ItemStep(0)}, `{"name": "n\u00e9", "title": "Zürich 🚀"}`, `"server"`, 1},
	}
	var paths [][]Step
	for _, c := range cases {
		paths = append(paths, c.path)
	}
	places, err := Locate(data, paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		p := places[i]
		want := c.found
		if want < 0 {
			want = len(c.path)
		}
		if p.Found != want {
			t.Errorf("%s: found %d steps, want %d", c.name, p.Found, want)
		}
		if c.value != "" && string(data[p.Start:p.End]) != c.value {
			t.Errorf("%s: value %s, want %s", c.name, data[p.Start:p.End], c.value)
		}
		key := ""
		if p.KeyStart >= 0 {
			key = string(data[p.KeyStart:p.KeyEnd])
		}
		if key != c.key {
			t.Errorf("%s: key %s, want %s", c.name, key, c.key)
		}
	}
}

func TestLocateRefuses(t *testing.T) {
	path := [][]Step{{KeyStep("a")}}
	for _, c := range []struct {
		in   string
		want error
	}{
		{`{"a": 1, "\u0061": 2}`, ErrAmbiguous},
		{`{"b": {"c": 1, "c": 2}, "a": 1}`, ErrAmbiguous},
		{`{"a": 1} {}`, ErrSyntax},
		{`{"a": 1`, ErrSyntax},
		{``, ErrSyntax},
		{`{"a": [1,]}`, ErrSyntax},
	} {
		if _, err := Locate([]byte(c.in), path); !errors.Is(err, c.want) {
			t.Errorf("Locate(%s) = %v, want %v", c.in, err, c.want)
		}
	}
}

// FuzzLocate checks Locate against encoding/json: it refuses what Repeats
// refuses (and empty data), and otherwise finds the value of every path
// into the decoded value, the JSON at its place decoding to that value.
func FuzzLocate(f *testing.F) {
	for _, s := range repeatCases {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"properties":{"a b":{"description":"x\u0041"}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > MaxDepth {
			return
		}
		whole, decodeErr := decodeNumbers(data)
		paths, values := walkPaths(whole)
		places, err := Locate(data, paths)
		switch repeat := Repeats(data); {
		case len(bytes.TrimSpace(data)) == 0 || repeat != nil:
			if err == nil {
				t.Fatalf("Locate(%q) accepts what Repeats refuses (%v)", data, repeat)
			}
			return
		case decodeErr != nil || err != nil:
			t.Fatalf("Locate(%q): %v; encoding/json: %v", data, err, decodeErr)
		}
		for i, p := range places {
			if p.Found != len(paths[i]) {
				t.Fatalf("Locate(%q): %v found %d steps", data, paths[i], p.Found)
			}
			if got, err := decodeNumbers(data[p.Start:p.End]); err != nil || !reflect.DeepEqual(got, values[i]) {
				t.Fatalf("Locate(%q): %v at %q, want %v", data, paths[i], data[p.Start:p.End], values[i])
			}
		}
	})
}

// decodeNumbers decodes data, one JSON value, as encoding/json does, each
// number kept as written.
func decodeNumbers(data []byte) (any, error) {
	if !json.Valid(data) {
		return nil, errors.New("not one JSON value")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// walkPaths returns the paths of v and of a few of the values in it (at
// each level the first key and the last item), with their values.
func walkPaths(v any) ([][]Step, []any) {
	var paths [][]Step
	var values []any
	var path []Step
	for depth := 0; depth < 64; depth++ {
		paths, values = append(paths, slices.Clone(path)), append(values, v)
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				return paths, values
			}
			k := slices.Min(slices.Collect(maps.Keys(x)))
			path, v = append(path, KeyStep(k)), x[k]
		case []any:
			if len(x) == 0 {
				return paths, values
			}
			path, v = append(path, ItemStep(len(x)-1)), x[len(x)-1]
		default:
			return paths, values
		}
	}
	return paths, values
}

package schemaargs

import (
	"encoding/json"
	"testing"
)

func TestArgs(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":  map[string]any{"type": "string"},
			"env":   map[string]any{"type": "string", "enum": []any{"staging", "production"}},
			"n":     map[string]any{"type": "integer", "minimum": 3.0},
			"small": map[string]any{"type": "number", "maximum": 0.5},
			"mail":  map[string]any{"type": "string", "format": "email"},
			"opt":   map[string]any{"type": "string"},
			"d":     map[string]any{"type": "string", "default": "x"},
			"code":  map[string]any{"type": "string", "minLength": 9.0, "maxLength": 9.0},
			"tags":  map[string]any{"type": "array", "minItems": 2.0, "items": map[string]any{"type": "string", "maxLength": 3.0}},
			"pick":  map[string]any{"anyOf": []any{map[string]any{"const": "a"}, map[string]any{"const": "b"}}},
			"inner": map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "boolean"}}, "required": []any{"k"}},
		},
		"required": []any{"name", "env", "n", "small", "mail", "d", "code", "tags", "pick", "inner"},
	}
	got, _ := json.Marshal(Args(schema))
	want := `{"code":"examplexx","d":"x","env":"staging","inner":{"k":true},"mail":"audit@example.com","n":3,"name":"example","pick":"a","small":0.5,"tags":["exa","exa"]}`
	if string(got) != want {
		t.Errorf("Args = %s\nwant   %s", got, want)
	}
}

// A server's bounds do not make the arguments unbounded: a string made to
// reach a huge minLength, an array a huge minItems, nesting without end.
func TestArgsBounded(t *testing.T) {
	var deep any = map[string]any{"type": "string"}
	for range 1000 {
		deep = map[string]any{"oneOf": []any{deep}, "type": "object", "properties": map[string]any{"a": deep}, "required": []any{"a"}}
	}
	schema := map[string]any{
		"properties": map[string]any{
			"s":    map[string]any{"type": "string", "minLength": 1e15},
			"a":    map[string]any{"type": "array", "minItems": 1e15},
			"deep": deep,
		},
		"required": []any{"s", "a", "deep"},
	}
	b, err := json.Marshal(Args(schema))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2*maxString {
		t.Errorf("arguments of %d bytes", len(b))
	}
}

func FuzzArgs(f *testing.F) {
	for _, s := range []string{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"required":[1,null,"x"]}`, `[]`, `{"properties":{"a":{"oneOf":[{"oneOf":[{}]}]}},"required":["a"]}`, `{"properties":{"a":{"type":"string","minLength":-1,"maxLength":-5}},"required":["a"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if _, err := json.Marshal(Args(v)); err != nil {
			t.Fatalf("Args(%s) made unencodable args: %v", s, err)
		}
	})
}

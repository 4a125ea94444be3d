package catalogdiff

import (
	"bytes"
	"encoding/json"
	"testing"
)

func decodeSchema(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// FuzzCompareSchemas compares any two JSON values as schemas, both ways:
// it never panics, a schema compared with itself has no difference, a
// difference seen one way is seen the other, and a schema that accepts
// more one way (and nothing else) accepts less the other way.
func FuzzCompareSchemas(f *testing.F) {
	seeds := [][2]string{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"]}`},
		{`{"type":"integer","minimum":1,"maximum":10}`, `{"type":"number","minimum":0,"maximum":5}`},
		{`{"enum":["a","b"]}`, `{"enum":["b","c"]}`},
		{`{"type":["string","null"]}`, `{"type":"string"}`},
		{`{"type":"string","pattern":"^a","format":"email","maxLength":3}`, `{"type":"string"}`},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"string"}]}`},
		{`{"items":{"type":"string"}}`, `{"items":[{"type":"string"}]}`},
		{`{"multipleOf":10}`, `{"multipleOf":0}`},
		{`{"minimum":1e999999}`, `{"minimum":-0}`},
		{`{"exclusiveMinimum":true,"minimum":0}`, `{"exclusiveMinimum":0}`},
		{`true`, `false`},
		{`{"additionalProperties":{"type":"string"}}`, `{"additionalProperties":false}`},
		{`{"$defs":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `{"$defs":{"b":{}}}`},
		{`{"const":1}`, `{"const":1.0}`},
		{`{"x-vendor":1,"description":"a"}`, `{"x-vendor":2,"description":"b"}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		x, ok1 := decodeSchema(a)
		y, ok2 := decodeSchema(b)
		if !ok1 || !ok2 {
			return
		}
		if same := compareSchemas("s", x, x, new(int)); len(same) != 0 {
			t.Fatalf("a schema differs from itself: %+v", same)
		}
		fwd := compareSchemas("s", x, y, new(int))
		back := compareSchemas("s", y, x, new(int))
		if (len(fwd) == 0) != (len(back) == 0) {
			t.Fatalf("a difference seen one way only:\n%s\n%s\nfwd %+v\nback %+v", a, b, fwd, back)
		}
		onlyWider := len(fwd) > 0
		for _, f := range fwd {
			if f.effect != widened {
				onlyWider = false
			}
		}
		if onlyWider {
			for _, f := range back {
				if f.effect == narrowed || f.effect == changed {
					return
				}
			}
			t.Fatalf("wider one way, not narrower the other:\n%s\n%s\nfwd %+v\nback %+v", a, b, fwd, back)
		}
		// The classification of whole tools never panics either way.
		d := &differ{}
		d.input("tools.t.inputSchema", "tool", x, y)
		d.output("tools.t.outputSchema", "tool", y, x)
	})
}

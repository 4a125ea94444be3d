// Package schemaargs makes up arguments for a tool from its input schema:
// what `inspect` sends to probe read-only tools and what `audit` calls every
// tool with. The schema comes from the server and may be anything: what is
// not understood is skipped, nesting is bounded, and the result always
// encodes as JSON.
package schemaargs

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxDepth bounds the nesting of the values made (objects, arrays, the
// alternatives of oneOf and anyOf).
const maxDepth = 4

// maxItems bounds the items of an array made to reach its minItems.
const maxItems = 8

// Args makes arguments for a tool from its input schema: every required
// property gets a plausible value ([Value]); properties that are not
// required are left out.
func Args(schema any) map[string]any {
	return object(Map(schema), 0)
}

func object(m map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props := Map(m["properties"])
	for _, name := range required(m) {
		out[name] = value(Map(props[name]), depth+1)
	}
	return out
}

// Value makes a plausible value for one property: its default, const,
// first enum value or first example, the first alternative of oneOf or
// anyOf, or one made from its type and bounds (a number within minimum and
// maximum, minItems items, a string of its format within minLength and
// maxLength).
func Value(p map[string]any) any {
	return value(p, 0)
}

func value(p map[string]any, depth int) any {
	if v, ok := given(p, depth); ok {
		return v
	}
	switch typ := schemaType(p); typ {
	case "integer", "number":
		return Number(Num(p["minimum"]), Num(p["maximum"]))
	case "boolean":
		return true
	case "array":
		return array(p, depth)
	case "object":
		if depth >= maxDepth {
			return map[string]any{}
		}
		return object(p, depth)
	case "null":
		return nil
	}
	format, _ := p["format"].(string)
	return String(format, Num(p["minLength"]), Num(p["maxLength"]))
}

// given is the value the schema p gives itself: its default, const,
// first enum value or first example, or the value of its first
// alternative of oneOf or anyOf; false when it gives none.
func given(p map[string]any, depth int) (any, bool) {
	if v, ok := p["default"]; ok && v != nil {
		return v, true
	}
	if v, ok := p["const"]; ok {
		return v, true
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	if ex, ok := p["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], true
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := p[key].([]any); ok && len(alts) > 0 && depth < maxDepth {
			return value(Map(alts[0]), depth+1), true
		}
	}
	return nil, false
}

// schemaType is the type of the schema p, the first of a list of types;
// "" when it has none.
func schemaType(p map[string]any) string {
	typ, _ := p["type"].(string)
	if ts, ok := p["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	return typ
}

// array makes an array for the schema p: minItems items (at most
// maxItems), each a value of its items' schema.
func array(p map[string]any, depth int) []any {
	if depth >= maxDepth {
		return []any{}
	}
	n := 0
	if mi := Num(p["minItems"]); mi != nil && *mi > 0 {
		n = int(min(*mi, maxItems))
	}
	items := make([]any, 0, n)
	for range n {
		items = append(items, value(Map(p["items"]), depth+1))
	}
	return items
}

// Map reads a schema (or a part of one) as a JSON object: as it is when it
// is one, else through its JSON encoding; nil when it is no object.
func Map(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case nil:
		return nil
	case json.RawMessage:
		var m map[string]any
		_ = json.Unmarshal(x, &m)
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// required are the names a schema's "required" lists, in its order;
// entries that are not strings are skipped.
func required(m map[string]any) []string {
	var out []string
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// Num reads a number of a schema (a bound); nil when v is none.
func Num(v any) *float64 {
	switch x := v.(type) {
	case float64:
		return &x
	case int:
		f := float64(x)
		return &f
	case json.Number:
		f, err := x.Float64()
		if err == nil {
			return &f
		}
	}
	return nil
}

// Number makes a number within the bounds lo and hi (either may be nil):
// 1 when it is within them, else the bound it is outside.
func Number(lo, hi *float64) float64 {
	switch {
	case lo != nil && *lo > 1:
		return *lo
	case hi != nil && *hi < 1:
		return *hi
	}
	return 1
}

// String makes a plausible string of a format ("email", "uri", "date",
// "date-time", "uuid"; anything else is a plain word) within the length
// bounds minLen and maxLen (either may be nil).
func String(format string, minLen, maxLen *float64) string {
	s := "example"
	switch format {
	case "email":
		s = "audit@example.com"
	case "uri", "url":
		s = "https://example.com/"
	case "date":
		s = "2026-01-02"
	case "date-time":
		s = "2026-01-02T03:04:05Z"
	case "uuid":
		s = "00000000-0000-4000-8000-000000000000"
	}
	if minLen != nil && *minLen > float64(len(s)) {
		s += strings.Repeat("x", int(min(*minLen, maxString))-len(s))
	}
	if maxLen != nil && float64(len(s)) > *maxLen {
		s = s[:int(max(*maxLen, 0))]
	}
	return s
}

// maxString bounds the length of a string made to reach its minLength.
const maxString = 4096

// PromptArgs makes arguments for a prompt: "example" for every required
// argument.
func PromptArgs(p *mcp.Prompt) map[string]string {
	out := map[string]string{}
	for _, a := range p.Arguments {
		if a != nil && a.Required {
			out[a.Name] = "example"
		}
	}
	return out
}

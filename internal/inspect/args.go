package inspect

import (
	"sort"
)

// SampleArgs makes arguments for a tool from its input schema: a value for
// every required property, taken from the property's default, first
// example, first enum or const value, or else a plain value of its type.
// It is used to probe read-only tools; the schema comes from the server
// and may be anything.
func SampleArgs(schema any) map[string]any {
	return sampleObject(schemaMap(schema), 0)
}

func sampleObject(m map[string]any, depth int) map[string]any {
	out := map[string]any{}
	if m == nil {
		return out
	}
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	names := make([]string, 0, len(req))
	for _, r := range req {
		if s, ok := r.(string); ok {
			names = append(names, s)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		out[n] = sampleValue(p, depth+1)
	}
	return out
}

// maxSampleDepth bounds nested objects.
const maxSampleDepth = 4

func sampleValue(p map[string]any, depth int) any {
	if p == nil {
		return "test"
	}
	if v, ok := p["default"]; ok {
		return v
	}
	if ex, ok := p["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if v, ok := p["const"]; ok {
		return v
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := p[key].([]any); ok && len(alts) > 0 {
			if a, ok := alts[0].(map[string]any); ok {
				if v, ok := a["const"]; ok {
					return v
				}
				if depth < maxSampleDepth {
					return sampleValue(a, depth+1)
				}
			}
		}
	}
	typ, _ := p["type"].(string)
	if ts, ok := p["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "integer", "number":
		if min, ok := p["minimum"].(float64); ok {
			return min
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		if depth >= maxSampleDepth {
			return map[string]any{}
		}
		return sampleObject(p, depth+1)
	case "null":
		return nil
	}
	switch p["format"] {
	case "email":
		return "user@example.com"
	case "uri", "url":
		return "https://example.com"
	case "date":
		return "2026-01-01"
	case "date-time":
		return "2026-01-01T00:00:00Z"
	}
	return "test"
}

package audit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/askback/askback/formschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// synthArgs makes arguments for a tool from its input schema: every
// required property gets a plausible value (its default, const, first enum
// value, an example, or one made from its type and format).
func synthArgs(schema any) map[string]any {
	m := asMap(schema)
	out := map[string]any{}
	props := asMap(m["properties"])
	for _, name := range requiredNames(m) {
		out[name] = synthValue(asMap(props[name]), 0)
	}
	return out
}

// synthPromptArgs makes arguments for a prompt: "example" for every
// required argument.
func synthPromptArgs(p *mcp.Prompt) map[string]any {
	out := map[string]any{}
	for _, a := range p.Arguments {
		if a != nil && a.Required {
			out[a.Name] = "example"
		}
	}
	return out
}

func asMap(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case nil:
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func requiredNames(m map[string]any) []string {
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

func synthValue(p map[string]any, depth int) any {
	if v, ok := p["default"]; ok && v != nil {
		return v
	}
	if v, ok := p["const"]; ok {
		return v
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if ex, ok := p["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if one, ok := p["oneOf"].([]any); ok && len(one) > 0 {
		return synthValue(asMap(one[0]), depth+1)
	}
	typ, _ := p["type"].(string)
	if ts, ok := p["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "integer", "number":
		return numberIn(num(p["minimum"]), num(p["maximum"]))
	case "boolean":
		return true
	case "array":
		if depth > 3 {
			return []any{}
		}
		n := 0
		if mi := num(p["minItems"]); mi != nil {
			n = int(*mi)
		}
		items := make([]any, 0, n)
		for range min(n, 8) {
			items = append(items, synthValue(asMap(p["items"]), depth+1))
		}
		return items
	case "object":
		out := map[string]any{}
		if depth > 3 {
			return out
		}
		props := asMap(p["properties"])
		for _, name := range requiredNames(p) {
			out[name] = synthValue(asMap(props[name]), depth+1)
		}
		return out
	case "null":
		return nil
	}
	format, _ := p["format"].(string)
	minLen, maxLen := num(p["minLength"]), num(p["maxLength"])
	return stringFor(format, minLen, maxLen)
}

func num(v any) *float64 {
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

func numberIn(lo, hi *float64) float64 {
	switch {
	case lo != nil && *lo > 1:
		return *lo
	case hi != nil && *hi < 1:
		return *hi
	}
	return 1
}

// stringFor makes a plausible string for a format and length bounds.
func stringFor(format string, minLen, maxLen *float64) string {
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
	if minLen != nil {
		for len(s) < int(*minLen) {
			s += "x"
		}
	}
	if maxLen != nil && len(s) > int(*maxLen) {
		s = s[:max(int(*maxLen), 0)]
	}
	return s
}

// formAnswer makes the content of an accept answer to a form: defaults
// where the schema gives them, the first option of enums, true for
// booleans, plausible strings that respect formats and lengths.
func formAnswer(p *mcp.ElicitParams) map[string]any {
	form, err := formschema.Parse(p.RequestedSchema)
	if err != nil {
		// Outside the subset: answer what can be answered.
		out := map[string]any{}
		props := asMap(asMap(p.RequestedSchema)["properties"])
		for name, prop := range props {
			out[name] = synthValue(asMap(prop), 0)
		}
		return out
	}
	out := map[string]any{}
	for _, f := range form.Fields {
		if f.Default != nil {
			out[f.Name] = f.Default
			continue
		}
		switch f.Kind {
		case formschema.String:
			var lo, hi *float64
			if f.MinLength != nil {
				x := float64(*f.MinLength)
				lo = &x
			}
			if f.MaxLength != nil {
				x := float64(*f.MaxLength)
				hi = &x
			}
			out[f.Name] = stringFor(f.Format, lo, hi)
		case formschema.Number:
			out[f.Name] = numberIn(f.Minimum, f.Maximum)
		case formschema.Integer:
			out[f.Name] = int(numberIn(f.Minimum, f.Maximum))
		case formschema.Boolean:
			out[f.Name] = true
		case formschema.SingleEnum:
			if len(f.Options) > 0 {
				out[f.Name] = f.Options[0].Value
			}
		case formschema.MultiSelect:
			n := 1
			if f.MinItems != nil && *f.MinItems > 1 {
				n = *f.MinItems
			}
			var vals []any
			for i := 0; i < n && i < len(f.Options); i++ {
				vals = append(vals, f.Options[i].Value)
			}
			out[f.Name] = vals
		}
	}
	return out
}

// acceptAll answers every question of a round with accept: synthesized
// content for forms, none for URL questions. Questions of other kinds
// (sampling, roots), which the audit never declares, are left unanswered.
func acceptAll(reqs mcp.InputRequestMap) mcp.InputResponseMap {
	out := mcp.InputResponseMap{}
	for k, r := range reqs {
		p, ok := r.(*mcp.ElicitParams)
		if !ok || p == nil {
			continue
		}
		if p.Mode == "url" {
			out[k] = &mcp.ElicitResult{Action: "accept"}
		} else {
			out[k] = &mcp.ElicitResult{Action: "accept", Content: formAnswer(p)}
		}
	}
	return out
}

// answerAll answers every elicitation of a round with action, no content.
func answerAll(reqs mcp.InputRequestMap, action string) mcp.InputResponseMap {
	out := mcp.InputResponseMap{}
	for k, r := range reqs {
		if p, ok := r.(*mcp.ElicitParams); ok && p != nil {
			out[k] = &mcp.ElicitResult{Action: action}
		}
	}
	return out
}

// varyArgs returns other arguments: every value changed, keeping its type
// (strings get a suffix or another enum option, numbers move by one,
// booleans flip). ok is false when there is nothing to change.
func varyArgs(args map[string]any, schema any) (map[string]any, bool) {
	if len(args) == 0 {
		return nil, false
	}
	props := asMap(asMap(schema)["properties"])
	out := make(map[string]any, len(args))
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	changed := false
	for _, k := range keys {
		v, c := varyValue(args[k], asMap(props[k]))
		out[k] = v
		changed = changed || c
	}
	return out, changed
}

func varyValue(v any, prop map[string]any) (any, bool) {
	if e, ok := prop["enum"].([]any); ok && len(e) > 1 {
		for _, opt := range e {
			if fmt.Sprint(opt) != fmt.Sprint(v) {
				return opt, true
			}
		}
	}
	switch x := v.(type) {
	case string:
		if strings.HasSuffix(x, "-other") {
			return strings.TrimSuffix(x, "-other"), true
		}
		if at := strings.LastIndexByte(x, '@'); at > 0 {
			return x[:at] + "-other" + x[at:], true
		}
		return x + "-other", true
	case bool:
		return !x, true
	case float64:
		if hi := num(prop["maximum"]); hi != nil && x+1 > *hi {
			return x - 1, true
		}
		return x + 1, true
	case int:
		return x + 1, true
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return v, false
		}
		return varyValue(f, prop)
	case map[string]any:
		sub := asMap(prop["properties"])
		out := make(map[string]any, len(x))
		changed := false
		for k, vv := range x {
			nv, c := varyValue(vv, asMap(sub[k]))
			out[k] = nv
			changed = changed || c
		}
		return out, changed
	case []any:
		return append(append([]any{}, x...), x...), len(x) > 0
	}
	return v, false
}

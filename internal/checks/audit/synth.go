package audit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// formAnswer makes the content of an accept answer to a form: defaults
// where the schema gives them, the first option of enums, true for
// booleans, plausible strings that respect formats and lengths.
func formAnswer(p *mcp.ElicitParams) map[string]any {
	form, err := formschema.Parse(p.RequestedSchema)
	if err != nil {
		// Outside the subset: answer what can be answered.
		out := map[string]any{}
		props := schemaargs.Map(schemaargs.Map(p.RequestedSchema)["properties"])
		for name, prop := range props {
			out[name] = schemaargs.Value(schemaargs.Map(prop))
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
			out[f.Name] = schemaargs.String(f.Format, lo, hi)
		case formschema.Number:
			out[f.Name] = schemaargs.Number(f.Minimum, f.Maximum)
		case formschema.Integer:
			out[f.Name] = int(schemaargs.Number(f.Minimum, f.Maximum))
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
	props := schemaargs.Map(schemaargs.Map(schema)["properties"])
	out := make(map[string]any, len(args))
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	changed := false
	for _, k := range keys {
		v, c := varyValue(args[k], schemaargs.Map(props[k]))
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
		if hi := schemaargs.Num(prop["maximum"]); hi != nil && x+1 > *hi {
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
		sub := schemaargs.Map(prop["properties"])
		out := make(map[string]any, len(x))
		changed := false
		for k, vv := range x {
			nv, c := varyValue(vv, schemaargs.Map(sub[k]))
			out[k] = nv
			changed = changed || c
		}
		return out, changed
	case []any:
		return append(append([]any{}, x...), x...), len(x) > 0
	}
	return v, false
}

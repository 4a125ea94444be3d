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
		return looseFormAnswer(p.RequestedSchema)
	}
	out := map[string]any{}
	for _, f := range form.Fields {
		if v, ok := fieldAnswer(f); ok {
			out[f.Name] = v
		}
	}
	return out
}

// looseFormAnswer answers a requested schema outside the form subset:
// what can be answered, a value for each property.
func looseFormAnswer(schema any) map[string]any {
	out := map[string]any{}
	props := schemaargs.Map(schemaargs.Map(schema)["properties"])
	for name, prop := range props {
		out[name] = schemaargs.Value(schemaargs.Map(prop))
	}
	return out
}

// fieldAnswer makes the answer to one field of a form, by its kind; ok is
// false for an enum with no options and a kind the audit does not know.
func fieldAnswer(f *formschema.Field) (v any, ok bool) {
	if f.Default != nil {
		return f.Default, true
	}
	switch f.Kind {
	case formschema.String:
		return schemaargs.String(f.Format, intBound(f.MinLength), intBound(f.MaxLength)), true
	case formschema.Number:
		return schemaargs.Number(f.Minimum, f.Maximum), true
	case formschema.Integer:
		return int(schemaargs.Number(f.Minimum, f.Maximum)), true
	case formschema.Boolean:
		return true, true
	case formschema.SingleEnum:
		if len(f.Options) > 0 {
			return f.Options[0].Value, true
		}
	case formschema.MultiSelect:
		return multiSelectAnswer(f), true
	}
	return nil, false
}

// intBound is the length bound n as a number bound, or nil.
func intBound(n *int) *float64 {
	if n == nil {
		return nil
	}
	x := float64(*n)
	return &x
}

// multiSelectAnswer picks the first options of a multi-select field: as
// many as it needs at least, one when it needs none.
func multiSelectAnswer(f *formschema.Field) []any {
	n := 1
	if f.MinItems != nil && *f.MinItems > 1 {
		n = *f.MinItems
	}
	var vals []any
	for i := 0; i < n && i < len(f.Options); i++ {
		vals = append(vals, f.Options[i].Value)
	}
	return vals
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

// varyValue returns another value than v of the same type (another enum
// option when prop has several), and whether it changed.
func varyValue(v any, prop map[string]any) (any, bool) {
	if opt, ok := otherOption(v, prop); ok {
		return opt, true
	}
	switch x := v.(type) {
	case string:
		return varyString(x), true
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
		return varyObject(x, prop)
	case []any:
		return append(append([]any{}, x...), x...), len(x) > 0
	}
	return v, false
}

// otherOption returns an option of prop's enum, when it has several, that
// is not v.
func otherOption(v any, prop map[string]any) (any, bool) {
	e, ok := prop["enum"].([]any)
	if !ok || len(e) < 2 {
		return nil, false
	}
	for _, opt := range e {
		if fmt.Sprint(opt) != fmt.Sprint(v) {
			return opt, true
		}
	}
	return nil, false
}

// varyString returns another string than x: with the suffix "-other"
// (before the @ of an address) or without it.
func varyString(x string) string {
	if strings.HasSuffix(x, "-other") {
		return strings.TrimSuffix(x, "-other")
	}
	if at := strings.LastIndexByte(x, '@'); at > 0 {
		return x[:at] + "-other" + x[at:]
	}
	return x + "-other"
}

// varyObject varies every member of x, by the properties of prop.
func varyObject(x map[string]any, prop map[string]any) (map[string]any, bool) {
	sub := schemaargs.Map(prop["properties"])
	out := make(map[string]any, len(x))
	changed := false
	for k, vv := range x {
		nv, c := varyValue(vv, schemaargs.Map(sub[k]))
		out[k] = nv
		changed = changed || c
	}
	return out, changed
}

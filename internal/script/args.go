package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/encoding/userjson"
	"github.com/askback/askback/internal/text/suggest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputSchema is the part of a tool's input schema that argument conversion
// reads.
type inputSchema struct {
	Properties           map[string]propSchema `json:"properties"`
	AdditionalProperties json.RawMessage       `json:"additionalProperties"`
	names                []string              // the properties, sorted
	types                map[string]string     // the type of each property
}

type propSchema struct {
	Type json.RawMessage `json:"type"`
}

// typeName is the property's JSON type; for a list of types, the first that
// is not "null".
func (p propSchema) typeName() string {
	var one string
	if json.Unmarshal(p.Type, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(p.Type, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	return ""
}

// schema returns the input schema of the tool named name, nil when the
// server has no such tool. Tools are listed once per script (once it works).
func (r *runner) schema(ctx context.Context, name string) (*inputSchema, error) {
	if r.tools == nil {
		tools, err := r.conn.ListTools(ctx)
		if err != nil {
			// Not kept: a later call_tool lists again.
			return nil, fmt.Errorf("tools/list failed: %v", err)
		}
		r.tools = map[string]*inputSchema{}
		for _, t := range tools {
			if t != nil {
				r.tools[t.Name] = schemaOf(t)
			}
		}
	}
	return r.tools[name], nil
}

func schemaOf(t *mcp.Tool) *inputSchema {
	s := &inputSchema{}
	if b, err := json.Marshal(t.InputSchema); err == nil {
		_ = json.Unmarshal(b, s)
	}
	s.types = map[string]string{}
	for k, p := range s.Properties {
		s.names = append(s.names, k)
		s.types[k] = p.typeName()
	}
	slices.Sort(s.names)
	return s
}

// toolArgs converts call_tool arguments into the tool's arguments. Named
// arguments go to their property; positional ones fill the remaining
// properties in alphabetical order. Each value is converted to its
// property's type.
func (r *runner) toolArgs(ctx context.Context, name string, toks []token) (map[string]any, error) {
	args := map[string]any{}
	if len(toks) == 0 {
		return args, nil
	}
	schema, lerr := r.schema(ctx, name)
	var names []string
	if schema != nil {
		names = schema.names
	}
	toks, err := slashWords(name, schema, lerr, toks)
	if err != nil {
		return nil, err
	}
	if schema != nil {
		if err := unknownArgument(name, schema, toks); err != nil {
			return nil, err
		}
	}
	var free []string // the properties no argument names, for the positional ones
	if slices.ContainsFunc(toks, func(tk token) bool { return tk.key == "" }) {
		free = slices.DeleteFunc(slices.Clone(names), func(n string) bool {
			return slices.ContainsFunc(toks, func(tk token) bool { return tk.key == n })
		})
	}
	for _, tk := range toks {
		key := tk.key
		if key == "" {
			if schema == nil {
				if lerr != nil {
					return nil, fmt.Errorf("positional arguments need the tool's input schema: %v; name the arguments (key:value)", lerr)
				}
				return nil, fmt.Errorf("tool %s: %w, so positional arguments cannot be mapped; name them (key:value)", name, errNotListed)
			}
			if len(free) == 0 {
				return nil, fmt.Errorf("too many arguments for tool %s at column %d; it takes: %s", name, tk.col, takes(names))
			}
			key, free = free[0], free[1:]
		}
		typ := ""
		if schema != nil {
			typ = schema.types[key]
		}
		v, err := r.argValue(tk, key, typ)
		if err != nil {
			return nil, err
		}
		args[key] = v
	}
	return args, nil
}

// unknownArgument refuses a named argument that is no property of the
// tool's input schema, unless it takes others.
func unknownArgument(tool string, schema *inputSchema, toks []token) error {
	for _, tk := range toks {
		if tk.key == "" {
			continue
		}
		if _, ok := schema.Properties[tk.key]; !ok && !schema.open() {
			hint := ""
			if h, ok := suggest.Closest(tk.key, schema.names); ok {
				hint = fmt.Sprintf(" (did you mean %s?)", h)
			}
			return fmt.Errorf("unknown argument %q for tool %s%s; it takes: %s", tk.key, tool, hint, takes(schema.names))
		}
	}
	return nil
}

// argValue is the value of the argument key written as tk, converted to
// its property's type typ. A value that does not convert is sent as
// written, as the earlier mcp-tester did, so that the server's validation
// is what is tested; the step says so.
func (r *runner) argValue(tk token, key, typ string) (any, error) {
	s, err := tk.value(r.vars)
	if err != nil {
		return nil, err
	}
	v, err := convert(s, tk.kind, typ)
	if err != nil {
		r.notes = append(r.notes, fmt.Sprintf("argument %s: %v; sent as written (a string)", key, err))
		return s, nil
	}
	return v, nil
}

// slashWords decides what each word key:/VALUE of toks is (a path or a
// URL follows the colon): the argument key when key is a property of the
// tool's input schema, whatever the value is; a value (a URL such as
// http://host) when the schema is known, takes no other properties and
// has no property key or one that key misspells. Otherwise (the schema is
// unknown, takes any property, or key looks like a misspelt property) the
// word has two readings and fails the step, saying how to write each. An
// argument the words then name twice fails too.
func slashWords(tool string, schema *inputSchema, lerr error, toks []token) ([]token, error) {
	if !slices.ContainsFunc(toks, func(tk token) bool { return tk.slashKey != "" }) {
		return toks, nil // no word to decide: the tokens as they are
	}
	out := make([]token, len(toks))
	for i, tk := range toks {
		out[i] = tk
		k := tk.slashKey
		if k == "" {
			continue
		}
		if schema != nil && hasProperty(schema, k) {
			out[i] = tk.named()
			continue
		}
		why := ambiguousWhy(tool, schema, lerr, k)
		if why == "" {
			out[i].slashKey = ""
			continue
		}
		return nil, twoReadings(tk, k, why)
	}
	if err := givenTwice(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ambiguousWhy says why a word k:/VALUE, k no property of the tool's input
// schema, may be the argument k as well as a value; "" when it is a value.
func ambiguousWhy(tool string, schema *inputSchema, lerr error, k string) string {
	switch {
	case schema == nil && lerr != nil:
		return fmt.Sprintf("the tool's input schema could not be read (%v)", lerr)
	case schema == nil:
		return fmt.Sprintf("tool %s is not in tools/list, so its arguments are not known", tool)
	case schema.open():
		return fmt.Sprintf("tool %s takes arguments beyond its properties, %s among them perhaps", tool, k)
	}
	if h, ok := suggest.Closest(k, schema.names); ok {
		return fmt.Sprintf("tool %s has no argument %s (did you mean %s?)", tool, k, h)
	}
	return ""
}

// twoReadings is the error of the word tk that reads two ways, the argument
// k or a value, saying why and how to write each.
func twoReadings(tk token, k, why string) error {
	word, _ := tk.literal()
	value := strings.TrimPrefix(word, k+":")
	if word == "" {
		word, value = k+":/…", "/…"
	}
	return fmt.Errorf("%q at column %d reads two ways: the argument %s = %q, or the value %q; %s. Write %s:%s for the argument, %s for the value",
		word, tk.col, k, value, word, why, k, strconv.Quote(value), strconv.Quote(word))
}

// givenTwice refuses an argument that toks name twice.
func givenTwice(toks []token) error {
	seen := map[string]int{}
	for _, tk := range toks {
		if tk.key == "" {
			continue
		}
		if col, ok := seen[tk.key]; ok {
			return fmt.Errorf("argument %s is given twice (columns %d and %d)", tk.key, col, tk.col)
		}
		seen[tk.key] = tk.col
	}
	return nil
}

func hasProperty(s *inputSchema, k string) bool {
	_, ok := s.Properties[k]
	return ok
}

// errNotListed: the tool of call_tool is not in tools/list.
var errNotListed = errors.New("it is not in tools/list")

// namedOnly returns the named arguments of toks, each as written (a
// string, or JSON when written as JSON).
func namedOnly(toks []token, vars map[string]string) (map[string]any, error) {
	args := map[string]any{}
	for _, tk := range toks {
		if tk.key == "" {
			continue
		}
		s, err := tk.value(vars)
		if err != nil {
			return nil, err
		}
		v, err := convert(s, tk.kind, "")
		if err != nil {
			v = s
		}
		args[tk.key] = v
	}
	return args, nil
}

// open reports whether the schema accepts properties it does not name.
func (s *inputSchema) open() bool {
	a := strings.TrimSpace(string(s.AdditionalProperties))
	return a == "true" || strings.HasPrefix(a, "{")
}

func takes(names []string) string {
	if len(names) == 0 {
		return "no arguments"
	}
	return strings.Join(names, ", ")
}

// convert turns the text of an argument into a value of type typ. The bare
// word null is JSON null whatever the type (quoted, it is the text "null").
// Without a type, a JSON value stays JSON, a quoted string stays a string,
// and a bare word is a number, true, false or null when it reads as one.
func convert(s string, kind tokenKind, typ string) (any, error) {
	if kind == bareToken && s == "null" {
		return nil, nil
	}
	switch typ {
	case "string":
		return s, nil
	case "integer", "number", "boolean", "null":
		return convertScalar(s, typ)
	case "object", "array":
		return convertJSON(s, typ)
	}
	return convertUntyped(s, kind)
}

// convertScalar turns the text of an argument into an integer, a number, a
// boolean or null, as typ says; spaces around the text do not count.
func convertScalar(s, typ string) (any, error) {
	t := strings.TrimSpace(s)
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return f, nil
	case "boolean":
		switch t {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean (true or false)", s)
	}
	if t != "null" {
		return nil, fmt.Errorf("%q is not null", s)
	}
	return nil, nil
}

// convertJSON reads the text of an argument as a JSON object or array, as
// typ says.
func convertJSON(s, typ string) (any, error) {
	v, err := decodeJSON(s)
	if errors.Is(err, strictjson.ErrAmbiguous) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not a JSON %s", truncate(s, 60), typ)
	}
	if _, ok := v.(map[string]any); typ == "object" && !ok {
		return nil, fmt.Errorf("%q is not a JSON object", truncate(s, 60))
	}
	if _, ok := v.([]any); typ == "array" && !ok {
		return nil, fmt.Errorf("%q is not a JSON array", truncate(s, 60))
	}
	return v, nil
}

// convertUntyped reads an argument no schema types: a JSON value stays
// JSON, a quoted string stays a string, and a bare word is a number, true,
// false or null when it reads as one.
func convertUntyped(s string, kind tokenKind) (any, error) {
	switch kind {
	case doubleToken, singleToken:
		return s, nil
	case jsonToken:
		return decodeJSON(s)
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && plainDecimal(s) {
		return f, nil
	}
	return s, nil
}

// plainDecimal reports whether a word ParseFloat reads is written as a
// person writes a number: not hexadecimal, without underscores, and not
// infinity or NaN.
func plainDecimal(s string) bool {
	if strings.ContainsAny(s, "xXpP_") {
		return false
	}
	for _, w := range []string{"inf", "nan", "+inf", "-inf", "infinity"} {
		if strings.EqualFold(s, w) {
			return false
		}
	}
	return true
}

// decodeJSON reads a JSON value written in a script, by the rule of every
// JSON a person writes (internal/encoding/userjson), its numbers as written.
func decodeJSON(s string) (any, error) {
	v, err := userjson.Value(fmt.Sprintf("%q", truncate(s, 60)), s, userjson.AsWritten)
	if err != nil {
		return nil, err
	}
	return normalizeNumbers(v), nil
}

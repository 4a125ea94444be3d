// Package form builds the requested schema of a form-mode question from a Go
// struct, refuses at construction what a form must never ask (fields that
// look like secrets, anything outside the restricted form subset), and
// decodes an accepted answer into the struct after validating it.
//
// A struct's exported fields become the form's fields, in declaration
// order. The json tag names a field and omitempty makes it optional; the
// jsonschema tag is its description; the form tag adds the rest:
//
//	type Target struct {
//		Environment string `json:"environment" form:"title=Target environment,default=staging,oneof=staging:Staging|production:Production"`
//		Confirm     bool   `json:"confirm" form:"title=I have reviewed the changes"`
//	}
//
// Form tag keys: title, default, enum (a|b|c), oneof (value:Title|…),
// min, max (numbers; minimum and maximum), minlen, maxlen (strings),
// minitems, maxitems (multi-select), format (email, uri, date, date-time).
// A []string field with enum or oneof is a multi-select.
package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/text/credential"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Form is a form-mode question whose answer decodes into a T. Make it with
// [New] or [Must], which read T's fields once; the zero Form is not usable
// (it has no schema).
type Form[T any] struct {
	raw    json.RawMessage // the requested schema as sent
	parsed *formschema.Schema
}

// Options configure [New]; nil means the defaults.
type Options struct {
	// Secrets decides which fields look like secrets (DefaultSecretPolicy if
	// nil). Prefer Allow on the default policy to a policy of your own.
	Secrets *SecretPolicy
}

// New builds the form for T. It fails, naming the field, when T has a field
// a form may not have: a nested object, a list of anything but choices, a
// secret-looking field (use URL mode for those), or a bad form tag.
func New[T any](opts *Options) (*Form[T], error) {
	var cfg Options
	if opts != nil {
		cfg = *opts
	}
	if cfg.Secrets == nil {
		// DefaultSecretPolicy, its terms built for this call alone: a
		// server that makes its forms at start-up keeps none of them.
		cfg.Secrets = &SecretPolicy{terms: credential.BuildDefaultTerms(), allow: map[string]bool{}}
	}
	var zero T
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("form: %T is not a struct", zero)
	}
	s, err := jsonschema.For[T](&jsonschema.ForOptions{})
	if err != nil {
		return nil, fmt.Errorf("form: %w", err)
	}
	s.AdditionalProperties = nil
	if err := applyTags(s, t, zero); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("form: %w", err)
	}
	parsed, err := formschema.Parse(json.RawMessage(raw))
	if err != nil {
		return nil, fmt.Errorf("form %T: %w", zero, err)
	}
	if err := checkCases(parsed, zero); err != nil {
		return nil, err
	}
	if err := cfg.Secrets.Check(parsed); err != nil {
		return nil, fmt.Errorf("form %T: %w", zero, err)
	}
	return &Form[T]{raw: raw, parsed: parsed}, nil
}

// applyTags makes the properties of s, the schema of zero's struct type t,
// those of form fields: never null, with what their form tags say.
func applyTags(s *jsonschema.Schema, t reflect.Type, zero any) error {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := jsonName(f)
		if name == "-" {
			continue
		}
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		dropNull(prop)
		if err := applyTag(prop, f); err != nil {
			return fmt.Errorf("form %T: field %q: %w", zero, name, err)
		}
	}
	return nil
}

// checkCases refuses a form (of zero's type) with two fields whose names
// differ only in letter case.
func checkCases(parsed *formschema.Schema, zero any) error {
	folded := map[string]string{}
	for _, f := range parsed.Fields {
		if prev, ok := folded[strictjson.Fold(f.Name)]; ok {
			return fmt.Errorf("form %T: fields %q and %q differ only in letter case; an answer could not say which one it fills", zero, prev, f.Name)
		}
		folded[strictjson.Fold(f.Name)] = f.Name
	}
	return nil
}

// Must is New that panics; for package-level forms built from fixed types.
func Must[T any](opts *Options) *Form[T] {
	f, err := New[T](opts)
	if err != nil {
		panic(err)
	}
	return f
}

// RequestedSchema is the requested schema as sent to the client.
func (f *Form[T]) RequestedSchema() json.RawMessage { return f.raw }

// Schema is the parsed form: its fields, in declaration order.
func (f *Form[T]) Schema() *formschema.Schema { return f.parsed }

// Ask returns the elicitation request that asks this form with message.
func (f *Form[T]) Ask(message string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: f.raw}
}

// ErrNotAccepted is returned by Decode for a declined or cancelled answer.
var ErrNotAccepted = errors.New("form: the answer was not accept")

// Decode validates an accepted answer (after filling defaults) and decodes
// it into a T. Take the answer from [ask.Lookup] (or [ask.Read] for the result
// of a task's Ask):
//
//	answer, ok := ask.Lookup(req.Params.InputResponses, "target")
//	if !ok { /* ask (again) */ }
//	target, err := targetForm.Decode(answer)
//
// A content that does not fit is a *formschema.ValidationError naming the
// fields, so the handler can ask again; decline and cancel give
// ErrNotAccepted (answer.Action says which).
func (f *Form[T]) Decode(a ask.Answer) (T, error) {
	var v T
	if !a.Accepted() {
		return v, ErrNotAccepted
	}
	content := f.parsed.ApplyDefaults(a.Content)
	if err := f.parsed.Validate(content); err != nil {
		return v, err
	}
	b, err := json.Marshal(content)
	if err != nil {
		return v, fmt.Errorf("form: %w", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("form: decoding the answer: %w", err)
	}
	return v, nil
}

// dropNull turns the ["null", T] type that slices and pointers get into T:
// a form field is either answered or absent, never null.
func dropNull(p *jsonschema.Schema) {
	if len(p.Types) == 0 {
		return
	}
	var rest []string
	for _, t := range p.Types {
		if t != "null" {
			rest = append(rest, t)
		}
	}
	if len(rest) == 1 {
		p.Type, p.Types = rest[0], nil
	}
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		return f.Name
	}
	return name
}

// applyTag adds what the form tag says to the property's schema.
func applyTag(p *jsonschema.Schema, f reflect.StructField) error {
	tag := f.Tag.Get("form")
	if tag == "" {
		return nil
	}
	for _, part := range splitTag(tag) {
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("form tag %q: write key=value", part)
		}
		if err := applyTagKey(p, f.Type, key, val); err != nil {
			return err
		}
	}
	return nil
}

// applyTagKey adds one key=value of the form tag of a field of type t to
// the property's schema.
func applyTagKey(p *jsonschema.Schema, t reflect.Type, key, val string) error {
	isList := t.Kind() == reflect.Slice
	switch key {
	case "title":
		p.Title = val
	case "format":
		p.Format = val
	case "default":
		d, err := defaultValue(t, val)
		if err != nil {
			return fmt.Errorf("default %q: %w", val, err)
		}
		p.Default = d
	case "enum":
		return setEnum(p, val, isList)
	case "oneof":
		return setOneOf(p, val, isList)
	case "min", "max":
		return setLimit(p, key, val)
	case "minlen", "maxlen", "minitems", "maxitems":
		return setCount(p, key, val)
	default:
		return fmt.Errorf("unknown form tag key %q (use title, default, enum, oneof, min, max, minlen, maxlen, minitems, maxitems, format)", key)
	}
	return nil
}

// setEnum sets the choices of enum=a|b|c, on the items of a list.
func setEnum(p *jsonschema.Schema, val string, isList bool) error {
	vals := strings.Split(val, "|")
	target := p
	if isList {
		if p.Items == nil {
			return fmt.Errorf("enum on a list without items")
		}
		target = p.Items
	}
	target.Enum = nil
	for _, v := range vals {
		target.Enum = append(target.Enum, v)
	}
	return nil
}

// setOneOf sets the titled choices of oneof=value:Title|…, as the anyOf
// of the items of a list.
func setOneOf(p *jsonschema.Schema, val string, isList bool) error {
	var opts []*jsonschema.Schema
	for _, pair := range strings.Split(val, "|") {
		v, title, ok := strings.Cut(pair, ":")
		if !ok || v == "" || title == "" {
			return fmt.Errorf("oneof entry %q: write value:Title", pair)
		}
		var c any = v
		opts = append(opts, &jsonschema.Schema{Const: &c, Title: title})
	}
	if isList {
		p.Items = &jsonschema.Schema{AnyOf: opts}
	} else {
		p.OneOf = opts
	}
	return nil
}

// setLimit sets the minimum or maximum (key min or max) of a number.
func setLimit(p *jsonschema.Schema, key, val string) error {
	x, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("%s %q: not a number", key, val)
	}
	if key == "min" {
		p.Minimum = &x
	} else {
		p.Maximum = &x
	}
	return nil
}

// setCount sets a bound on a length or a number of items (key minlen,
// maxlen, minitems or maxitems).
func setCount(p *jsonschema.Schema, key, val string) error {
	n, err := strconv.Atoi(val)
	if err != nil {
		return fmt.Errorf("%s %q: not a whole number", key, val)
	}
	switch key {
	case "minlen":
		p.MinLength = &n
	case "maxlen":
		p.MaxLength = &n
	case "minitems":
		p.MinItems = &n
	case "maxitems":
		p.MaxItems = &n
	}
	return nil
}

// splitTag splits a form tag at commas that start a new key=value pair, so
// that titles may contain commas.
func splitTag(tag string) []string {
	var parts []string
	for _, seg := range strings.Split(tag, ",") {
		if len(parts) > 0 && !strings.Contains(seg, "=") {
			parts[len(parts)-1] += "," + seg
			continue
		}
		parts = append(parts, strings.TrimSpace(seg))
	}
	return parts
}

func defaultValue(t reflect.Type, val string) (json.RawMessage, error) {
	var v any
	switch t.Kind() {
	case reflect.String:
		v = val
	case reflect.Bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return nil, err
		}
		v = b
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, err
		}
		v = n
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, err
		}
		v = x
	case reflect.Slice:
		v = strings.Split(val, "|")
	default:
		return nil, fmt.Errorf("no default for a %s", t)
	}
	return json.Marshal(v)
}

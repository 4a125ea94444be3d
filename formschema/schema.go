package formschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Kind is the kind of input a field asks for.
type Kind string

// The kinds of field a form may contain.
const (
	String      Kind = "string"       // free text, optionally with a format
	Number      Kind = "number"       // any JSON number
	Integer     Kind = "integer"      // a whole number
	Boolean     Kind = "boolean"      // a checkbox
	SingleEnum  Kind = "single-enum"  // one value out of a list
	MultiSelect Kind = "multi-select" // several values out of a list
)

// Option is one choice of an enum field.
type Option struct {
	Value string // the value sent back
	Title string // what the user sees; equal to Value when the schema gives none
}

// Field is one property of a form.
type Field struct {
	Name        string
	Kind        Kind
	Title       string
	Description string
	Required    bool
	// Default is the schema's default value as decoded from JSON (string,
	// float64, bool or []any), or nil when there is none.
	Default   any
	Format    string   // string fields: email, uri, date or date-time
	Options   []Option // enum and multi-select fields
	Minimum   *float64 // number and integer fields
	Maximum   *float64
	MinLength *int // string fields
	MaxLength *int
	MinItems  *int // multi-select fields
	MaxItems  *int
}

// Label is the field's title, or its name when it has none.
func (f *Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// Schema is a parsed form schema. Fields keep the order in which the server
// declared them when that order is known (see [Parse]).
type Schema struct {
	Fields []*Field
}

// Field returns the field with the given name, or nil.
func (s *Schema) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Parse reads a requested schema and checks that it stays within the form
// subset. The schema may be raw JSON ([]byte, json.RawMessage or string), a
// decoded map, or any value that marshals to a JSON schema. A nil schema is
// an empty form.
//
// Raw JSON keeps the properties in the order the server wrote them. A
// decoded map has lost that order; its fields come in the order of the
// schema's "required" list, then the remaining ones by name.
func Parse(raw any) (*Schema, error) {
	data, ordered, err := schemaJSON(raw)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return &Schema{}, nil
	}
	var root struct {
		Type       json.RawMessage            `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("requested schema is not a JSON object: %w", err)
	}
	if err := checkObjectType(root.Type); err != nil {
		return nil, err
	}
	names := propertyOrder(data, root.Properties)
	if !ordered {
		names = requiredFirst(names, root.Required)
	}
	s := &Schema{}
	for _, name := range names {
		f, err := parseField(name, root.Properties[name])
		if err != nil {
			return nil, err
		}
		f.Required = slices.Contains(root.Required, name)
		s.Fields = append(s.Fields, f)
	}
	if err := checkRequired(root.Required, root.Properties); err != nil {
		return nil, err
	}
	return s, nil
}

// checkRequired refuses a required field that is not among the
// properties.
func checkRequired(required []string, props map[string]json.RawMessage) error {
	for _, r := range required {
		if _, ok := props[r]; !ok {
			return fmt.Errorf("field %q is required but not among the properties", r)
		}
	}
	return nil
}

// schemaJSON returns the JSON of a schema as Parse takes it (nil for a
// nil schema), and whether it is raw JSON, which keeps the properties'
// order.
func schemaJSON(raw any) (data []byte, ordered bool, err error) {
	switch v := raw.(type) {
	case nil:
		return nil, false, nil
	case json.RawMessage:
		return v, true, nil
	case []byte:
		return v, true, nil
	case string:
		return []byte(v), true, nil
	}
	data, err = json.Marshal(raw)
	if err != nil {
		return nil, false, fmt.Errorf("requested schema is not JSON: %w", err)
	}
	return data, false, nil
}

// checkObjectType refuses a schema whose type, if it has one, is not
// "object".
func checkObjectType(typ json.RawMessage) error {
	if len(typ) == 0 {
		return nil
	}
	var t string
	if json.Unmarshal(typ, &t) != nil || t != "object" {
		return fmt.Errorf("requested schema must have type \"object\", got %s", typ)
	}
	return nil
}

// propertyOrder returns the property names in the order they appear in the
// raw JSON.
func propertyOrder(data []byte, props map[string]json.RawMessage) []string {
	var names []string
	dec := json.NewDecoder(bytes.NewReader(data))
	found := errors.New("properties read") // stops the walk there
	err := eachMember(dec, func(key string) error {
		if key != "properties" {
			return skipValue(dec)
		}
		err := eachMember(dec, func(name string) error {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
			return skipValue(dec)
		})
		if err != nil {
			return err
		}
		return found
	})
	if err != found {
		return slices.Sorted(maps.Keys(props))
	}
	return names
}

// eachMember reads the JSON object dec is at member by member: each gets
// the member's name and reads its value. It stops at the first error.
func eachMember(dec *json.Decoder, each func(key string) error) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := each(key); err != nil {
			return err
		}
	}
	return nil
}

// skipValue reads the value dec is at and drops it.
func skipValue(dec *json.Decoder) error {
	var skip json.RawMessage
	return dec.Decode(&skip)
}

func requiredFirst(names, required []string) []string {
	out := make([]string, 0, len(names))
	for _, r := range required {
		if slices.Contains(names, r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// property is the wire shape of one property, with every keyword the subset
// allows and the ones it forbids that are worth naming in an error.
type property struct {
	Type        json.RawMessage   `json:"type"`
	Title       *string           `json:"title"`
	Description *string           `json:"description"`
	Default     json.RawMessage   `json:"default"`
	Format      string            `json:"format"`
	Enum        []json.RawMessage `json:"enum"`
	EnumNames   []string          `json:"enumNames"`
	OneOf       []titledConst     `json:"oneOf"`
	AnyOf       []titledConst     `json:"anyOf"`
	Items       *property         `json:"items"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	MinItems    *int              `json:"minItems"`
	MaxItems    *int              `json:"maxItems"`
	Properties  json.RawMessage   `json:"properties"`
	Ref         string            `json:"$ref"`
}

type titledConst struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
}

func parseField(name string, raw json.RawMessage) (*Field, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("field %q: %s", name, fmt.Sprintf(format, args...))
	}
	var p property
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fail("not a valid property schema: %v", err)
	}
	typ, err := p.header(fail)
	if err != nil {
		return nil, err
	}
	f := &Field{Name: name, Title: deref(p.Title), Description: deref(p.Description)}
	if len(p.Default) > 0 && string(p.Default) != "null" {
		if err := json.Unmarshal(p.Default, &f.Default); err != nil {
			return nil, fail("default is not valid JSON: %v", err)
		}
	}
	if typ == "array" {
		return parseMulti(f, &p, fail)
	}
	if err := p.kind(f, typ, fail); err != nil {
		return nil, err
	}
	if err := f.checkDefault(fail); err != nil {
		return nil, err
	}
	return f, nil
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkDefault refuses a default that is not a valid answer to f.
func (f *Field) checkDefault(fail func(string, ...any) error) error {
	if f.Default == nil {
		return nil
	}
	if err := f.check(f.Default); err != nil {
		return fail("default %s", err)
	}
	return nil
}

// checkBounds refuses negative bounds on a count (a length, a number of
// items) named loName and hiName, and a maximum below the minimum.
func checkBounds(lo, hi *int, loName, hiName string, fail func(string, ...any) error) error {
	if lo != nil && *lo < 0 || hi != nil && *hi < 0 {
		return fail("%s and %s must not be negative", loName, hiName)
	}
	if lo != nil && hi != nil && *hi < *lo {
		return fail("%s %d is less than %s %d", hiName, *hi, loName, *lo)
	}
	return nil
}

// header refuses what no form field has (nested properties, a $ref) and
// returns the property's type ("" when it has none).
func (p *property) header(fail func(string, ...any) error) (string, error) {
	if len(p.Properties) > 0 {
		return "", fail("nested objects are not allowed in a form; use flat fields")
	}
	if p.Ref != "" {
		return "", fail("$ref is not allowed in a form schema")
	}
	var typ string
	if len(p.Type) > 0 {
		if err := json.Unmarshal(p.Type, &typ); err != nil {
			return "", fail("type must be a single string, got %s", p.Type)
		}
	}
	return typ, nil
}

// kind sets the kind of f, a field of type typ that is not an array, and
// what its kind bounds it by.
func (p *property) kind(f *Field, typ string, fail func(string, ...any) error) error {
	switch {
	case len(p.Enum) > 0 || len(p.OneOf) > 0:
		return p.enumField(f, typ, fail)
	case typ == "string":
		return p.stringField(f, fail)
	case typ == "number" || typ == "integer":
		return p.numberField(f, typ, fail)
	case typ == "boolean":
		f.Kind = Boolean
	case typ == "":
		return fail("type is missing; use string, number, integer, boolean or array")
	default:
		return fail("type %q is not allowed in a form; use string, number, integer, boolean or a multi-select array", typ)
	}
	return nil
}

// enumField makes f a single-select field with the property's choices.
func (p *property) enumField(f *Field, typ string, fail func(string, ...any) error) error {
	if typ != "" && typ != "string" {
		return fail("enum values must be strings, but type is %q", typ)
	}
	f.Kind = SingleEnum
	opts, err := options(p.Enum, p.EnumNames, p.OneOf, "oneOf")
	if err != nil {
		return fail("%v", err)
	}
	f.Options = opts
	return nil
}

// numberField makes f a number or integer field (typ) with the
// property's bounds.
func (p *property) numberField(f *Field, typ string, fail func(string, ...any) error) error {
	f.Kind = Number
	if typ == "integer" {
		f.Kind = Integer
	}
	if p.Minimum != nil && p.Maximum != nil && *p.Maximum < *p.Minimum {
		return fail("maximum %g is less than minimum %g", *p.Maximum, *p.Minimum)
	}
	f.Minimum, f.Maximum = p.Minimum, p.Maximum
	return nil
}

// stringField makes f a string field with the property's format and
// lengths.
func (p *property) stringField(f *Field, fail func(string, ...any) error) error {
	f.Kind = String
	if known, names := knownFormat(p.Format); p.Format != "" && !known {
		return fail("format %q is not allowed; use one of %s", p.Format, names)
	}
	f.Format = p.Format
	if err := checkBounds(p.MinLength, p.MaxLength, "minLength", "maxLength", fail); err != nil {
		return err
	}
	f.MinLength, f.MaxLength = p.MinLength, p.MaxLength
	return nil
}

func parseMulti(f *Field, p *property, fail func(string, ...any) error) (*Field, error) {
	f.Kind = MultiSelect
	if p.Items == nil {
		return nil, fail("an array field needs items with enum or anyOf (only multi-select arrays are allowed)")
	}
	opts, err := p.Items.itemOptions(fail)
	if err != nil {
		return nil, err
	}
	f.Options = opts
	if err := checkBounds(p.MinItems, p.MaxItems, "minItems", "maxItems", fail); err != nil {
		return nil, err
	}
	f.MinItems, f.MaxItems = p.MinItems, p.MaxItems
	if err := f.checkDefault(fail); err != nil {
		return nil, err
	}
	return f, nil
}

// itemOptions returns the choices of a multi-select field from p, its
// items, which must be string enums.
func (p *property) itemOptions(fail func(string, ...any) error) ([]Option, error) {
	var itemType string
	if len(p.Type) > 0 {
		_ = json.Unmarshal(p.Type, &itemType)
	}
	if itemType != "" && itemType != "string" {
		return nil, fail("array items must be string enums, got type %q", itemType)
	}
	if len(p.Enum) == 0 && len(p.AnyOf) == 0 {
		return nil, fail("array items must list their choices with enum or anyOf")
	}
	opts, err := options(p.Enum, p.EnumNames, p.AnyOf, "anyOf")
	if err != nil {
		return nil, fail("items: %v", err)
	}
	return opts, nil
}

func options(enum []json.RawMessage, names []string, titled []titledConst, keyword string) ([]Option, error) {
	if len(enum) > 0 {
		return enumOptions(enum, names)
	}
	return titledOptions(titled, keyword)
}

// enumOptions returns the choices an enum lists, each titled by its
// enumNames entry if there are enumNames, else by its value.
func enumOptions(enum []json.RawMessage, names []string) ([]Option, error) {
	if len(names) > 0 && len(names) != len(enum) {
		return nil, fmt.Errorf("%d enum values but %d enumNames", len(enum), len(names))
	}
	var opts []Option
	for i, e := range enum {
		var v string
		if err := json.Unmarshal(e, &v); err != nil {
			return nil, fmt.Errorf("enum value %s is not a string", e)
		}
		o := Option{Value: v, Title: v}
		if len(names) > 0 {
			o.Title = names[i]
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// titledOptions returns the choices a oneOf or anyOf (keyword) lists as
// titled consts.
func titledOptions(titled []titledConst, keyword string) ([]Option, error) {
	var opts []Option
	for i, t := range titled {
		var v string
		if len(t.Const) == 0 || json.Unmarshal(t.Const, &v) != nil || v == "" {
			return nil, fmt.Errorf("%s entry %d needs a non-empty string const", keyword, i)
		}
		if t.Title == "" {
			return nil, fmt.Errorf("%s entry %d (%q) needs a title", keyword, i, v)
		}
		opts = append(opts, Option{Value: v, Title: t.Title})
	}
	return opts, nil
}

package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// The catalog's types with Other members write them beside their fields,
// and read every member their fields do not name into Other: a member
// the server sent is kept whatever it is (a later protocol's, a vendor's,
// _meta), but for one that differs from a field's name only in letter case
// (which encoding/json reads into the field, and parseSaved refuses).

type (
	serverFields   Server
	toolFields     Tool
	promptFields   Prompt
	resourceFields Resource
	templateFields Template
)

// MarshalJSON writes the server's fields and its Other members.
func (s Server) MarshalJSON() ([]byte, error) { return withOther(serverFields(s), s.Others()) }

// MarshalJSON writes the tool's fields and its Other members.
func (t Tool) MarshalJSON() ([]byte, error) { return withOther(toolFields(t), t.Others()) }

// MarshalJSON writes the prompt's fields and its Other members.
func (p Prompt) MarshalJSON() ([]byte, error) { return withOther(promptFields(p), p.Others()) }

// MarshalJSON writes the resource's fields and its Other members.
func (r Resource) MarshalJSON() ([]byte, error) { return withOther(resourceFields(r), r.Others()) }

// MarshalJSON writes the template's fields and its Other members.
func (t Template) MarshalJSON() ([]byte, error) { return withOther(templateFields(t), t.Others()) }

// UnmarshalJSON reads the server's fields, and its other members into Other.
func (s *Server) UnmarshalJSON(b []byte) error {
	var f serverFields
	other, err := readOther(b, &f)
	*s = Server(f)
	s.otherText = other
	return err
}

// UnmarshalJSON reads the tool's fields, and its other members into Other.
// Its schemas are kept as their JSON text (compacted), never made trees
// here: a tree of a schema costs ten times its text, and a catalog diff
// of two large catalogs reads into trees only the parts of a pair of
// schemas that differ.
func (t *Tool) UnmarshalJSON(b []byte) error {
	var w struct {
		toolFields
		// The schemas' text, in place of the trees of toolFields' (the
		// shallower field is the one encoding/json fills).
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	other, err := readOtherAs(b, &w, jsonNames(Tool{}))
	*t = Tool(w.toolFields)
	t.otherText = other
	if err != nil {
		return err
	}
	t.InputSchema, t.OutputSchema = savedSchema(w.InputSchema), savedSchema(w.OutputSchema)
	return nil
}

// savedSchema is a schema's text as a tool read from a file holds it,
// compacted: nil when absent or null, as encoding/json reads those into an
// any.
func savedSchema(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return compact(raw)
}

// compact is the JSON text b without its spaces.
func compact(b json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return bytes.Clone(buf.Bytes()) // no spare capacity
}

// SchemaTree is a tool's schema (InputSchema, OutputSchema) as a plain
// JSON tree (objects, arrays, strings, json.Number, booleans, nil),
// whether it is held as one or as its JSON text (a catalog read from a
// file).
func SchemaTree(v any) any {
	raw, ok := v.(json.RawMessage)
	if !ok {
		return v
	}
	tree, err := plainJSON(raw)
	if err != nil {
		return nil // not JSON: never, the file was read as JSON
	}
	return tree
}

// UnmarshalJSON reads the prompt's fields, and its other members into Other.
func (p *Prompt) UnmarshalJSON(b []byte) error {
	var f promptFields
	other, err := readOther(b, &f)
	*p = Prompt(f)
	p.otherText = other
	return err
}

// UnmarshalJSON reads the resource's fields, and its other members into
// Other.
func (r *Resource) UnmarshalJSON(b []byte) error {
	var f resourceFields
	other, err := readOther(b, &f)
	*r = Resource(f)
	r.otherText = other
	return err
}

// UnmarshalJSON reads the template's fields, and its other members into
// Other.
func (t *Template) UnmarshalJSON(b []byte) error {
	var f templateFields
	other, err := readOther(b, &f)
	*t = Template(f)
	t.otherText = other
	return err
}

// withOther is fields written as JSON, with the members of other its
// fields do not name.
func withOther(fields any, other map[string]any) ([]byte, error) {
	b, err := json.Marshal(fields)
	if err != nil || len(other) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range other {
		if _, ok := m[k]; ok {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Path("").Key(k), err)
		}
		m[k] = raw
	}
	return json.Marshal(m)
}

// readOther reads b into fields (a pointer to a struct), numbers as
// json.Number, and returns the members that none of its fields names as
// the text of one JSON object (compact), nil when none. Held as trees,
// the other members of each of many items (a _meta of one member) cost
// several times their bytes in the file: a map for the members and one
// for the _meta, each with room for eight; Others makes the tree of one
// item's when it is asked for.
func readOther(b []byte, fields any) (json.RawMessage, error) {
	return readOtherAs(b, fields, jsonNames(reflect.ValueOf(fields).Elem().Interface()))
}

// readOtherAs is readOther of fields whose JSON names are known.
func readOtherAs(b []byte, fields any, known map[string]bool) (json.RawMessage, error) {
	var m map[string]rawRef
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	var other bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if known[k] {
			continue
		}
		if foldsToKnown(k, known) {
			continue // read into the field by encoding/json; parseSaved refuses it, with where
		}
		if other.Len() == 0 {
			other.WriteByte('{')
		} else {
			other.WriteByte(',')
		}
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		other.Write(name)
		other.WriteByte(':')
		if err := json.Compact(&other, m[k]); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(fields); err != nil {
		return nil, err
	}
	if other.Len() == 0 {
		return nil, nil
	}
	other.WriteByte('}')
	return bytes.Clone(other.Bytes()), nil
}

// Others are the members of the server its fields do not name: Other, or
// those read from a file, as plain JSON (nil when none).
func (s Server) Others() map[string]any { return otherMembers(s.Other, s.otherText) }

// Others: see Server.Others.
func (t Tool) Others() map[string]any { return otherMembers(t.Other, t.otherText) }

// Others: see Server.Others.
func (p Prompt) Others() map[string]any { return otherMembers(p.Other, p.otherText) }

// Others: see Server.Others.
func (r Resource) Others() map[string]any { return otherMembers(r.Other, r.otherText) }

// Others: see Server.Others.
func (t Template) Others() map[string]any { return otherMembers(t.Other, t.otherText) }

// otherMembers is other, or else the members of the JSON object text
// (readOther's) as plain JSON.
func otherMembers(other map[string]any, text json.RawMessage) map[string]any {
	if other != nil || text == nil {
		return other
	}
	v, err := plainJSON(text)
	if err != nil {
		return nil // never: readOther wrote it
	}
	m, _ := v.(map[string]any)
	return m
}

// foldsToKnown reports whether k differs from a name of known only in
// letter case.
func foldsToKnown(k string, known map[string]bool) bool {
	for name := range known {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// jsonNames are the JSON names of the fields of the struct v.
func jsonNames(v any) map[string]bool {
	t := reflect.TypeOf(v)
	names := map[string]bool{}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
}

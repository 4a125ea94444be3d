package reqstate

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"

	"github.com/askback/askback/internal/encoding/jsonscan"
)

// The payload of a state is JSON: the bytes json.Marshal writes of the value,
// read back with json.Unmarshal. For the common payload, a struct of strings,
// booleans and integers, a plan made once per type writes the same bytes and
// reads back exactly what it wrote, without encoding/json's general
// machinery; any other value, and any payload the plan does not read as it
// wrote it (escapes, other key order, numbers in other forms), goes through
// encoding/json, so the result is always json.Unmarshal's.

// A plan writes and reads one plain struct type.
type plan struct {
	fields []planField
}

type planField struct {
	index     int
	key       string // `"name":`
	name      string
	kind      reflect.Kind
	signed    bool // an int kind
	bits      int  // an int or uint kind's size
	omitEmpty bool
}

// plans caches the plan of each payload type (nil: not plain).
var plans sync.Map // reflect.Type → *plan

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planOf returns the plan of struct type t, or nil if encoding/json has to
// handle it.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := makePlan(t)
	plans.Store(t, p)
	return p
}

// customJSON reports whether t or *t encodes or decodes itself.
func customJSON(t reflect.Type) bool {
	for _, i := range []reflect.Type{jsonMarshaler, jsonUnmarshaler, textMarshaler, textUnmarshaler} {
		if t.Implements(i) || reflect.PointerTo(t).Implements(i) {
			return true
		}
	}
	return false
}

// makePlan plans a struct whose fields encoding/json writes as they are:
// exported, not embedded, of kind string, bool, int* or uint*, without
// methods of their own, named by a plain ASCII key (the field's name or its
// tag's), with no tag option but omitempty, keys distinct even ignoring case.
func makePlan(t reflect.Type) *plan {
	if t.Kind() != reflect.Struct || customJSON(t) {
		return nil
	}
	p := &plan{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag, tagged := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		pf, ok := planFieldOf(f, i, tag, tagged)
		if !ok || p.hasKeyFold(pf.name) {
			return nil
		}
		p.fields = append(p.fields, pf)
	}
	if len(p.fields) > maxPlanFields {
		return nil
	}
	return p
}

// planFieldOf plans field i of a struct, f, whose json tag is tag (if
// tagged); false when encoding/json would not write it as it is: a tag
// option but omitempty, a key that needs escapes, methods of its own, a
// kind the plan does not write.
func planFieldOf(f reflect.StructField, i int, tag string, tagged bool) (planField, bool) {
	name, opts, _ := cutComma(tag)
	if !tagged || name == "" {
		name = f.Name
	}
	pf := planField{index: i, name: name, kind: f.Type.Kind(), key: strconv.Quote(name) + ":"}
	switch opts {
	case "":
	case "omitempty":
		pf.omitEmpty = true
	default:
		return pf, false
	}
	if !plainKey(name) || customJSON(f.Type) {
		return pf, false
	}
	return pf, pf.setKind(f.Type)
}

// setKind notes the sign and width of an integer field of type t; it
// reports false for a kind the plan does not write (but strings and
// booleans).
func (pf *planField) setKind(t reflect.Type) bool {
	switch pf.kind {
	case reflect.String, reflect.Bool:
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		pf.signed, pf.bits = true, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		pf.bits = t.Bits()
	default:
		return false
	}
	return true
}

// hasKeyFold reports whether a field of the plan has the key name in some
// letter case.
func (p *plan) hasKeyFold(name string) bool {
	for _, g := range p.fields {
		if bytes.EqualFold([]byte(g.name), []byte(name)) {
			return true
		}
	}
	return false
}

func cutComma(s string) (before, after string, found bool) {
	for i := range len(s) {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// plainKey reports whether encoding/json takes name as a key and writes it
// without escapes.
func plainKey(name string) bool {
	if name == "" {
		return false
	}
	for i := range len(name) {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// plainByte reports whether encoding/json writes byte c of a string as it is
// and reads it back as it is.
func plainByte(c byte) bool {
	return 0x20 <= c && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
}

// plainString reports whether encoding/json writes s as it is (see
// plainByte).
func plainString(s string) bool {
	for i := range len(s) {
		if !plainByte(s[i]) {
			return false
		}
	}
	return true
}

// appendPayload appends the JSON of v to dst, the bytes json.Marshal writes.
func appendPayload(dst []byte, v any) ([]byte, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return dst, false
	}
	p := planOf(rv.Type())
	if p == nil {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, '{')
	first := true
	for _, f := range p.fields {
		fv := rv.Field(f.index)
		if f.omitEmpty && fv.IsZero() {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.key...)
		switch f.kind {
		case reflect.String:
			s := fv.String()
			if !plainString(s) {
				return dst[:start], false
			}
			dst = append(append(append(dst, '"'), s...), '"')
		case reflect.Bool:
			dst = strconv.AppendBool(dst, fv.Bool())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			dst = strconv.AppendUint(dst, fv.Uint(), 10)
		default:
			dst = strconv.AppendInt(dst, fv.Int(), 10)
		}
	}
	return append(dst, '}'), true
}

// decodePayload decodes data into dst as json.Unmarshal does.
func decodePayload(data []byte, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct {
		if p := planOf(rv.Elem().Type()); p != nil && p.read(data, rv.Elem()) {
			return nil
		}
	}
	return json.Unmarshal(data, dst)
}

// maxPlanFields bounds the fields of a planned struct, so that read can
// check a whole payload before it sets a field.
const maxPlanFields = 16

// an assignment read holds until the whole payload has checked out.
type assignment struct {
	f *planField
	s []byte // a string's bytes
	i int64
	u uint64
	b bool
}

// read sets the fields of v from data if data is in the form append writes
// (keys in field order, some left out; jsonscan's scanner reads the
// object), and reports whether it was. It sets nothing when it was not.
func (p *plan) read(data []byte, v reflect.Value) bool {
	var as [maxPlanFields]assignment
	n, ok := p.check(data, &as)
	if !ok {
		return false
	}
	for _, a := range as[:n] {
		fv := v.Field(a.f.index)
		switch a.f.kind {
		case reflect.String:
			fv.SetString(string(a.s))
		case reflect.Bool:
			fv.SetBool(a.b)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			fv.SetUint(a.u)
		default:
			fv.SetInt(a.i)
		}
	}
	return true
}

// check reads data into as and reports how many fields it sets: each
// member's key names a field after the one before (so none twice), and
// its value is one that field's kind reads as json.Unmarshal does.
func (p *plan) check(data []byte, as *[maxPlanFields]assignment) (int, bool) {
	next, count := 0, 0
	ok := jsonscan.Members(data, func(m jsonscan.Member) bool {
		j := next
		for j < len(p.fields) && p.fields[j].name != string(m.Key) {
			j++
		}
		if j == len(p.fields) {
			return false
		}
		a := &as[count]
		*a = assignment{f: &p.fields[j]}
		count++
		next = j + 1
		return a.value(m)
	})
	return count, ok
}

// value reads the value of a's field as append writes it.
func (a *assignment) value(m jsonscan.Member) bool {
	v := m.Value
	switch a.f.kind {
	case reflect.String:
		if !m.Plain {
			return false
		}
		a.s = v[1 : len(v)-1]
		return true
	case reflect.Bool:
		a.b = string(v) == "true"
		return a.b || string(v) == "false"
	}
	return a.integer(v)
}

// integer reads an integer without fraction or exponent (JSON has no
// leading zero) within the field's size.
func (a *assignment) integer(v []byte) bool {
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') || bytes.ContainsAny(v, ".eE") {
		return false
	}
	var err error
	if a.f.signed {
		a.i, err = strconv.ParseInt(string(v), 10, 64)
		return err == nil && !overflowsInt(a.i, a.f.bits)
	}
	a.u, err = strconv.ParseUint(string(v), 10, 64)
	return err == nil && !overflowsUint(a.u, a.f.bits)
}

func overflowsInt(x int64, bits int) bool {
	trunc := (x << (64 - bits)) >> (64 - bits)
	return x != trunc
}

func overflowsUint(x uint64, bits int) bool {
	trunc := (x << (64 - bits)) >> (64 - bits)
	return x != trunc
}

package reqstate

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
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
			return nil
		}
		if !plainKey(name) || customJSON(f.Type) {
			return nil
		}
		switch pf.kind {
		case reflect.String, reflect.Bool:
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			pf.signed, pf.bits = true, f.Type.Bits()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			pf.bits = f.Type.Bits()
		default:
			return nil
		}
		for _, g := range p.fields {
			if bytes.EqualFold([]byte(g.name), []byte(name)) {
				return nil
			}
		}
		p.fields = append(p.fields, pf)
	}
	if len(p.fields) > maxPlanFields {
		return nil
	}
	return p
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
			for i := range len(s) {
				if !plainByte(s[i]) {
					return dst[:start], false
				}
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
	f          *planField
	start, end int // a string's bytes
	i          int64
	u          uint64
	b          bool
}

// read sets the fields of v from data if data is in the form append writes
// (keys in field order, some left out), and reports whether it was. It sets
// nothing when it was not.
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
			fv.SetString(string(data[a.start:a.end]))
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

// check reads data into as and reports how many fields it sets.
func (p *plan) check(data []byte, as *[maxPlanFields]assignment) (int, bool) {
	if len(data) < 2 || data[0] != '{' {
		return 0, false
	}
	if len(data) == 2 {
		return 0, data[1] == '}'
	}
	i, next, count := 1, 0, 0
	for {
		j, at, ok := p.key(data, i, next)
		if !ok {
			return 0, false
		}
		a := &as[count]
		*a = assignment{f: &p.fields[j]}
		count++
		next = j + 1
		n, ok := a.value(data, at)
		if !ok || n >= len(data) {
			return 0, false
		}
		switch data[n] {
		case ',':
			i = n + 1
		case '}':
			return count, n == len(data)-1
		default:
			return 0, false
		}
	}
}

// key reads `"name":` at data[i] and returns the field it names, at or
// after field next (keys come in field order), and where its value starts.
func (p *plan) key(data []byte, i, next int) (field, value int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return 0, 0, false
	}
	end := i + 1
	for end < len(data) && data[end] != '"' {
		end++
	}
	if end+1 >= len(data) || data[end+1] != ':' {
		return 0, 0, false
	}
	key := data[i+1 : end]
	j := next
	for j < len(p.fields) && p.fields[j].name != string(key) {
		j++
	}
	return j, end + 2, j < len(p.fields)
}

// value reads the value of a's field at data[i] as append writes it and
// returns where it ends.
func (a *assignment) value(data []byte, i int) (int, bool) {
	switch a.f.kind {
	case reflect.String:
		return a.text(data, i)
	case reflect.Bool:
		switch {
		case bytes.HasPrefix(data[i:], []byte("true")):
			a.b = true
			return i + 4, true
		case bytes.HasPrefix(data[i:], []byte("false")):
			return i + 5, true
		}
		return 0, false
	}
	return a.integer(data, i)
}

// text reads a string of plain bytes (no escapes, nothing outside
// printable ASCII) at data[i].
func (a *assignment) text(data []byte, i int) (int, bool) {
	n := i
	if n >= len(data) || data[n] != '"' {
		return 0, false
	}
	n++
	for n < len(data) && data[n] != '"' {
		if c := data[n]; c < 0x20 || c >= 0x7f || c == '\\' {
			return 0, false
		}
		n++
	}
	if n >= len(data) {
		return 0, false
	}
	a.start, a.end = i+1, n
	return n + 1, true
}

// integer reads an integer in the form strconv writes it (no leading zero,
// no fraction or exponent) at data[i], within the field's size.
func (a *assignment) integer(data []byte, i int) (int, bool) {
	n := i
	neg := n < len(data) && data[n] == '-'
	if neg {
		n++
	}
	d := n
	for n < len(data) && '0' <= data[n] && data[n] <= '9' {
		n++
	}
	if n == d || data[d] == '0' && n-d > 1 {
		return 0, false // no digits, or a leading zero
	}
	if n < len(data) && (data[n] == '.' || data[n] == 'e' || data[n] == 'E') {
		return 0, false
	}
	var err error
	if a.f.signed {
		a.i, err = strconv.ParseInt(string(data[i:n]), 10, 64)
		return n, err == nil && !overflowsInt(a.i, a.f.bits)
	}
	a.u, err = strconv.ParseUint(string(data[i:n]), 10, 64)
	return n, !neg && err == nil && !overflowsUint(a.u, a.f.bits)
}

func overflowsInt(x int64, bits int) bool {
	trunc := (x << (64 - bits)) >> (64 - bits)
	return x != trunc
}

func overflowsUint(x uint64, bits int) bool {
	trunc := (x << (64 - bits)) >> (64 - bits)
	return x != trunc
}

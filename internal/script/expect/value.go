// Package expect compares what a server answered with what a script
// expects, when some of it changes from run to run.
//
// An expected value is JSON whose strings may hold placeholders ({{uuid}},
// {{timestamp}}, {{id}}, … see [Kinds]) that stand for a value of that kind
// ([Pattern]); a string that is one placeholder alone also matches a
// non-string value of its kind ("{{number}}" matches 3). Objects match when
// every expected member matches (members the server added are no
// difference), arrays element by element. [Match] lists the differences,
// each with its JSON path; [Generalize] writes a text with the values that
// change from run to run replaced by placeholders; [Expect] turns a value a
// server sent into the expected value a script keeps (exactly, or by shape
// only); [Update] rewrites an expected value from a new answer, changing only
// what no longer matches.
//
// Values keep the order of their objects' members ([Object]), so that what
// is written back reads as it was written.
package expect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/text/termsafe"
)

// A Value is a decoded JSON value: nil, bool, json.Number, string, []any
// (of Values) or *Object.
type Value = any

// Object is a JSON object with its members in order.
type Object struct {
	Keys   []string
	Values map[string]Value
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{Values: map[string]Value{}} }

// Get returns the member k and whether it is there.
func (o *Object) Get(k string) (Value, bool) {
	v, ok := o.Values[k]
	return v, ok
}

// Set sets the member k, appending it when it is new.
func (o *Object) Set(k string, v Value) {
	if _, ok := o.Values[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.Values[k] = v
}

// Delete removes the member k.
func (o *Object) Delete(k string) {
	if _, ok := o.Values[k]; !ok {
		return
	}
	delete(o.Values, k)
	for i, x := range o.Keys {
		if x == k {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

// maxDepth bounds the nesting of a decoded value.
const maxDepth = 1000

// Decode reads data as exactly one JSON value, keeping the order of object
// members and numbers as written. A key given twice in one object is an
// error (it would be read as one of its values, silently).
func Decode(data []byte) (Value, error) {
	if err := strictjson.CheckRepeats(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no JSON value")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

// MustDecode is Decode for JSON known to be valid (a test's, a constant).
func MustDecode(s string) Value {
	v, err := Decode([]byte(s))
	if err != nil {
		panic(fmt.Sprintf("expect.MustDecode(%q): %v", s, err))
	}
	return v
}

func decodeValue(dec *json.Decoder, depth int) (Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("JSON nested deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil // nil, bool, json.Number, string
	}
}

// FromAny converts a value decoded by encoding/json (maps, float64 or
// json.Number) into a Value; map members are taken in key order.
func FromAny(v any) (Value, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// Compact writes v as compact JSON, members in order, without escaping
// HTML characters; control, bidirectional and other invisible characters
// in strings are \u escapes (termsafe.JSON), so that the text shows what
// it holds wherever it is written.
func Compact(v Value) string {
	var b strings.Builder
	writeCompact(&b, v)
	return string(termsafe.JSON([]byte(b.String())))
}

// Indent writes v as JSON indented by indent, members in order.
func Indent(v Value, indent string) string {
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(Compact(v)), "", indent); err != nil {
		return Compact(v)
	}
	return out.String()
}

func writeCompact(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(x.String())
	case string:
		b.WriteString(quoteJSON(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, e)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteJSON(k))
			b.WriteByte(':')
			writeCompact(b, x.Values[k])
		}
		b.WriteByte('}')
	default:
		// Not a Value: encode what encoding/json makes of it.
		raw, err := json.Marshal(x)
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(raw)
	}
}

// quoteJSON writes s as a JSON string without HTML escapes.
func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// Clone returns a deep copy of v.
func Clone(v Value) Value {
	switch x := v.(type) {
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = Clone(e)
		}
		return c
	case *Object:
		c := &Object{Keys: append([]string(nil), x.Keys...), Values: make(map[string]Value, len(x.Values))}
		for k, e := range x.Values {
			c.Values[k] = Clone(e)
		}
		return c
	}
	return v
}

package expect

import (
	"encoding/json"
	"slices"
)

// Mode says how much of a value an expected value keeps.
type Mode int

const (
	// Exact keeps every value, with the parts that change from run to
	// run as placeholders (Generalize).
	Exact Mode = iota
	// Shape keeps the structure (members, array lengths) and the kind of
	// each value ({{string}}, {{number}}, {{boolean}}), and the values of
	// the members LiteralKeys names.
	Shape
)

// ParseMode reads "exact" or "shape".
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "exact":
		return Exact, true
	case "shape":
		return Shape, true
	}
	return Exact, false
}

func (m Mode) String() string {
	if m == Shape {
		return "shape"
	}
	return "exact"
}

// DroppedKeys are members left out of an expected value at any depth:
// protocol metadata (_meta: server info, progress tokens, related tasks)
// and the opaque requestState.
var DroppedKeys = []string{"_meta", "requestState"}

// VolatileKeys are members whose value changes from run to run by their
// nature, at any depth: they are kept by their kind alone (present, a
// string or a number) in either mode.
var VolatileKeys = []string{"taskId", "requestId", "elicitationId", "progressToken", "nonce", "sessionId",
	"createdAt", "lastUpdatedAt", "updatedAt", "timestamp", "expiresAt"}

// LiteralKeys are members whose values a Shape expectation keeps as they
// are: what kind of thing a value is (a content item's type, a question's
// mode, a message's role, a task's status) and a form's names of fields
// and choices (required, enum, const, format).
var LiteralKeys = []string{"type", "mode", "role", "mimeType", "resultType", "status", "action",
	"isError", "required", "enum", "const", "format"}

// ExpectOptions configure Expect.
type ExpectOptions struct {
	Mode Mode
	// Ignore names what the expectation says nothing of (see Ignore).
	Ignore []Path
}

// Expect turns v, a value a server sent, into the value a script expects
// of it: DroppedKeys left out, VolatileKeys by kind, the rest exactly
// (Exact: strings Generalize'd) or by shape, and what Ignore names
// ignored. v is not changed.
func Expect(v Value, opts ExpectOptions) Value {
	out := expect(v, opts.Mode, "")
	for _, p := range opts.Ignore {
		Ignore(out, p)
	}
	return out
}

// expect converts v, the value of the member key ("" for none).
func expect(v Value, mode Mode, key string) Value {
	if slices.Contains(VolatileKeys, key) {
		return shapeOf(v)
	}
	switch x := v.(type) {
	case *Object:
		out := NewObject()
		for _, k := range x.Keys {
			if slices.Contains(DroppedKeys, k) {
				continue
			}
			out.Set(k, expect(x.Values[k], mode, k))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			// The elements of required and enum are names, like the
			// member itself.
			out[i] = expect(e, mode, key)
		}
		return out
	}
	if mode == Shape && !slices.Contains(LiteralKeys, key) {
		return shapeOf(v)
	}
	if s, ok := v.(string); ok {
		return Generalize(s)
	}
	return v
}

// shapeOf is the placeholder of v's kind: a string's own kind when it is,
// whole, a value that changes from run to run ({{uuid}}, …), else
// {{string}}; {{number}}, {{boolean}}; null stays null; an object or array
// by the shape of its members.
func shapeOf(v Value) Value {
	switch x := v.(type) {
	case string:
		if kind, ok := IsVolatile(x); ok {
			return Placeholder(kind)
		}
		return Placeholder("string")
	case json.Number:
		return Placeholder("number")
	case bool:
		return Placeholder("boolean")
	case *Object, []any:
		return expect(x, Shape, "")
	}
	return v
}

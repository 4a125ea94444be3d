package catalogdiff

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
)

// digest is a fingerprint of a JSON value as encoding/json reads it: two
// values have the same digest when reflect.DeepEqual holds between them
// (and, but for a hash collision, only then). Sorting items by digest
// pairs equal ones in n log n where comparing each with each is
// quadratic.
type digest [sha256.Size]byte

func digestOf(v any) digest {
	h := sha256.New()
	writeCanon(h, v)
	var d digest
	h.Sum(d[:0])
	return d
}

// writeCanon writes v to h with its type and lengths, map keys sorted, so
// that values of different types or shapes never write the same bytes.
func writeCanon(h hash.Hash, v any) {
	switch x := v.(type) {
	case nil:
		h.Write([]byte{'z'})
	case bool:
		if x {
			h.Write([]byte{'t'})
		} else {
			h.Write([]byte{'f'})
		}
	case string:
		writeLength(h, 's', len(x))
		h.Write([]byte(x))
	case json.Number:
		writeLength(h, 'n', len(x))
		h.Write([]byte(x))
	case float64:
		writeLength(h, 'd', 8)
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], math.Float64bits(x))
		h.Write(n[:])
	case []any:
		writeCanonArray(h, x)
	case map[string]any:
		writeCanonObject(h, x)
	case json.RawMessage:
		writeCanon(h, whole(x)) // a property left as its text (level)
	default:
		// Not a type encoding/json reads into any: its type and value.
		s := fmt.Sprintf("%T %#v", v, v)
		writeLength(h, 'o', len(s))
		h.Write([]byte(s))
	}
}

// writeLength writes a tag and a length l.
func writeLength(h hash.Hash, tag byte, l int) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(l))
	h.Write([]byte{tag})
	h.Write(n[:])
}

// writeCanonArray is writeCanon of an array: its length, then its items.
func writeCanonArray(h hash.Hash, x []any) {
	if x == nil {
		h.Write([]byte{'Z'})
		return
	}
	writeLength(h, 'a', len(x))
	for _, e := range x {
		writeCanon(h, e)
	}
}

// writeCanonObject is writeCanon of an object: its size, then each key
// and value in key order.
func writeCanonObject(h hash.Hash, x map[string]any) {
	if x == nil {
		h.Write([]byte{'M'})
		return
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	writeLength(h, 'm', len(x))
	for _, k := range keys {
		writeLength(h, 's', len(k))
		h.Write([]byte(k))
		writeCanon(h, x[k])
	}
}

// sameJSON reports whether a and b, JSON values as encoding/json reads
// them, are equal as reflect.DeepEqual says, without what DeepEqual
// allocates to follow maps and slices (which, at each level of a deeply
// nested schema, added up to hundreds of times the schema's size).
func sameJSON(a, b any) bool {
	if isRaw(a) || isRaw(b) {
		// A property of a schema held as its text (level).
		x, ok1 := a.(json.RawMessage)
		y, ok2 := b.(json.RawMessage)
		if ok1 && ok2 && bytes.Equal(x, y) {
			return true
		}
		a, b = whole(a), whole(b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !sameJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

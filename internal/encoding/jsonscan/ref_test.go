package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The reference the scanner is held to: strictjson's check as it was, a
// walk over encoding/json's tokens with a map of the keys of each open
// object. Fuzzed against Repeats and Keys (same verdict and message on
// JSON; both refuse what is not), and the baseline of their benchmarks.

// refCheckRepeats refuses a key twice in one object.
func refCheckRepeats(data []byte) error {
	return refCheckKeysWith(data, func(s string) string { return s })
}

// refCheckKeys refuses keys that fold alike too.
func refCheckKeys(data []byte) error { return refCheckKeysWith(data, Fold) }

// checkKeys is CheckKeys, with keys that fold equal refused.
func refCheckKeysWith(data []byte, fold func(string) string) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*refFrame
	for values := 0; ; {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return io.ErrUnexpectedEOF
			}
			return nil
		}
		if err != nil {
			return err
		}
		var top *refFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		} else if values++; values > 1 {
			return errors.New("more than one JSON value")
		}
		if top != nil && top.object && top.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				refEndValue(stack)
				continue
			}
			k, _ := tok.(string)
			fk := fold(k)
			if prev, dup := top.keys[fk]; dup {
				if prev == k {
					return fmt.Errorf("%w: key %q appears twice in the object at %s", ErrAmbiguous, k, top.path())
				}
				return fmt.Errorf("%w: keys %q and %q differ only in letter case in the object at %s", ErrAmbiguous, prev, k, top.path())
			}
			top.keys[fk] = k
			top.key, top.wantKey = k, false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= MaxDepth {
				return fmt.Errorf("nested deeper than %d at %s", MaxDepth, clip(top.path()))
			}
			f := &refFrame{parent: top}
			if tok == json.Delim('{') {
				f.object, f.wantKey, f.keys = true, true, map[string]string{}
			}
			stack = append(stack, f)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			refEndValue(stack)
		default:
			refEndValue(stack)
		}
	}
}

// frame is one open object or array of [CheckKeys].
type refFrame struct {
	object  bool
	wantKey bool              // objects: the next token is a key or '}'
	keys    map[string]string // objects: folded key -> key as written
	key     string            // objects: the key of the value being read
	index   int               // arrays: the index of the value being read
	parent  *refFrame         // the array or object this one is in; nil at the top
}

// path is where f is, as $.key[index]…: written only for an error, so
// that reading deeply nested JSON stays linear in its size.
func (f *refFrame) path() string {
	var parts []string
	for ; f != nil && f.parent != nil; f = f.parent {
		if f.parent.object {
			parts = append(parts, "."+f.parent.key)
		} else {
			parts = append(parts, "["+strconv.Itoa(f.parent.index)+"]")
		}
	}
	var b strings.Builder
	b.WriteString("$")
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
	}
	return b.String()
}

// refEndValue records that the innermost container read one more value.
func refEndValue(stack []*refFrame) {
	if len(stack) == 0 {
		return
	}
	if f := stack[len(stack)-1]; f.object {
		f.wantKey = true
	} else {
		f.index++
	}
}

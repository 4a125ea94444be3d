// Package strictjson decodes untrusted JSON in one canonical reading: an
// object whose keys repeat, or differ only in letter case, is refused at any
// depth, and so is anything after the value.
//
// Decoders disagree on such objects: encoding/json keeps the last of two equal
// keys and matches struct fields case-insensitively, the go-sdk's decoder
// matches them case-sensitively, a canonical form sorts both. Whatever one of
// them checks, another may act on differently; refusing the object closes
// that gap.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/runecut"
	sdkjson "github.com/segmentio/encoding/json"
)

// ErrAmbiguous is wrapped by the errors for objects whose keys repeat or
// differ only in letter case.
var ErrAmbiguous = errors.New("ambiguous JSON object")

// CheckKeys reports an error wrapping [ErrAmbiguous] when an object in data,
// at any depth, has a key twice or two keys equal under Unicode case folding
// ("To" and "to", "k" and the Kelvin sign), and a syntax error when data is
// not exactly one JSON value. Empty data passes.
func CheckKeys(data []byte) error { return checkKeys(data, Fold) }

// CheckRepeats is [CheckKeys] for JSON whose keys are read as written (as a
// person's tool arguments are sent on): only a key that appears twice in
// one object is refused; keys that differ only in letter case pass.
func CheckRepeats(data []byte) error {
	return checkKeys(data, func(s string) string { return s })
}

// checkKeys is CheckKeys, with keys that fold equal refused.
func checkKeys(data []byte, fold func(string) string) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
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
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		} else if values++; values > 1 {
			return errors.New("more than one JSON value")
		}
		if top != nil && top.object && top.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				endValue(stack)
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
			f := &frame{parent: top}
			if tok == json.Delim('{') {
				f.object, f.wantKey, f.keys = true, true, map[string]string{}
			}
			stack = append(stack, f)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			endValue(stack)
		default:
			endValue(stack)
		}
	}
}

// frame is one open object or array of [CheckKeys].
type frame struct {
	object  bool
	wantKey bool              // objects: the next token is a key or '}'
	keys    map[string]string // objects: folded key -> key as written
	key     string            // objects: the key of the value being read
	index   int               // arrays: the index of the value being read
	parent  *frame            // the array or object this one is in; nil at the top
}

// MaxDepth bounds how deeply arrays and objects nest, as encoding/json
// bounds it when it decodes.
const MaxDepth = 10000

// path is where f is, as $.key[index]…: written only for an error, so
// that reading deeply nested JSON stays linear in its size.
func (f *frame) path() string {
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

// clip is the start of a path too deep to show whole, then "…".
func clip(path string) string {
	const shown = 200
	if len(path) <= shown {
		return path
	}
	return runecut.Prefix(path, shown) + "…"
}

// endValue records that the innermost container read one more value.
func endValue(stack []*frame) {
	if len(stack) == 0 {
		return
	}
	if f := stack[len(stack)-1]; f.object {
		f.wantKey = true
	} else {
		f.index++
	}
}

// Decode checks data with [CheckKeys] and decodes it into v with
// encoding/json. Empty data decodes as {}.
func Decode(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := CheckKeys(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// DecodeAsSDK reads data into v exactly as the go-sdk reads a message
// (its decoder is github.com/segmentio/encoding/json with struct fields
// matched case-sensitively: "Method" is not "method"), after refusing what
// decoders read differently: a key twice in one object at any depth
// ([CheckRepeats]: the go-sdk keeps the last, others the first), and
// anything after the value. A check that runs before the go-sdk reads the
// same message with it, so that the check and the handler agree on what
// was sent; what it refuses must not reach the go-sdk either. Empty data
// is an error.
func DecodeAsSDK(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("no JSON value")
	}
	if err := CheckRepeats(data); err != nil {
		return err
	}
	return DecodeLikeSDK(data, v)
}

// DecodeLikeSDK reads data into v with the go-sdk's decoder, as
// [DecodeAsSDK] does, without its checks: for data already checked (by
// jsonscan.Repeats, which gives CheckRepeats' verdict in one faster pass).
func DecodeLikeSDK(data []byte, v any) error {
	dec := sdkjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// Fold returns the key under which s collides with every string equal to it
// under Unicode simple case folding: each letter becomes the smallest rune of
// its folding orbit. It is at least as broad as the case-insensitive field
// matching of encoding/json.
func Fold(s string) string {
	ascii, lower := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'a' <= c && c <= 'z' {
			lower = true
		}
	}
	if ascii {
		// The smallest rune of an ASCII letter's orbit is its upper case.
		if !lower {
			return s
		}
		return strings.ToUpper(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < least {
				least = f
			}
		}
		b.WriteRune(least)
	}
	return b.String()
}

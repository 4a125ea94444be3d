package reqstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/askback/askback/internal/strictjson"
)

// maxCanonDepth bounds the nesting of arguments, as encoding/json does.
const maxCanonDepth = 10000

// canonicalizer writes the canonical form of one JSON value in a single pass
// over its bytes, refusing what CanonicalJSON refuses: invalid JSON, trailing
// data, and objects whose keys repeat or differ only in letter case.
type canonicalizer struct {
	in    []byte
	pos   int
	out   []byte
	depth int
	// members is scratch space for the members of the objects being
	// written, shared by all levels (each level uses a suffix).
	members []member
	// tmp holds an object's values while its members are put in order.
	tmp []byte
}

// member is one member of an object while it is sorted: its decoded key and
// where its canonical value lies in the output.
type member struct {
	key        []byte
	start, end int
}

var errSyntax = errors.New("invalid JSON")

func (c *canonicalizer) fail(what string) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, c.pos, what)
}

func (c *canonicalizer) skipSpace() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// appendCanonical returns the canonical form of in appended to dst; empty
// input and null give {}.
func appendCanonical(dst, in []byte) ([]byte, error) {
	c := canonicalizers.Get().(*canonicalizer)
	defer c.release()
	c.in, c.pos, c.out, c.depth = in, 0, dst, 0
	c.skipSpace()
	if c.pos == len(in) || len(bytes.TrimSpace(in[c.pos:])) == 0 {
		return append(dst, "{}"...), nil // empty, as any white space
	}
	if err := c.value(); err != nil {
		return nil, err
	}
	c.skipSpace()
	if c.pos != len(in) {
		return nil, errors.New("trailing data after JSON value")
	}
	if string(c.out[len(dst):]) == "null" {
		return append(c.out[:len(dst)], "{}"...), nil
	}
	return c.out, nil
}

// canonicalizers recycles the scratch space of canonical forms.
var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

// Scratch space beyond these sizes (arguments far larger than usual) is
// left to the garbage collector rather than kept for the next digest.
const (
	maxPooledMembers = 256
	maxPooledBytes   = 16 << 10
)

// release forgets the input and output (the members' keys point into them)
// and returns c to the pool.
func (c *canonicalizer) release() {
	c.in, c.out = nil, nil
	if cap(c.members) > maxPooledMembers || cap(c.tmp) > maxPooledBytes {
		return
	}
	clear(c.members[:cap(c.members)])
	c.members, c.tmp = c.members[:0], c.tmp[:0]
	canonicalizers.Put(c)
}

func (c *canonicalizer) value() error {
	c.skipSpace()
	if c.pos >= len(c.in) {
		return c.fail("unexpected end")
	}
	switch b := c.in[c.pos]; {
	case b == '{':
		return c.object()
	case b == '[':
		return c.array()
	case b == '"':
		s, err := c.str()
		if err != nil {
			return err
		}
		c.out = appendString(c.out, s)
		return nil
	case b == '-' || '0' <= b && b <= '9':
		return c.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(c.in[c.pos:min(len(c.in), c.pos+5)]), lit) {
				c.pos += len(lit)
				c.out = append(c.out, lit...)
				return nil
			}
		}
		return c.fail("unexpected character")
	}
}

func (c *canonicalizer) enter() error {
	if c.depth++; c.depth > maxCanonDepth {
		return c.fail("nested too deeply")
	}
	return nil
}

func (c *canonicalizer) array() error {
	if err := c.enter(); err != nil {
		return err
	}
	c.pos++ // [
	c.out = append(c.out, '[')
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == ']' {
		c.pos++
		c.out = append(c.out, ']')
		c.depth--
		return nil
	}
	for i := 0; ; i++ {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		if err := c.value(); err != nil {
			return err
		}
		c.skipSpace()
		if c.pos >= len(c.in) {
			return c.fail("unexpected end in array")
		}
		switch c.in[c.pos] {
		case ',':
			c.pos++
		case ']':
			c.pos++
			c.out = append(c.out, ']')
			c.depth--
			return nil
		default:
			return c.fail("expected , or ] in array")
		}
	}
}

func (c *canonicalizer) object() error {
	if err := c.enter(); err != nil {
		return err
	}
	c.pos++ // {
	base := len(c.members)
	// Values are written after the current output, then moved into place
	// in key order.
	mark := len(c.out)
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, "{}"...)
		c.depth--
		return nil
	}
	for {
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return c.fail("expected a key")
		}
		key, err := c.str()
		if err != nil {
			return err
		}
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return c.fail("expected :")
		}
		c.pos++
		start := len(c.out)
		if err := c.value(); err != nil {
			return err
		}
		c.members = append(c.members, member{key: key, start: start, end: len(c.out)})
		c.skipSpace()
		if c.pos >= len(c.in) {
			return c.fail("unexpected end in object")
		}
		if c.in[c.pos] == ',' {
			c.pos++
			continue
		}
		if c.in[c.pos] != '}' {
			return c.fail("expected , or } in object")
		}
		c.pos++
		break
	}
	ms := c.members[base:]
	if err := checkKeys(ms); err != nil {
		return err
	}
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	c.tmp = append(c.tmp[:0], c.out[mark:]...)
	values := c.tmp
	c.out = append(c.out[:mark], '{')
	for i, m := range ms {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = appendString(c.out, m.key)
		c.out = append(c.out, ':')
		c.out = append(c.out, values[m.start-mark:m.end-mark]...)
	}
	c.out = append(c.out, '}')
	c.members = c.members[:base]
	c.depth--
	return nil
}

// checkKeys refuses members whose keys repeat or differ only in letter case.
// Small objects are compared pairwise; larger ones through their folded keys,
// so that an object of many keys costs time linear in its size, not
// quadratic.
func checkKeys(ms []member) error {
	if len(ms) <= 16 {
		for i := 1; i < len(ms); i++ {
			for j := 0; j < i; j++ {
				if bytes.EqualFold(ms[i].key, ms[j].key) {
					return ambiguousKeys(ms[j].key, ms[i].key)
				}
			}
		}
		return nil
	}
	seen := make(map[string][]byte, len(ms))
	for _, m := range ms {
		f := strictjson.Fold(string(m.key))
		if prev, dup := seen[f]; dup {
			return ambiguousKeys(prev, m.key)
		}
		seen[f] = m.key
	}
	return nil
}

// ambiguousKeys is the refusal of two keys of one object that are equal
// under case folding.
func ambiguousKeys(a, b []byte) error {
	if bytes.Equal(a, b) {
		return fmt.Errorf("%w: key %q appears twice in an object", ErrAmbiguousArguments, a)
	}
	return fmt.Errorf("%w: keys %q and %q differ only in letter case", ErrAmbiguousArguments, a, b)
}

// str reads a JSON string and returns its decoded value (for a string without
// escapes and non-ASCII, a slice of the input).
func (c *canonicalizer) str() ([]byte, error) {
	start := c.pos + 1
	plain := true
	i := start
	for ; i < len(c.in); i++ {
		b := c.in[i]
		if b == '"' {
			break
		}
		if b == '\\' {
			plain = false
			i++
			continue
		}
		if b < 0x20 {
			c.pos = i
			return nil, c.fail("control character in string")
		}
		if b >= utf8.RuneSelf {
			plain = false
		}
	}
	if i >= len(c.in) {
		c.pos = i
		return nil, c.fail("unterminated string")
	}
	raw := c.in[c.pos : i+1]
	c.pos = i + 1
	if plain {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%w: %v", errSyntax, err)
	}
	return []byte(s), nil
}

// number copies a JSON number, checked against the grammar, in canonical form.
func (c *canonicalizer) number() error {
	start := c.pos
	i := c.pos
	if c.in[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(c.in) && '0' <= c.in[i] && c.in[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(c.in) && c.in[i] == '0' {
		i++
	} else if digits() == 0 {
		c.pos = i
		return c.fail("invalid number")
	}
	if i < len(c.in) && c.in[i] == '.' {
		i++
		if digits() == 0 {
			c.pos = i
			return c.fail("invalid number")
		}
	}
	if i < len(c.in) && (c.in[i] == 'e' || c.in[i] == 'E') {
		i++
		if i < len(c.in) && (c.in[i] == '+' || c.in[i] == '-') {
			i++
		}
		if digits() == 0 {
			c.pos = i
			return c.fail("invalid number")
		}
	}
	c.pos = i
	n := c.in[start:i]
	if len(n) <= 21 && !bytes.ContainsAny(n, ".eE") && string(n) != "-0" {
		c.out = append(c.out, n...) // an integer canonicalNumber writes as it is
		return nil
	}
	cn, err := canonicalNumber(json.Number(n))
	if err != nil {
		return err
	}
	c.out = append(c.out, cn...)
	return nil
}

// appendString writes s as encoding/json writes it with HTML escaping off.
func appendString(dst []byte, s []byte) []byte {
	simple := true
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == '"' || b == '\\' || b >= utf8.RuneSelf {
			simple = false
			break
		}
	}
	if simple {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(s)) // a string always encodes
	return append(dst, strings.TrimSuffix(buf.String(), "\n")...)
}

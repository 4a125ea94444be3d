package reqstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/askback/askback/internal/encoding/jsonscan"
)

// The canonical form and its check as reqstate wrote them before they
// became modes of jsonscan's scanner (jsonscan.Canonical), kept as what
// the scanner is held to (FuzzArgsDigestAsBefore: the same digests, so
// that every state issued before still opens) and as the baseline of
// BenchmarkArgsDigest.

// formerArgsDigest is ArgsDigest as it was.
func formerArgsDigest(raw []byte) (string, error) {
	if formerIsCanonical(raw) {
		return digestOf(raw), nil
	}
	buf := canonBuffers.Get().(*[]byte)
	defer canonBuffers.Put(buf)
	c, err := formerAppendCanonical((*buf)[:0], raw)
	if err != nil {
		return "", err
	}
	if cap(c) <= formerMaxPooledBytes {
		*buf = c
	} else {
		*buf = make([]byte, 0, 512)
	}
	return digestOf(c), nil
}

// formerMaxCanonDepth bounds the nesting of arguments, as encoding/json does.
const formerMaxCanonDepth = 10000

// formerCanonicalizer writes the canonical form of one JSON value in a single pass
// over its bytes, refusing what CanonicalJSON refuses: invalid JSON, trailing
// data, and objects whose keys repeat or differ only in letter case.
type formerCanonicalizer struct {
	in    []byte
	pos   int
	out   []byte
	depth int
	// members is scratch space for the members of the objects being
	// written, shared by all levels (each level uses a suffix).
	members []formerMember
	// tmp holds an object's values while its members are put in order.
	tmp []byte
}

// formerMember is one formerMember of an object while it is sorted: its decoded key and
// where its canonical value lies in the output.
type formerMember struct {
	key        []byte
	start, end int
}

var errFormerSyntax = errors.New("invalid JSON")

func (c *formerCanonicalizer) fail(what string) error {
	return fmt.Errorf("%w at byte %d: %s", errFormerSyntax, c.pos, what)
}

func (c *formerCanonicalizer) skipSpace() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// formerAppendCanonical returns the canonical form of in appended to dst; empty
// input and null give {}.
func formerAppendCanonical(dst, in []byte) ([]byte, error) {
	c := formerCanonicalizers.Get().(*formerCanonicalizer)
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

// formerCanonicalizers recycles the scratch space of canonical forms.
var formerCanonicalizers = sync.Pool{New: func() any { return new(formerCanonicalizer) }}

// Scratch space beyond these sizes (arguments far larger than usual) is
// left to the garbage collector rather than kept for the next digest.
const (
	formerMaxPooledMembers = 256
	formerMaxPooledBytes   = 16 << 10
)

// release forgets the input and output (the members' keys point into them)
// and returns c to the pool.
func (c *formerCanonicalizer) release() {
	c.in, c.out = nil, nil
	if cap(c.members) > formerMaxPooledMembers || cap(c.tmp) > formerMaxPooledBytes {
		return
	}
	clear(c.members[:cap(c.members)])
	c.members, c.tmp = c.members[:0], c.tmp[:0]
	formerCanonicalizers.Put(c)
}

func (c *formerCanonicalizer) value() error {
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
		c.out = formerAppendString(c.out, s)
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

func (c *formerCanonicalizer) enter() error {
	if c.depth++; c.depth > formerMaxCanonDepth {
		return c.fail("nested too deeply")
	}
	return nil
}

func (c *formerCanonicalizer) array() error {
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

func (c *formerCanonicalizer) object() error {
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
		c.members = append(c.members, formerMember{key: key, start: start, end: len(c.out)})
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
	if err := formerCheckKeys(ms); err != nil {
		return err
	}
	slices.SortFunc(ms, func(a, b formerMember) int { return bytes.Compare(a.key, b.key) })
	c.tmp = append(c.tmp[:0], c.out[mark:]...)
	values := c.tmp
	c.out = append(c.out[:mark], '{')
	for i, m := range ms {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = formerAppendString(c.out, m.key)
		c.out = append(c.out, ':')
		c.out = append(c.out, values[m.start-mark:m.end-mark]...)
	}
	c.out = append(c.out, '}')
	c.members = c.members[:base]
	c.depth--
	return nil
}

// formerCheckKeys refuses members whose keys repeat or differ only in letter case.
// Small objects are compared pairwise; larger ones through their folded keys,
// so that an object of many keys costs time linear in its size, not
// quadratic.
func formerCheckKeys(ms []formerMember) error {
	if len(ms) <= 16 {
		for i := 1; i < len(ms); i++ {
			for j := 0; j < i; j++ {
				if bytes.EqualFold(ms[i].key, ms[j].key) {
					return formerAmbiguousKeys(ms[j].key, ms[i].key)
				}
			}
		}
		return nil
	}
	seen := make(map[string][]byte, len(ms))
	for _, m := range ms {
		f := jsonscan.Fold(string(m.key))
		if prev, dup := seen[f]; dup {
			return formerAmbiguousKeys(prev, m.key)
		}
		seen[f] = m.key
	}
	return nil
}

// formerAmbiguousKeys is the refusal of two keys of one object that are equal
// under case folding.
func formerAmbiguousKeys(a, b []byte) error {
	if bytes.Equal(a, b) {
		return fmt.Errorf("%w: key %q appears twice in an object", ErrAmbiguousArguments, a)
	}
	return fmt.Errorf("%w: keys %q and %q differ only in letter case", ErrAmbiguousArguments, a, b)
}

// str reads a JSON string and returns its decoded value (for a string without
// escapes and non-ASCII, a slice of the input).
func (c *formerCanonicalizer) str() ([]byte, error) {
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
		return nil, fmt.Errorf("%w: %v", errFormerSyntax, err)
	}
	return []byte(s), nil
}

// number copies a JSON number, checked against the grammar, in canonical form.
func (c *formerCanonicalizer) number() error {
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
		c.out = append(c.out, n...) // an integer formerCanonicalNumber writes as it is
		return nil
	}
	cn, err := formerCanonicalNumber(json.Number(n))
	if err != nil {
		return err
	}
	c.out = append(c.out, cn...)
	return nil
}

// formerAppendString writes s as encoding/json writes it with HTML escaping off.
func formerAppendString(dst []byte, s []byte) []byte {
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

// formerIsCanonical reports whether in is already in canonical form, so that its
// digest can be taken without writing the form out again: no white space,
// object keys in strictly increasing byte order (at most 16 per object, no
// two equal under case folding), strings of printable ASCII without
// escapes, integers as formerCanonicalNumber writes them, and no null or empty
// input (whose canonical form is {}). It answers false whenever it is not
// sure; the full formerCanonicalizer then decides. When it answers true,
// formerAppendCanonical(nil, in) is exactly in (FuzzCanonicalFastPath holds it to
// that), so a wrong "false" costs time and nothing else.
func formerIsCanonical(in []byte) bool {
	if len(in) == 0 || string(in) == "null" {
		return false
	}
	n, ok := formerCanonicalValue(in, 0, 0)
	return ok && n == len(in)
}

// formerMaxFastDepth is the nesting the fast check follows; deeper values go to
// the formerCanonicalizer.
const formerMaxFastDepth = 32

// formerCanonicalValue checks the canonical value at in[i:] and returns where it
// ends.
func formerCanonicalValue(in []byte, i, depth int) (int, bool) {
	if i >= len(in) || depth > formerMaxFastDepth {
		return 0, false
	}
	switch c := in[i]; {
	case c == '{':
		return formerCanonicalObject(in, i+1, depth+1)
	case c == '[':
		i++
		if i < len(in) && in[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = formerCanonicalValue(in, i, depth+1); !ok || i >= len(in) {
				return 0, false
			}
			switch in[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == '"':
		end, ok := formerPlainString(in, i)
		return end, ok
	case c == '-' || '0' <= c && c <= '9':
		return formerCanonicalInteger(in, i)
	case bytes.HasPrefix(in[i:], []byte("true")):
		return i + 4, true
	case bytes.HasPrefix(in[i:], []byte("false")):
		return i + 5, true
	case bytes.HasPrefix(in[i:], []byte("null")):
		return i + 4, true
	}
	return 0, false
}

// formerCanonicalObject checks the members of an object whose '{' ends at i.
func formerCanonicalObject(in []byte, i, depth int) (int, bool) {
	if i < len(in) && in[i] == '}' {
		return i + 1, true
	}
	var keys [16][]byte
	for k := 0; ; k++ {
		if k == len(keys) || i >= len(in) || in[i] != '"' {
			return 0, false
		}
		end, ok := formerPlainString(in, i)
		if !ok {
			return 0, false
		}
		key := in[i+1 : end-1]
		if k > 0 && bytes.Compare(keys[k-1], key) >= 0 {
			return 0, false
		}
		for _, prev := range keys[:k] {
			if bytes.EqualFold(prev, key) {
				return 0, false
			}
		}
		keys[k] = key
		if end >= len(in) || in[end] != ':' {
			return 0, false
		}
		if i, ok = formerCanonicalValue(in, end+1, depth); !ok || i >= len(in) {
			return 0, false
		}
		switch in[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// formerPlainString checks the string opening at in[i] for bytes that the
// canonical form writes as they are (printable ASCII, no quote or
// backslash) and returns where it ends, after its closing quote.
func formerPlainString(in []byte, i int) (int, bool) {
	for i++; i < len(in); i++ {
		switch c := in[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return 0, false
		}
	}
	return 0, false
}

// formerCanonicalInteger checks the number at in[i:] for an integer written as
// formerCanonicalNumber writes it: no fraction or exponent, no leading zero, not
// -0, at most 21 characters.
func formerCanonicalInteger(in []byte, i int) (int, bool) {
	start := i
	if in[i] == '-' {
		i++
	}
	d := i
	for i < len(in) && '0' <= in[i] && in[i] <= '9' {
		i++
	}
	switch {
	case i == d, in[d] == '0' && (i-d > 1 || d > start), i-start > 21:
		return 0, false // no digits, a leading zero, -0, too long
	case i < len(in) && (in[i] == '.' || in[i] == 'e' || in[i] == 'E'):
		return 0, false
	}
	return i, true
}

// formerCanonicalNumber writes a JSON number (already checked against the grammar)
// in one spelling per exact decimal value: 1, 1.0, 10e-1 and 1e0 are written
// alike, as are -0 and 0, but two numbers whose decimal values differ never
// are, however close their float64 values (9007199254740993.0 and
// 9007199254740992.0, 0.1 and 0.10000000000000000001): a handler that decodes
// numbers exactly (json.Number, big.Float, a decimal type) sees the number
// the digest was made of. Integers up to 21 digits are written as integers,
// other values as a decimal fraction (up to 21 zeros after the point) or as a
// coefficient and an exponent; nothing is expanded, so 1e999999999 costs no
// more than its spelling. An exponent of more than formerMaxExponentDigits digits
// is refused.
func formerCanonicalNumber(n json.Number) (string, error) {
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0", nil
	}
	// The value is digits × 10^e.
	e := new(big.Int)
	if exp != "" {
		if len(strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")) > formerMaxExponentDigits {
			return "", fmt.Errorf("%w: the exponent of a number has more than %d digits", errFormerSyntax, formerMaxExponentDigits)
		}
		e.SetString(strings.TrimPrefix(exp, "+"), 10) // the grammar was checked
	}
	e.Sub(e, big.NewInt(int64(len(frac))))
	trimmed := strings.TrimRight(digits, "0")
	e.Add(e, big.NewInt(int64(len(digits)-len(trimmed))))
	digits = trimmed
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if e.Sign() >= 0 && e.IsInt64() && int64(len(digits))+e.Int64() <= 21 {
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", int(e.Int64())))
		return b.String(), nil
	}
	if e.Sign() < 0 && e.IsInt64() && -e.Int64() <= int64(len(digits))+21 {
		point := len(digits) + int(e.Int64()) // digits before the point
		if point > 0 {
			b.WriteString(digits[:point])
		} else {
			b.WriteString("0")
		}
		b.WriteByte('.')
		b.WriteString(strings.Repeat("0", max(0, -point)))
		b.WriteString(digits[max(0, point):])
		return b.String(), nil
	}
	// d.ddd × 10^(e + len(digits) - 1)
	e.Add(e, big.NewInt(int64(len(digits)-1)))
	b.WriteString(digits[:1])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('e')
	b.WriteString(e.String())
	return b.String(), nil
}

// formerMaxExponentDigits bounds the exponent of a number in arguments: no decoder
// represents a number beyond it, and reading longer ones costs more than
// their size.
const formerMaxExponentDigits = 1000

// The plan's reader of a payload as it was before it read with
// jsonscan.Members: the baseline of BenchmarkPayloadRead.

// a formerAssignment read holds until the whole payload has checked out.
type formerAssignment struct {
	f          *planField
	start, end int // a string's bytes
	i          int64
	u          uint64
	b          bool
}

// read sets the fields of v from data if data is in the form append writes
// (keys in field order, some left out), and reports whether it was. It sets
// nothing when it was not.
func (p *plan) formerRead(data []byte, v reflect.Value) bool {
	var as [maxPlanFields]formerAssignment
	n, ok := p.formerCheck(data, &as)
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
func (p *plan) formerCheck(data []byte, as *[maxPlanFields]formerAssignment) (int, bool) {
	if len(data) < 2 || data[0] != '{' {
		return 0, false
	}
	if len(data) == 2 {
		return 0, data[1] == '}'
	}
	i, next, count := 1, 0, 0
	for {
		j, at, ok := p.formerKey(data, i, next)
		if !ok {
			return 0, false
		}
		a := &as[count]
		*a = formerAssignment{f: &p.fields[j]}
		count++
		next = j + 1
		n, ok := a.formerValue(data, at)
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
func (p *plan) formerKey(data []byte, i, next int) (field, value int, ok bool) {
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
func (a *formerAssignment) formerValue(data []byte, i int) (int, bool) {
	switch a.f.kind {
	case reflect.String:
		return a.formerText(data, i)
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
	return a.formerInteger(data, i)
}

// text reads a string of plain bytes (no escapes, nothing outside
// printable ASCII) at data[i].
func (a *formerAssignment) formerText(data []byte, i int) (int, bool) {
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
func (a *formerAssignment) formerInteger(data []byte, i int) (int, bool) {
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

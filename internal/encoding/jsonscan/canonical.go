package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Canonical appends the canonical form of data, exactly one JSON value, to
// dst, in the same one pass that checks it as [Keys] does: object keys
// sorted by their decoded bytes, no insignificant white space, numbers
// written by their exact decimal value (CanonicalNumber), strings as
// encoding/json writes them with HTML escaping off. What Keys refuses has
// no canonical form: the first key twice or two keys that fold alike, in
// an object at any depth, is an error wrapping [ErrAmbiguous]; data that is
// not exactly one JSON value (empty data too) is an error wrapping
// [ErrSyntax], and so is a number with an exponent of more than
// MaxExponentDigits digits. Whichever comes first in data is told.
//
// It is the canonical form of reqstate's argument digests: the bytes it
// writes are a wire format, and do not change.
func Canonical(dst, data []byte) ([]byte, error) {
	s := newScanner(data, true)
	defer s.release()
	s.fold, s.anyName = true, true
	s.canon, s.out = true, dst
	err := s.alone(s.value(nil))
	switch {
	case s.caseErr != nil:
		return nil, s.caseErr
	case s.repeat != nil:
		return nil, s.repeat
	case err != nil:
		return nil, err
	}
	return s.out, nil
}

// member is one member of an object being written in canonical form: its
// decoded key and where `"key":value` lies in the output.
type member struct {
	key        []byte
	start, end int
}

// errStop ends a canonical pass at its first ambiguous key; Canonical
// returns the key's error.
var errStop = errors.New("stop")

// canonString writes the string at sp (its contents) in canonical form.
func (s *scanner) canonString(sp span) {
	if sp.plain && !sp.high {
		// No escapes, no control character, quote or backslash: written as
		// it is.
		s.out = append(s.out, s.data[sp.start-1:sp.end+1]...)
		return
	}
	s.out = appendString(s.out, []byte(s.text(sp)))
}

// canonNumber writes the number at data[start:s.pos] in canonical form.
func (s *scanner) canonNumber(start int) error {
	n := s.data[start:s.pos]
	if len(n) <= 21 && !bytes.ContainsAny(n, ".eE") && string(n) != "-0" {
		s.out = append(s.out, n...) // an integer CanonicalNumber writes as it is
		return nil
	}
	cn, err := CanonicalNumber(string(n))
	if err != nil {
		return err
	}
	s.out = append(s.out, cn...)
	return nil
}

// canonKey starts a member of an object written in canonical form: its
// key, then a colon.
func (s *scanner) canonKey(key span) {
	k := s.data[key.start:key.end]
	if !key.plain {
		k = []byte(s.text(key))
	}
	s.members = append(s.members, member{key: k, start: len(s.out)})
	s.canonString(key)
	s.out = append(s.out, ':')
}

// canonClose ends an object written in canonical form whose members start
// at s.members[base] and whose '{' is at s.out[open]: the members are put
// in the order of their keys, unless they came in it.
func (s *scanner) canonClose(base, open int) {
	ms := s.members[base:]
	sorted := true
	for i := 1; i < len(ms); i++ {
		if bytes.Compare(ms[i-1].key, ms[i].key) > 0 {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		s.tmp = append(s.tmp[:0], s.out[open+1:]...)
		s.out = s.out[:open+1]
		for i, m := range ms {
			if i > 0 {
				s.out = append(s.out, ',')
			}
			s.out = append(s.out, s.tmp[m.start-open-1:m.end-open-1]...)
		}
	}
	s.out = append(s.out, '}')
	clear(ms) // the keys point into data
	s.members = s.members[:base]
}

// appendString writes s as encoding/json writes it with HTML escaping off.
func appendString(dst []byte, s []byte) []byte {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(s)) // a string always encodes
	return append(dst, strings.TrimSuffix(buf.String(), "\n")...)
}

// MaxExponentDigits bounds the exponent of a number in canonical form: no
// decoder represents a number beyond it, and reading longer ones costs
// more than their size.
const MaxExponentDigits = 1000

// CanonicalNumber writes a JSON number (already checked against the
// grammar) in one spelling per exact decimal value: 1, 1.0, 10e-1 and 1e0
// are written alike, as are -0 and 0, but two numbers whose decimal values
// differ never are, however close their float64 values
// (9007199254740993.0 and 9007199254740992.0, 0.1 and
// 0.10000000000000000001): a handler that decodes numbers exactly
// (json.Number, big.Float, a decimal type) sees the number the digest was
// made of. Integers up to 21 digits are written as integers, other values
// as a decimal fraction (up to 21 zeros after the point) or as a
// coefficient and an exponent; nothing is expanded, so 1e999999999 costs no
// more than its spelling. An exponent of more than MaxExponentDigits digits
// is refused with an error wrapping ErrSyntax.
func CanonicalNumber(s string) (string, error) {
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
		if len(strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")) > MaxExponentDigits {
			return "", fmt.Errorf("%w: the exponent of a number has more than %d digits", ErrSyntax, MaxExponentDigits)
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
		writeFraction(&b, digits, len(digits)+int(e.Int64()))
		return b.String(), nil
	}
	writeScientific(&b, digits, e)
	return b.String(), nil
}

// writeFraction writes digits as a decimal fraction with point digits
// before the point (zeros after it first, when point is not positive).
func writeFraction(b *strings.Builder, digits string, point int) {
	if point > 0 {
		b.WriteString(digits[:point])
	} else {
		b.WriteString("0")
	}
	b.WriteByte('.')
	b.WriteString(strings.Repeat("0", max(0, -point)))
	b.WriteString(digits[max(0, point):])
}

// writeScientific writes digits × 10^e as d.ddd, e and the exponent.
func writeScientific(b *strings.Builder, digits string, e *big.Int) {
	// d.ddd × 10^(e + len(digits) - 1)
	e.Add(e, big.NewInt(int64(len(digits)-1)))
	b.WriteString(digits[:1])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('e')
	b.WriteString(e.String())
}

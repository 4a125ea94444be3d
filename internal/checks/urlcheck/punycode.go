package urlcheck

import (
	"errors"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Parameters of the punycode bootstring (RFC 3492, section 5).
const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
	// maxLabel is the longest DNS label; longer input is refused before decoding.
	maxLabel = 63
)

var errPunycode = errors.New("invalid punycode")

// decodePunycode decodes the part of a label after "xn--" (RFC 3492, section 6.2). A
// label that encodes no non-ASCII code point is refused.
func decodePunycode(s string) (string, error) {
	if s == "" || len(s) > maxLabel {
		return "", errPunycode
	}
	out, rest, err := punyBasic(s)
	if err != nil {
		return "", err
	}
	n, bias, i := pcInitialN, pcInitialBias, 0
	for pos := 0; pos < len(rest); {
		oldI := i
		if i, pos, err = punyDelta(rest, pos, i, bias); err != nil {
			return "", err
		}
		count := len(out) + 1
		bias = adaptBias(i-oldI, count, oldI == 0)
		if i/count > math.MaxInt32-n {
			return "", errPunycode
		}
		n += i / count
		i %= count
		if n > utf8.MaxRune || (n >= 0xD800 && n <= 0xDFFF) || n < pcInitialN {
			return "", errPunycode
		}
		out = slices.Insert(out, i, rune(n))
		i++
		if len(out) > maxLabel {
			return "", errPunycode
		}
	}
	if !slices.ContainsFunc(out, func(r rune) bool { return r >= pcInitialN }) {
		// Nothing was encoded: not a valid A-label, whatever a lenient decoder says.
		return "", errPunycode
	}
	return string(out), nil
}

// punyBasic splits s at its last '-' into the basic code points before it,
// which must be ASCII, and the encoded rest; without a '-', all of s is
// the rest.
func punyBasic(s string) (basic []rune, rest string, err error) {
	i := strings.LastIndexByte(s, '-')
	if i < 0 {
		return nil, s, nil
	}
	for _, c := range s[:i] {
		if c >= 0x80 {
			return nil, "", errPunycode
		}
		basic = append(basic, c)
	}
	return basic, s[i+1:], nil
}

// punyDelta reads the variable-length integer of rest at pos, adds it to
// i (RFC 3492, section 6.2, the inner loop), and returns i and the
// position after the integer. An integer cut short or that overflows is
// an error.
func punyDelta(rest string, pos, i, bias int) (int, int, error) {
	w := 1
	for k := pcBase; ; k += pcBase {
		if pos >= len(rest) {
			return 0, 0, errPunycode
		}
		d, ok := punyDigit(rest[pos])
		pos++
		if !ok || d > (math.MaxInt32-i)/w {
			return 0, 0, errPunycode
		}
		i += d * w
		t := min(max(k-bias, pcTMin), pcTMax)
		if d < t {
			return i, pos, nil
		}
		if w > math.MaxInt32/(pcBase-t) {
			return 0, 0, errPunycode
		}
		w *= pcBase - t
	}
}

func punyDigit(c byte) (int, bool) {
	switch {
	case c >= 'a' && c <= 'z':
		return int(c - 'a'), true
	case c >= 'A' && c <= 'Z':
		return int(c - 'A'), true
	case c >= '0' && c <= '9':
		return int(c-'0') + 26, true
	}
	return 0, false
}

func adaptBias(delta, numPoints int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}

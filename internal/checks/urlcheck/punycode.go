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
	var out []rune
	rest := s
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		for _, c := range s[:i] {
			if c >= 0x80 {
				return "", errPunycode
			}
			out = append(out, c)
		}
		rest = s[i+1:]
	}
	n, bias, i := pcInitialN, pcInitialBias, 0
	for pos := 0; pos < len(rest); {
		oldI, w := i, 1
		for k := pcBase; ; k += pcBase {
			if pos >= len(rest) {
				return "", errPunycode
			}
			d, ok := punyDigit(rest[pos])
			pos++
			if !ok {
				return "", errPunycode
			}
			if d > (math.MaxInt32-i)/w {
				return "", errPunycode
			}
			i += d * w
			t := k - bias
			if t < pcTMin {
				t = pcTMin
			} else if t > pcTMax {
				t = pcTMax
			}
			if d < t {
				break
			}
			if w > math.MaxInt32/(pcBase-t) {
				return "", errPunycode
			}
			w *= pcBase - t
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
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = rune(n)
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

package reqstate

import "bytes"

// isCanonical reports whether in is already in canonical form, so that its
// digest can be taken without writing the form out again: no white space,
// object keys in strictly increasing byte order (at most 16 per object, no
// two equal under case folding), strings of printable ASCII without
// escapes, integers as canonicalNumber writes them, and no null or empty
// input (whose canonical form is {}). It answers false whenever it is not
// sure; the full canonicalizer then decides. When it answers true,
// appendCanonical(nil, in) is exactly in (FuzzCanonicalFastPath holds it to
// that), so a wrong "false" costs time and nothing else.
func isCanonical(in []byte) bool {
	if len(in) == 0 || string(in) == "null" {
		return false
	}
	n, ok := canonicalValue(in, 0, 0)
	return ok && n == len(in)
}

// maxFastDepth is the nesting the fast check follows; deeper values go to
// the canonicalizer.
const maxFastDepth = 32

// canonicalValue checks the canonical value at in[i:] and returns where it
// ends.
func canonicalValue(in []byte, i, depth int) (int, bool) {
	if i >= len(in) || depth > maxFastDepth {
		return 0, false
	}
	switch c := in[i]; {
	case c == '{':
		return canonicalObject(in, i+1, depth+1)
	case c == '[':
		i++
		if i < len(in) && in[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = canonicalValue(in, i, depth+1); !ok || i >= len(in) {
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
		end, ok := plainString(in, i)
		return end, ok
	case c == '-' || '0' <= c && c <= '9':
		return canonicalInteger(in, i)
	case bytes.HasPrefix(in[i:], []byte("true")):
		return i + 4, true
	case bytes.HasPrefix(in[i:], []byte("false")):
		return i + 5, true
	case bytes.HasPrefix(in[i:], []byte("null")):
		return i + 4, true
	}
	return 0, false
}

// canonicalObject checks the members of an object whose '{' ends at i.
func canonicalObject(in []byte, i, depth int) (int, bool) {
	if i < len(in) && in[i] == '}' {
		return i + 1, true
	}
	var keys [16][]byte
	for k := 0; ; k++ {
		if k == len(keys) || i >= len(in) || in[i] != '"' {
			return 0, false
		}
		end, ok := plainString(in, i)
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
		if i, ok = canonicalValue(in, end+1, depth); !ok || i >= len(in) {
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

// plainString checks the string opening at in[i] for bytes that the
// canonical form writes as they are (printable ASCII, no quote or
// backslash) and returns where it ends, after its closing quote.
func plainString(in []byte, i int) (int, bool) {
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

// canonicalInteger checks the number at in[i:] for an integer written as
// canonicalNumber writes it: no fraction or exponent, no leading zero, not
// -0, at most 21 characters.
func canonicalInteger(in []byte, i int) (int, bool) {
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

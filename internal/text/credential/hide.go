package credential

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Hider hides secrets in text in every spelling a server can echo them
// in: as written; JSON-escaped (\uXXXX with either case of hex digits, a
// surrogate pair, \" \\ \/ and the short escapes \b \f \n \r \t, with any
// number of backslashes in front, as in JSON inside a JSON string);
// percent-encoded (%XX with either case, + for a space); XML and HTML
// character references (&#34; &#x22; &quot; &amp; &lt; &gt; &apos;, as a
// JUnit report writes them); and any mix of these from one character to
// the next ("ab\u0063%64ef" is "abcdef"). Its base64 encodings (standard
// and URL alphabets, padded or not) are hidden too, alone or inside a longer
// encoded text at any of the three alignments: the characters that encode
// the secret's bytes alone (all but at most two bytes at each end, which
// share their characters with what surrounds them).
// Each spelling is replaced by [Hidden]. The zero Hider hides nothing.
//
// It cannot hide what it cannot see: a secret split between two texts
// given to Hide separately, or transformed in another way (named HTML
// entities beyond the five of XML, reversed, in another letter case, cut to
// a part, another encoding).
type Hider struct {
	secrets []string // longest first
	starts  [256]bool
	literal *strings.Replacer
}

// NewHider returns a Hider of secrets; secrets shorter than [MinSecret]
// are left out (they would hide ordinary words), and so are repeats.
func NewHider(secrets []string) *Hider {
	h := &Hider{}
	seen := map[string]bool{}
	for _, s := range secrets {
		if len(s) < MinSecret {
			continue
		}
		for _, v := range append([]string{s}, base64Spellings(s)...) {
			if len(v) >= MinSecret && !seen[v] {
				seen[v] = true
				h.secrets = append(h.secrets, v)
			}
		}
	}
	// The longest first, so that a secret that holds another is hidden
	// whole.
	sort.SliceStable(h.secrets, func(i, j int) bool { return len(h.secrets[i]) > len(h.secrets[j]) })
	var pairs []string
	for _, s := range h.secrets {
		h.starts[s[0]] = true
		pairs = append(pairs, s, Hidden)
	}
	if len(pairs) > 0 {
		h.literal = strings.NewReplacer(pairs...)
	}
	h.starts['\\'], h.starts['%'], h.starts['&'] = true, true, true
	return h
}

// base64Spellings returns the base64 texts that encode s wherever it stands
// in the encoded bytes: for each alignment (s starting at a byte offset of
// 0, 1 or 2 in a group of three) and alphabet (standard, URL), the
// characters that depend on s's bytes alone; for s encoded alone, also its
// padded encoding.
func base64Spellings(s string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString([]byte(s)))
		for k := 0; k < 3; k++ {
			buf := append(make([]byte, k), s...)
			whole := len(buf) / 3 * 3
			e := enc.EncodeToString(buf[:whole])
			// The first characters of an offset group hold bits of the
			// bytes before s: 2 of them at offset 1, 3 at offset 2.
			skip := [3]int{0, 2, 3}[k]
			if len(e) > skip {
				out = append(out, e[skip:])
			}
		}
	}
	return out
}

// Empty reports whether h hides nothing.
func (h *Hider) Empty() bool { return h == nil || len(h.secrets) == 0 }

// Hide returns text with every spelling of each secret replaced by
// [Hidden].
func (h *Hider) Hide(text string) string {
	if h.Empty() {
		return text
	}
	if !strings.ContainsAny(text, `\%+&`) {
		// Nothing is escaped: only the secrets as written can be there.
		return h.literal.Replace(text)
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(text); i++ {
		if !h.mayStart(text, i) {
			continue
		}
		if end := h.matchAny(text, i); end > i {
			b.WriteString(text[done:i])
			b.WriteString(Hidden)
			done = end
			i = end - 1
		}
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// mayStart reports whether a spelling of a secret may begin at text[i]:
// its byte begins one, and it is not inside a run of backslashes.
func (h *Hider) mayStart(text string, i int) bool {
	if !h.starts[text[i]] && text[i] != '+' {
		return false
	}
	return text[i] != '\\' || i == 0 || text[i-1] != '\\'
}

// matchAny returns where the spelling of the first secret that begins at
// text[i] ends, or -1.
func (h *Hider) matchAny(text string, i int) int {
	for _, s := range h.secrets {
		if end := match(text, i, s); end > i {
			return end
		}
	}
	return -1
}

// match returns where a spelling of secret that begins at text[i] ends,
// or -1.
func match(text string, i int, secret string) int {
	budget := maxSteps + 4*len(secret)
	return matchFrom(text, i, secret, &budget)
}

// maxSteps (and four steps a byte of the secret) bound the work of one
// match: a secret with many backslashes
// against a text with long runs of them could otherwise take exponential
// time (each run may be split between a backslash and an escape).
const maxSteps = 1024

func matchFrom(text string, i int, secret string, budget *int) int {
	for secret != "" {
		if *budget--; *budget < 0 {
			return -1
		}
		r, n := utf8.DecodeRuneInString(secret)
		if r == '\\' {
			// A backslash may be written as a run of them (escaped at
			// some depth): try each length, the longest first.
			for k := backslashesEnd(text, i); k > i; k-- {
				if end := matchFrom(text, k, secret[n:], budget); end >= 0 {
					return end
				}
			}
			return -1
		}
		j := matchRune(text, i, r)
		if j < 0 {
			return -1
		}
		i, secret = j, secret[n:]
	}
	return i
}

// matchRune returns where a spelling of r that begins at text[i] ends, or
// -1.
func matchRune(text string, i int, r rune) int {
	if i >= len(text) {
		return -1
	}
	var buf [utf8.UTFMax]byte
	enc := buf[:utf8.EncodeRune(buf[:], r)]
	if strings.HasPrefix(text[i:], string(enc)) {
		return i + len(enc)
	}
	switch text[i] {
	case '+':
		if r == ' ' {
			return i + 1
		}
	case '%':
		return matchPercent(text, i, enc)
	case '\\':
		return matchEscape(text, i, r)
	case '&':
		return matchReference(text, i, r)
	}
	return -1
}

// matchPercent matches the percent-encoding of the UTF-8 bytes enc at
// text[i], each byte written %XX.
func matchPercent(text string, i int, enc []byte) int {
	j := i
	for _, c := range enc {
		if j+2 >= len(text) || text[j] != '%' {
			return -1
		}
		v, ok := hexByte(text[j+1], text[j+2])
		if !ok || v != c {
			return -1
		}
		j += 3
	}
	return j
}

// matchReference matches an XML or HTML character reference to r at
// text[i], which is an ampersand: &#34; &#x22; or one of the five named
// ones (&quot; &amp; &lt; &gt; &apos;), as a JUnit report or a web page
// writes them.
func matchReference(text string, i int, r rune) int {
	end := strings.IndexByte(text[i:min(len(text), i+12)], ';')
	if end < 0 {
		return -1
	}
	if referenceRune(text[i+1:i+end]) != r {
		return -1
	}
	return i + end + 1
}

// referenceRune is the character the reference &ref; stands for, or -1.
func referenceRune(ref string) rune {
	var got rune = -1
	switch {
	case strings.HasPrefix(ref, "#x") || strings.HasPrefix(ref, "#X"):
		if v, err := strconv.ParseUint(ref[2:], 16, 32); err == nil {
			got = rune(v)
		}
	case strings.HasPrefix(ref, "#"):
		if v, err := strconv.ParseUint(ref[1:], 10, 32); err == nil {
			got = rune(v)
		}
	default:
		got = map[string]rune{"quot": '"', "amp": '&', "lt": '<', "gt": '>', "apos": '\''}[ref]
		if got == 0 {
			got = -1
		}
	}
	return got
}

// matchEscape matches a JSON escape of r at text[i], which is a
// backslash: any number of backslashes, then the escape.
func matchEscape(text string, i int, r rune) int {
	j := backslashesEnd(text, i)
	if j >= len(text) {
		return -1
	}
	if text[j] == '&' && (r == '"' || r == '/') {
		// The escaped character itself written as a reference (\&#34;),
		// as JSON quoted in an XML report has it.
		return matchReference(text, j, r)
	}
	switch c := text[j]; c {
	case '"', '/':
		if r == rune(c) {
			return j + 1
		}
		return -1
	case 'b', 'f', 'n', 'r', 't':
		if r == shortEscape(c) {
			return j + 1
		}
		return -1
	case 'u':
		return matchUnicodeEscape(text, j, r)
	}
	return -1
}

// matchUnicodeEscape matches \uXXXX, or a surrogate pair of them, that
// stands for r at text[j], which is the u.
func matchUnicodeEscape(text string, j int, r rune) int {
	u, ok := hexUnit(text, j+1)
	if !ok {
		return -1
	}
	end := j + 5
	if !utf16.IsSurrogate(rune(u)) {
		if rune(u) == r {
			return end
		}
		return -1
	}
	// The second half of a pair: backslashes, u, four digits.
	k := backslashesEnd(text, end)
	if k == end || k >= len(text) || text[k] != 'u' {
		return -1
	}
	lo, ok := hexUnit(text, k+1)
	if !ok || utf16.DecodeRune(rune(u), rune(lo)) != r {
		return -1
	}
	return k + 5
}

// backslashesEnd returns where the run of backslashes at text[i] ends.
func backslashesEnd(text string, i int) int {
	for i < len(text) && text[i] == '\\' {
		i++
	}
	return i
}

// shortEscape is the character JSON's short escape \c stands for.
func shortEscape(c byte) rune {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return '\t'
}

// hexUnit reads four hex digits at text[i].
func hexUnit(text string, i int) (uint16, bool) {
	if i+4 > len(text) {
		return 0, false
	}
	hi, ok1 := hexByte(text[i], text[i+1])
	lo, ok2 := hexByte(text[i+2], text[i+3])
	return uint16(hi)<<8 | uint16(lo), ok1 && ok2
}

// hexByte reads two hex digits, either case.
func hexByte(a, b byte) (byte, bool) {
	x, ok1 := hexDigit(a)
	y, ok2 := hexDigit(b)
	return x<<4 | y, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

package urlcheck

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/termsafe"
)

// HiddenChar is one character of a URL that a reader cannot see, or that
// changes how the rest is shown: a control character, a bidirectional
// control, a zero-width or other format character, a line separator (see
// termsafe.Unsafe).
type HiddenChar struct {
	Rune rune
	// Part is where it is: user info, host, path, query or fragment.
	Part string
	// Encoded says that it is percent-encoded there (%E2%80%AE), not
	// written as it is.
	Encoded bool
}

// Control reports whether the character is a control character written as
// it is: no URL holds one (RFC 3986), and a terminal acts on it.
func (h HiddenChar) Control() bool {
	r := h.Rune
	return !h.Encoded && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0))
}

func (h HiddenChar) String() string {
	how := ", as it is"
	switch {
	case h.Encoded:
		how = ", percent-encoded"
	case h.Part == decodedHost:
		how = ""
	}
	return fmt.Sprintf("U+%04X (%s) in the %s%s", h.Rune, kindOf(h.Rune), h.Part, how)
}

// kindOf names the kind of a hidden character.
func kindOf(r rune) string {
	c := termsafe.Classify(r)
	if c == termsafe.Tag {
		// A tag character is one of the invisible format characters here,
		// as it always was in the URL checks' words.
		c = termsafe.Format
	}
	return c.String()
}

// Hidden lists the hidden characters of raw, which need not be a valid
// URL: each part is read as written and with its percent escapes decoded.
// Each character is listed once per part and spelling.
func Hidden(raw string) []HiddenChar {
	var out []HiddenChar
	seen := map[HiddenChar]bool{}
	for _, p := range splitParts(raw) {
		for _, h := range p.hidden() {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// hidden lists the hidden characters of p as written, then those its
// percent escapes decode to that are not written as they are.
func (p part) hidden() []HiddenChar {
	var out []HiddenChar
	for _, r := range p.text {
		if r != utf8.RuneError && termsafe.Unsafe(r) {
			out = append(out, HiddenChar{Rune: r, Part: p.name})
		}
	}
	if !strings.Contains(p.text, "%") {
		return out
	}
	dec, err := url.PathUnescape(strings.ReplaceAll(p.text, "+", "%2B"))
	if err != nil {
		return out
	}
	for _, r := range dec {
		if r != utf8.RuneError && termsafe.Unsafe(r) && !strings.ContainsRune(p.text, r) {
			out = append(out, HiddenChar{Rune: r, Part: p.name, Encoded: true})
		}
	}
	return out
}

type part struct{ name, text string }

// decodedHost is the part a hidden character of a punycode host is in.
const decodedHost = "host decoded from punycode"

// splitParts cuts raw into its parts as written, without decoding: the
// user info, host (with port), path, query and fragment.
func splitParts(raw string) []part {
	var out []part
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	frag := ""
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest, frag = rest[:i], rest[i+1:]
	}
	query := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query = rest[:i], rest[i+1:]
	}
	authority, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		out = append(out, part{"user info", authority[:i]})
		authority = authority[i+1:]
	}
	return append(out, part{"host", authority}, part{"path", path}, part{"query", query}, part{"fragment", frag})
}

// DescribeHidden says what hidden characters a URL holds, in one sentence.
func DescribeHidden(h []HiddenChar) string {
	const most = 5
	var names []string
	for i, c := range h {
		if i == most {
			names = append(names, fmt.Sprintf("and %d more", len(h)-most))
			break
		}
		names = append(names, c.String())
	}
	return "the URL holds characters that are not shown as they act: " + strings.Join(names, "; ") + ": the link shown is not the link followed"
}

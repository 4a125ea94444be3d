package interactive

import (
	"fmt"
	"strings"
	"unicode"
)

// Clean makes text from a server safe to show on a terminal, on one line.
// Control characters (ESC among them, so no escape sequence can move the
// cursor, recolor or hide text) and invisible or direction-changing
// characters are shown as Go escapes (\x1b, \u202e); line breaks become
// spaces.
func Clean(s string) string {
	return clean(s, false)
}

// CleanBlock is [Clean] for text that may span lines: line breaks are kept.
func CleanBlock(s string) string {
	return clean(s, true)
}

func clean(s string, lines bool) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' && lines:
			b.WriteRune('\n')
		case r == '\n' || r == '\t':
			b.WriteRune(' ')
		case r == '\r':
			// dropped: a carriage return would let text overwrite the line
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

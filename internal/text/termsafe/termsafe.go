// Package termsafe neutralises text that came from a server before it
// reaches a terminal. Control characters (C0 but newline and tab, DEL, C1),
// bidirectional overrides and isolates, other invisible format characters,
// line and paragraph separators and bytes that are not UTF-8 are shown as
// Go escapes (\x1b, \u202e), so no escape sequence a server sends can move
// the cursor, recolor or hide text, write the clipboard (OSC 52), disguise a
// link (OSC 8) or reverse what a person reads.
//
// [Line] and [Block] are for text a person reads, [JSON] for a JSON document
// (the same value, with the dangerous characters as \u escapes), and
// [Writer] for a whole stream: the last line of defence on stdout and
// stderr.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/runecut"
)

// Line neutralises s for one line of output: line breaks and tabs become
// spaces, everything else [Unsafe] is shown escaped.
func Line(s string) string {
	if isPlain(s, false) {
		return s
	}
	var b strings.Builder
	escape(&b, s, false, false)
	return b.String()
}

// Block is [Line] for text that may span lines: line breaks and tabs are
// kept ("\r\n" becomes "\n"), everything else [Unsafe] is shown escaped.
func Block(s string) string {
	if isPlain(s, true) {
		return s
	}
	var b strings.Builder
	escape(&b, s, true, false)
	return b.String()
}

// Clip is [Line] for text of any size that is shown again and again (a
// task's status, a progress or log message): at most max bytes of s are
// shown, cut where a rune starts, then how many bytes were left out.
func Clip(s string, max int) string {
	return Line(runecut.Clip(s, max))
}

// Has reports whether s holds anything [Block] would change: a control or
// invisible character other than newline and tab, or a byte that is not
// UTF-8.
func Has(s string) bool { return !isPlain(s, true) }

// Unsafe reports whether r must not reach a terminal as it is: a C0
// control (newline and tab included: callers keep those where they mean a
// line break or a tab), DEL, a C1 control, a bidirectional control, a
// format character (zero-width characters, tags) or a line or paragraph
// separator.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r < 0xa0:
		return true
	case r < 0x600:
		// Latin, Greek, Cyrillic, …: the soft hyphen is the only format
		// character before Arabic.
		return r == 0xad
	case r >= 0x2010 && r <= 0x2027:
		return false // dashes, quotes, bullets, ellipsis
	}
	return unicode.Is(unicode.Bidi_Control, r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// isPlain reports whether s is valid UTF-8 with nothing unsafe, allowing
// newlines and tabs when lines is set.
func isPlain(s string, lines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			i++
			continue
		case c < 0x80:
			if lines && (c == '\n' || c == '\t') {
				i++
				continue
			}
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return false
		}
		i += size
	}
	return true
}

// buffer is what escape writes to.
type buffer interface {
	io.Writer
	io.StringWriter
	WriteRune(rune) (int, error)
}

// escape writes s neutralised to b and returns how many bytes of s it
// consumed: all of them, unless partial is set and s ends in what may be
// the start of a longer sequence (an incomplete UTF-8 rune, or "\r" that
// "\n" may follow), which is left for the next call.
func escape(b buffer, s string, lines, partial bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if printable(c) {
			j := printableEnd(s, i+1)
			b.WriteString(s[i:j])
			i = j
			continue
		}
		switch c {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++ // "\r\n" is a line break
				continue
			}
			if partial && i+1 == len(s) {
				return i
			}
		case '\n', '\t':
			writeBreak(b, c, lines)
			i++
			continue
		}
		if partial && c >= 0x80 && !utf8.FullRuneInString(s[i:]) {
			return i
		}
		i += writeRune(b, s[i:])
	}
	return len(s)
}

// printable reports whether c is printable ASCII.
func printable(c byte) bool { return c >= 0x20 && c < 0x7f }

// printableEnd returns where the run of printable ASCII at s[i] ends.
func printableEnd(s string, i int) int {
	for i < len(s) && printable(s[i]) {
		i++
	}
	return i
}

// writeBreak writes a newline or tab c as it is when lines is set, else
// as a space.
func writeBreak(b buffer, c byte, lines bool) {
	if lines {
		b.WriteRune(rune(c))
	} else {
		b.WriteRune(' ')
	}
}

// writeRune writes the rune s starts with to b, as it is when it is safe,
// else escaped: a byte that is not UTF-8 and a C0 or C1 control as \xXX,
// others as \uXXXX or \UXXXXXXXX. It returns the rune's size.
func writeRune(b buffer, s string) int {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		fmt.Fprintf(b, `\x%02x`, s[0])
	case r < 0xa0 && Unsafe(r):
		fmt.Fprintf(b, `\x%02x`, r)
	case Unsafe(r) && r > 0xffff:
		fmt.Fprintf(b, `\U%08x`, r)
	case Unsafe(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteRune(r)
	}
	return size
}

// ServerName is how a report names a server on one line: its name
// neutralised, "(unnamed server)" when it gave none, then its version
// when it gave one.
func ServerName(name, version string) string {
	s := Line(name)
	if s == "" {
		s = "(unnamed server)"
	}
	if version != "" {
		s += " " + Line(version)
	}
	return s
}

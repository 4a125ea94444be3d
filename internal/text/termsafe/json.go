package termsafe

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON returns the JSON text doc with every [Unsafe] character written as
// a \u escape and every byte that is not UTF-8 as \ufffd, so that the
// document means the same to a parser and shows nothing raw on a terminal.
// Newlines, tabs and carriage returns are left alone: between tokens they
// are white space, and inside strings encoders escape them already. The
// escapes are only valid inside strings, which is the only place valid
// JSON holds such characters. The "[" of "##[", "##vso[" and "##teamcity["
// (which only a string holds) is written \u005b too, so that no line of the
// document reads as a CI runner's workflow command ([WorkflowCommand]).
func JSON(doc []byte) []byte {
	if isPlainJSON(doc) {
		return doc
	}
	var b bytes.Buffer
	b.Grow(len(doc) + 16)
	for i := 0; i < len(doc); {
		c := doc[i]
		if c == '[' && legacyCommand(doc, i) {
			b.WriteString(`\u005b`)
			i++
			continue
		}
		if c < 0x80 && !jsonUnsafe(rune(c)) {
			b.WriteByte(c)
			i++
			continue
		}
		i += writeJSONRune(&b, doc[i:])
	}
	return b.Bytes()
}

// writeJSONRune writes the rune doc starts with to b, as it is when it is
// safe, else as a \u escape (two for a rune past the BMP, \ufffd for a byte
// that is not UTF-8). It returns the rune's size.
func writeJSONRune(b *bytes.Buffer, doc []byte) int {
	r, size := utf8.DecodeRune(doc)
	switch {
	case r == utf8.RuneError && size == 1:
		b.WriteString(`\ufffd`)
	case r > 0xffff && jsonUnsafe(r):
		hi, lo := utf16.EncodeRune(r)
		fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
	case jsonUnsafe(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.Write(doc[:size])
	}
	return size
}

// jsonUnsafe is Unsafe but for JSON white space.
func jsonUnsafe(r rune) bool {
	return r != '\n' && r != '\t' && r != '\r' && Unsafe(r)
}

func isPlainJSON(doc []byte) bool {
	for i := 0; i < len(doc); {
		c := doc[i]
		if c < 0x80 {
			if jsonUnsafe(rune(c)) || c == '[' && legacyCommand(doc, i) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return false
		}
		i += size
	}
	return true
}

// legacyCommand reports whether the "[" at doc[i] opens a workflow command
// ("##[", "##vso[", "##teamcity[").
func legacyCommand(doc []byte, i int) bool {
	return opensCommand(doc[max(0, i-maxCommandName):i])
}

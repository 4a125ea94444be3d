// Package syntax is the syntax of the .mcp script language, as what
// writes scripts writes it: quoting a value (Quote), a bare word where it
// reads back unchanged (Word), the keys a line may name (ArgKey,
// AnswerKey), and a comment kept on its line (Comment). The parser
// (internal/script) reads what these write, and what writes scripts
// (internal/script/fromcall, internal/script/fromrecording, internal/script's update) writes
// through them; of the project it imports only termsafe, which knows what a
// terminal or a CI runner would read as a command.
package syntax

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/askback/askback/internal/text/termsafe"
)

// Quote writes s as a double-quoted script string: quotes, backslashes and
// dollar signs (which would start a variable) are escaped, and so is every
// control character, and the "[" of "##[" (or "##vso[", "##teamcity["),
// which a CI runner reads as a workflow command wherever a line of a file
// it shows holds it.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	s = strings.ToValidUTF8(s, "\uFFFD")
	for i, r := range s {
		switch r {
		case '[':
			if termsafe.OpensCommand(s[:i]) {
				b.WriteString(`\u005b`)
				continue
			}
			b.WriteRune(r)
		case '"', '\\', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) {
				if r > 0xffff {
					// \u takes four digits: write the surrogate pair.
					r -= 0x10000
					fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
					continue
				}
				fmt.Fprintf(&b, `\u%04x`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Word writes a name bare when the language reads it back unchanged, and
// quoted otherwise.
func Word(s string) string {
	if s == "" || strings.HasPrefix(s, "<<") {
		// <<NAME last on a line starts a here-document.
		return Quote(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"'$#{}[]\:`, c) >= 0 || (c == '/' && i+1 < len(s) && s[i+1] == '/') {
			return Quote(s)
		}
	}
	return s
}

// ArgKey reports whether k can be written as the key of key:value.
func ArgKey(k string) bool {
	if k == "" || !(isLetter(k[0]) || k[0] == '_') {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// AnswerKey reports whether a question key can be written before = in
// elicit_response and after key= in assert_elicited.
func AnswerKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"'$#={}[]:\`, c) >= 0 || (c == '/' && i+1 < len(k) && k[i+1] == '/') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Comment writes text as one comment line (without its line break): "# "
// and the text as it reads, but with every control, bidirectional and
// invisible character escaped (a U+202E would show the rest of the line
// reversed in an editor or a review) and no "##[", "##vso[" or
// "##teamcity[", which a CI runner showing the file would read as a
// command.
func Comment(text string) string {
	return "# " + termsafe.DefuseCommands(termsafe.Line(text))
}

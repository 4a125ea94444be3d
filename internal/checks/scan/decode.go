package scan

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/lazyre"
)

// What an attacker encodes, the model can decode: a text is read as it
// is and as what it spells once decoded (base64 runs, ROT13, written
// backwards), and its letters are read squeezed together, so that words
// split by spaces, dashes or dots (i-g-n-o-r-e, ig nore) read whole.

// minBase64 is the shortest run of base64 characters read as an encoded
// sentence.
const minBase64 = 24

// base64Runs returns the runs of base64 characters (either alphabet) of
// s at least minBase64 long, with their padding.
func base64Runs(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			if isBase64Char(s[i]) {
				if start < 0 {
					start = i
				}
				continue
			}
		}
		if start >= 0 && i-start >= minBase64 {
			out = append(out, s[start:i])
		}
		start = -1
	}
	return out
}

// isBase64Char reports whether c is a character of base64, in either
// alphabet, or its padding.
func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-' || c == '='
}

// maxDecoded bounds the text decoded from one text's base64 runs.
const maxDecoded = 16 << 10

// decoded is plain followed, each on lines of their own, by plain with
// its addresses spelled out with spaces closed up (see unspaced), by
// what its base64 runs spell (when they spell text) and, with rotated,
// its ROT13 and itself written backwards: the rules read them all. (An
// address survives neither ROT13 nor being reversed: the rules about
// addresses read plain, closed up, and its base64 only.)
func decoded(plain string, rotated bool) string {
	if strings.IndexFunc(plain, unicode.IsLetter) < 0 {
		return plain
	}
	var b strings.Builder
	b.Grow(4*len(plain) + 8)
	b.WriteString(plain)
	if u := unspaced(plain); u != "" {
		b.WriteString("\n")
		b.WriteString(u)
	}
	n := 0
	for _, run := range base64Runs(plain) {
		if n >= maxDecoded {
			break
		}
		if d, ok := decodeBase64(run); ok {
			b.WriteString("\n")
			b.WriteString(fold(d))
			n += len(d)
		}
	}
	if !rotated {
		return b.String()
	}
	b.WriteString("\n")
	b.WriteString(rot13(plain))
	b.WriteString("\n")
	b.WriteString(reverse(plain))
	return b.String()
}

// decodeBase64 decodes s in any of base64's spellings, and says whether
// it spells text: UTF-8, mostly letters and spaces, with words.
func decodeBase64(s string) (string, bool) {
	trimmed := strings.TrimRight(s, "=")
	if strings.Contains(trimmed, "=") || !strings.ContainsAny(trimmed, "0123456789+/_-") && strings.ToLower(trimmed) == trimmed {
		// Padding within, or one lower-case word: no base64.
		return "", false
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(trimmed)
		if err != nil {
			continue
		}
		if textual(b) {
			return string(b), true
		}
	}
	return "", false
}

// textual reports whether b reads as words: valid UTF-8, no controls but
// line breaks, nine in ten runes letters, digits, spaces or common
// punctuation, and at least two spaces.
func textual(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	var good, all, spaces int
	for _, r := range string(b) {
		all++
		switch {
		case r == ' ':
			spaces++
			good++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".,;:!?'\"-_/~@()\n", r):
			good++
		case unicode.IsControl(r):
			return false
		}
	}
	return spaces >= 2 && good*10 >= all*9
}

// rot13 is s with its Latin letters turned 13 places.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// reverse is s written backwards, rune by rune.
func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// letters is s in lower case with everything but its letters left out.
func letters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		} else if r >= 'A' && r <= 'Z' {
			b.WriteRune(r + 'a' - 'A')
		}
	}
	return b.String()
}

// squeezedPhrase is an attack's words written without spaces: what is
// left of a phrase once its words are split (ig nore, i-g-n-o-r-e) and
// its letters read together. Each allows no word between its words, so
// that ordinary prose squeezed does not spell one by chance.
type squeezedPhrase struct {
	rule Rule
	what string
	// starts are the words one of which the phrase begins with: the
	// expression (anchored) is tried only where one is.
	starts []string
	re     *lazyre.Regexp
}

var squeezedPhrases = []squeezedPhrase{
	{RuleOverride, "to set its instructions aside", []string{"ignore", "disregard", "forget", "overlook"}, lazyre.New(`^(?:ignore|disregard|forget|overlook)(?:all|any)?(?:of)?(?:the|your)?(?:previous|prior|above|earlier|preceding|system|original|other)(?:instructions?|prompts?|rules|guidelines|directives|directions)`)},
	{RuleOverride, "to set its instructions aside", []string{"ignore", "disregard", "forget"}, lazyre.New(`^(?:ignore|disregard|forget)(?:all|your)(?:instructions|rules|guidelines|directives)`)},
	{RuleConceal, "to keep something from the user", []string{"donot", "dont", "never", "without"}, lazyre.New(`^(?:donot|dont|never|without)(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|notify|notifying|alert|alerting)(?:the)?(?:user|human)`)},
	{RuleSecrets, "to read a file of keys or credentials", []string{"read", "send", "include", "pass", "upload", "attach", "copy", "cat", "append", "fetch"}, lazyre.New(`^(?:read|send|include|pass|upload|attach|copy|cat|append|fetch)(?:the)?(?:contentsof|contentof|fileat)?(?:ssh(?:idrsa|ided25519|privatekeys?|keys?)|idrsa|ided25519|awscredentials|envfile|privatekeys?)`)},
	{RuleDestination, "to send the conversation away", []string{"send", "forward", "upload", "post", "exfiltrate", "transmit", "leak"}, lazyre.New(`^(?:send|forward|upload|post|exfiltrate|transmit|leak)(?:the|this|our|your)?(?:(?:entire|full|whole|all(?:the)?)(?:conversation|chathistory|messagehistory)|systemprompt)`)},
	{RulePrecondition, "to run before every other tool", []string{"before"}, lazyre.New(`^before(?:using|calling|invoking|running)(?:any|every|all)(?:other)?(?:tools?|functions?)`)},
}

// squeezed reads plain's letters together, as they are, in ROT13 and
// backwards, for the squeezed phrases: a phrase spelled with its words or
// letters split apart, or encoded, is what it would be written whole.
func (s *scanner) squeezed(t *text, plain string) {
	l := letters(plain)
	if len(l) < 12 {
		return
	}
	forms := []struct{ how, s string }{{"with its words split", l}, {"in ROT13", rot13(l)}, {"written backwards", reverse(l)}}
	for _, ph := range squeezedPhrases {
		if _, found := s.seen[findingKey{ph.rule.ID, s.server, t.where()}]; found {
			continue // the rule read it already, as written or decoded
		}
		for _, f := range forms {
			if m := ph.find(f.s); m != "" {
				s.add(ph.rule, High, t, fmt.Sprintf("tells the model %s, spelled %s: %q", ph.what, f.how, m), plain)
				break
			}
		}
	}
}

// squeezedWindow is the most letters a squeezed phrase spans.
const squeezedWindow = 96

// find returns the first match of ph in l (letters squeezed), or "".
func (ph squeezedPhrase) find(l string) string {
	for _, w := range ph.starts {
		for i := 0; ; {
			j := strings.Index(l[i:], w)
			if j < 0 {
				break
			}
			at := i + j
			if m := ph.re.FindString(l[at:min(len(l), at+squeezedWindow)]); m != "" {
				return m
			}
			i = at + 1
		}
	}
	return ""
}

package expect

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/lazyre"
)

// Kind is a kind of value a placeholder stands for.
type Kind struct {
	// Name is how a placeholder names it: {{Name}}.
	Name string
	// What says in words what it matches (docs, errors).
	What string
	// re matches a value of the kind inside a text.
	re string
}

// Kinds are the placeholders, in the order the documentation lists them.
var Kinds = []Kind{
	{"any", "anything: inside a text any characters, alone any JSON value", `(?s:.*)`},
	{"string", "any text; alone, any JSON string", `(?s:.*)`},
	{"number", "a number (alone: a JSON number)", `-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`},
	{"boolean", "true or false (alone: a JSON boolean)", `(?:true|false)`},
	{"uuid", "a UUID, 8-4-4-4-12 hexadecimal digits", `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`},
	{"timestamp", "a date and time: RFC 3339 (2026-12-03T10:00:00Z, fractions and offsets too, a space for the T) or RFC 1123 (Thu, 03 Dec 2026 10:00:00 GMT)", timestampRE},
	{"date", "a date, 2026-12-03", `[0-9]{4}-[0-9]{2}-[0-9]{2}`},
	{"time", "a time of day, 10:00:00 (with a fraction)", `[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?`},
	{"duration", "a duration, 250ms, 1.5s, 2m30s, 3h", durationRE},
	{"hex", "16 or more hexadecimal digits (a nonce, a hash)", `[0-9a-fA-F]{16,}`},
	{"id", "an identifier: 8 or more letters, digits, - and _ (a task id, a token)", `[A-Za-z0-9_-]{8,}`},
}

const (
	timestampRE = `(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?` +
		`|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} (?:GMT|UTC|[+-][0-9]{4}))`
	durationRE = `(?:[0-9]+(?:\.[0-9]+)?(?:ns|us|µs|ms|s|m|h))+`
)

func kindNamed(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// KindNames lists the placeholders as they are written: {{any}}, {{string}}, ….
func KindNames() []string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = "{{" + k.Name + "}}"
	}
	return names
}

// Pattern is a text with placeholders: literal text and {{kind}} parts.
// "{{{{" stands for a literal "{{".
type Pattern struct {
	parts []part
	re    *regexp.Regexp // nil until compiled; nil when there is no placeholder
}

type part struct {
	text string // literal text, when kind is empty
	kind string
}

// ParsePattern reads s as a pattern. "{{{{" is a literal "{{", and the
// first "{" of "{{{" is a literal "{". A "{{" that starts neither a known
// placeholder nor "{{{{" is an error, so that a mistyped placeholder is not
// taken as text.
func ParsePattern(s string) (*Pattern, error) {
	p := &Pattern{}
	var lit strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			lit.WriteString(s[i:])
			break
		}
		lit.WriteString(s[i : i+j])
		i += j
		if strings.HasPrefix(s[i:], "{{{{") {
			lit.WriteString("{{")
			i += 4
			continue
		}
		if strings.HasPrefix(s[i:], "{{{") {
			// A "{" right before a placeholder ("{{{uuid}}}" is a
			// UUID in braces) is text.
			lit.WriteByte('{')
			i++
			continue
		}
		end := strings.Index(s[i+2:], "}}")
		name := ""
		if end >= 0 {
			name = s[i+2 : i+2+end]
		}
		if _, ok := kindNamed(name); !ok || end < 0 {
			shown := s[i:min(len(s), i+2+max(end, 0)+2)]
			if end < 0 || len(name) > 20 {
				shown = s[i:min(len(s), i+12)]
			}
			return nil, fmt.Errorf("%q is no placeholder: use %s, or write {{{{ for a literal {{", shown, strings.Join(KindNames(), ", "))
		}
		if lit.Len() > 0 {
			p.parts = append(p.parts, part{text: lit.String()})
			lit.Reset()
		}
		p.parts = append(p.parts, part{kind: name})
		i += 2 + end + 2
	}
	if lit.Len() > 0 || len(p.parts) == 0 {
		p.parts = append(p.parts, part{text: lit.String()})
	}
	return p, nil
}

// HasPlaceholder reports whether the pattern has a placeholder.
func (p *Pattern) HasPlaceholder() bool {
	return slices.ContainsFunc(p.parts, func(x part) bool { return x.kind != "" })
}

// Whole returns the kind of a pattern that is one placeholder alone.
func (p *Pattern) Whole() (string, bool) {
	if len(p.parts) == 1 && p.parts[0].kind != "" {
		return p.parts[0].kind, true
	}
	return "", false
}

// Literal returns the text of a pattern without placeholders.
func (p *Pattern) Literal() (string, bool) {
	if p.HasPlaceholder() {
		return "", false
	}
	return p.parts[0].text, true
}

// Match reports whether s is a text the pattern describes, whole.
func (p *Pattern) Match(s string) bool {
	if lit, ok := p.Literal(); ok {
		return lit == s
	}
	if p.re == nil {
		var b strings.Builder
		b.WriteString(`^(?:`)
		for _, x := range p.parts {
			if x.kind == "" {
				// The regexp reads a text's invalid UTF-8 as U+FFFD, and so
				// must the pattern (JSON text is valid UTF-8 anyway).
				b.WriteString(regexp.QuoteMeta(eachInvalidByte(x.text)))
				continue
			}
			k, _ := kindNamed(x.kind)
			b.WriteString(k.re)
		}
		b.WriteString(`)$`)
		p.re = regexp.MustCompile(b.String())
	}
	return p.re.MatchString(s)
}

// MatchValue reports whether v matches the pattern: a string as Match
// says; another value only when the pattern is one placeholder alone of
// its kind ({{any}}: anything, {{number}}: a number, {{boolean}}: a
// boolean).
func (p *Pattern) MatchValue(v Value) bool {
	if s, ok := v.(string); ok {
		return p.Match(s)
	}
	kind, whole := p.Whole()
	if !whole {
		return false
	}
	switch kind {
	case "any":
		return true
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	return false
}

// LiteralParts returns the texts between the placeholders of pattern
// (ParsePattern's reading), or pattern itself when it is no pattern.
func LiteralParts(pattern string) []string {
	p, err := ParsePattern(pattern)
	if err != nil {
		return []string{pattern}
	}
	var out []string
	for _, x := range p.parts {
		if x.kind == "" {
			out = append(out, x.text)
		}
	}
	return out
}

// Escape writes s as a pattern that matches s alone: every "{{" doubled.
func Escape(s string) string {
	return strings.ReplaceAll(s, "{{", "{{{{")
}

// Placeholder writes the placeholder of a kind: {{name}}.
func Placeholder(kind string) string { return "{{" + kind + "}}" }

// Detectors of Generalize: a value that changes from run to run, within a
// text. Identifiers are found first (idRE, then checked by looksRandom);
// the others in the gaps, the first alternative that matches winning.
var (
	idRE       = lazyre.New(`\b[A-Za-z0-9][A-Za-z0-9_-]{18,}[A-Za-z0-9]\b`)
	volatileRE = lazyre.New(`\b(?:(` + timestampRE + `)|(` + Kinds[4].re + `)|(` + Kinds[6].re + `)|(` + Kinds[7].re + `)|(` + durationRE + `)|([0-9a-fA-F]{16,}))\b`)
	uuidRE     = lazyre.New(`^` + Kinds[4].re + `$`)
	hexRE      = lazyre.New(`^[0-9a-fA-F]{16,}$`)
	decadeRE   = lazyre.New(`^(?:1[89]|20)[0-9]0s$`)
)

// volatileKinds are the kinds of volatileRE's groups, in order.
var volatileKinds = []string{"timestamp", "uuid", "date", "time", "duration", "hex"}

type span struct {
	from, to int
	kind     string
}

// Generalize returns s as a pattern in which the values that change from
// run to run are placeholders: timestamps, UUIDs, dates, times of day,
// durations, hexadecimal strings of 16 digits or more, and identifiers
// that look generated (20 or more letters, digits, - and _, with at least
// two digits and two letters, and a part between - and _ that is neither a
// word nor a number: "NXX66JRSHRRKGDIJDMZK35AY7U", not
// "auth-service-production-2024"). The rest is escaped (Escape).
func Generalize(s string) string {
	spans := volatileSpans(s)
	if len(spans) == 0 {
		return Escape(s)
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(Escape(s[last:sp.from]))
		b.WriteString(Placeholder(sp.kind))
		last = sp.to
	}
	b.WriteString(Escape(s[last:]))
	return b.String()
}

// IsVolatile reports whether s is, whole, a value that changes from run to
// run (Generalize makes it one placeholder), and its kind.
func IsVolatile(s string) (string, bool) {
	spans := volatileSpans(s)
	if len(spans) == 1 && spans[0].from == 0 && spans[0].to == len(s) {
		return spans[0].kind, true
	}
	return "", false
}

func volatileSpans(s string) []span {
	var ids []span
	for _, m := range idRE.FindAllStringIndex(s, -1) {
		w := s[m[0]:m[1]]
		switch {
		case uuidRE.MatchString(w):
			ids = append(ids, span{m[0], m[1], "uuid"})
		case hexRE.MatchString(w):
			ids = append(ids, span{m[0], m[1], "hex"})
		case looksRandom(w):
			ids = append(ids, span{m[0], m[1], "id"})
		}
	}
	var out []span
	gap := func(from, to int) {
		for _, m := range volatileRE.FindAllStringSubmatchIndex(s[from:to], -1) {
			for g, kind := range volatileKinds {
				a, b := m[2+2*g], m[3+2*g]
				if a < 0 {
					continue
				}
				if kind == "duration" && decadeRE.MatchString(s[from+a:from+b]) {
					break // "the 1990s"
				}
				out = append(out, span{from + a, from + b, kind})
				break
			}
		}
	}
	last := 0
	for _, id := range ids {
		gap(last, id.from)
		out = append(out, id)
		last = id.to
	}
	gap(last, len(s))
	return out
}

// looksRandom tells a generated identifier from words and numbers joined
// by - or _.
func looksRandom(w string) bool {
	digits, letters := 0, 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if digits < 2 || letters < 2 {
		return false
	}
	for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' }) {
		if !plainPart(p) {
			return true
		}
	}
	return false
}

// plainPart reports whether p is a word (lower case, upper case, or
// capitalised) or a number.
func plainPart(p string) bool {
	allDigits, lower, upper := true, true, true
	for i := 0; i < len(p); i++ {
		c := p[i]
		isDigit := c >= '0' && c <= '9'
		allDigits = allDigits && isDigit
		lower = lower && c >= 'a' && c <= 'z'
		upper = upper && c >= 'A' && c <= 'Z'
	}
	if allDigits || lower || upper {
		return true
	}
	// Capitalised: an upper-case letter, then lower case.
	if p[0] >= 'A' && p[0] <= 'Z' {
		for i := 1; i < len(p); i++ {
			if p[i] < 'a' || p[i] > 'z' {
				return false
			}
		}
		return true
	}
	return false
}

// eachInvalidByte replaces each byte of s that is not UTF-8 by U+FFFD, as
// the regexp package reads it.
func eachInvalidByte(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // ranging over a string yields U+FFFD per invalid byte
	}
	return b.String()
}

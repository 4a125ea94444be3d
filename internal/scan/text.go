package scan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askback/askback/internal/lazyre"
	"github.com/askback/askback/internal/runecut"
	"github.com/askback/askback/internal/schemaargs"
	"github.com/askback/askback/internal/termsafe"
	"golang.org/x/text/unicode/norm"
)

// kind is what a text is: the rules that read it differ.
type kind int

const (
	kindName  kind = iota // a tool, prompt, argument, parameter or resource name
	kindProse             // a description, title or instructions: read by every text rule
	kindURI               // a resource's URI or template
)

// text is one string a server tells the model, with where it is.
type text struct {
	subject string // what it belongs to: `tool "add"`
	path    string // its JSON path in the catalog: $.tools[0].description
	kind    kind
	s       string
}

// Limits of the walk over a schema: a hostile server's schema is bounded
// in depth and in the strings read from it.
const (
	maxSchemaDepth   = 32
	maxSchemaStrings = 4096
)

// texts lists every string of c that the model is told, in catalog order.
func texts(c *Catalog) []text {
	var out []text
	add := func(subject, path string, k kind, s string) {
		if s != "" {
			out = append(out, text{subject: subject, path: path, kind: k, s: s})
		}
	}
	// described adds the name, title and description of one item.
	described := func(subject, base, name, title, description string) {
		add(subject, base+".name", kindName, name)
		add(subject, base+".title", kindProse, title)
		add(subject, base+".description", kindProse, description)
	}
	if c.ServerInfo != nil {
		add("server", "$.server.name", kindName, c.ServerInfo.Name)
		add("server", "$.server.title", kindProse, c.ServerInfo.Title)
	}
	add("server", "$.instructions", kindProse, c.Instructions)
	for i, t := range c.Tools {
		if t == nil {
			continue
		}
		subj := fmt.Sprintf("tool %q", t.Name)
		base := fmt.Sprintf("$.tools[%d]", i)
		add(subj, base+".name", kindName, t.Name)
		add(subj, base+".title", kindProse, t.Title)
		if t.Annotations != nil {
			add(subj, base+".annotations.title", kindProse, t.Annotations.Title)
		}
		add(subj, base+".description", kindProse, t.Description)
		out = schemaTexts(out, subj, base+".inputSchema", schemaargs.Map(t.InputSchema), 0, true)
		out = schemaTexts(out, subj, base+".outputSchema", schemaargs.Map(t.OutputSchema), 0, false)
	}
	for i, p := range c.Prompts {
		if p == nil {
			continue
		}
		subj := fmt.Sprintf("prompt %q", p.Name)
		base := fmt.Sprintf("$.prompts[%d]", i)
		described(subj, base, p.Name, p.Title, p.Description)
		for j, a := range p.Arguments {
			if a == nil {
				continue
			}
			asubj := fmt.Sprintf("%s argument %q", subj, a.Name)
			abase := fmt.Sprintf("%s.arguments[%d]", base, j)
			described(asubj, abase, a.Name, a.Title, a.Description)
		}
	}
	for i, r := range c.Resources {
		if r == nil {
			continue
		}
		subj := fmt.Sprintf("resource %q", r.URI)
		base := fmt.Sprintf("$.resources[%d]", i)
		add(subj, base+".uri", kindURI, r.URI)
		described(subj, base, r.Name, r.Title, r.Description)
	}
	for i, r := range c.Templates {
		if r == nil {
			continue
		}
		subj := fmt.Sprintf("resource template %q", r.URITemplate)
		base := fmt.Sprintf("$.resourceTemplates[%d]", i)
		add(subj, base+".uriTemplate", kindURI, r.URITemplate)
		described(subj, base, r.Name, r.Title, r.Description)
	}
	return out
}

// schemaTexts adds the strings of a JSON schema: every description and
// title, string defaults, consts, enum values and examples, and, for the
// top level of an input schema, the property names (the parameters the
// model fills). Depth and count are bounded.
func schemaTexts(out []text, subj, path string, m map[string]any, depth int, params bool) []text {
	if m == nil || depth > maxSchemaDepth {
		return out
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(out) >= maxSchemaStrings {
			return out
		}
		v := m[k]
		p := path + member(k)
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			props, _ := v.(map[string]any)
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				psubj := subj
				if k == "properties" && depth == 0 && params {
					psubj = fmt.Sprintf("%s parameter %q", subj, n)
					out = append(out, text{subject: psubj, path: p + member(n), kind: kindName, s: n})
				}
				sub, _ := props[n].(map[string]any)
				out = schemaTexts(out, psubj, p+member(n), sub, depth+1, params)
			}
		case "items", "not", "if", "then", "else", "additionalProperties", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems":
			if sub, ok := v.(map[string]any); ok {
				out = schemaTexts(out, subj, p, sub, depth+1, params)
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			list, _ := v.([]any)
			for i, e := range list {
				if sub, ok := e.(map[string]any); ok {
					out = schemaTexts(out, subj, fmt.Sprintf("%s[%d]", p, i), sub, depth+1, params)
				}
			}
		case "description", "title", "default", "const", "$comment":
			if s, ok := v.(string); ok && s != "" {
				out = append(out, text{subject: subj, path: p, kind: kindProse, s: s})
			}
		case "enum", "examples":
			list, _ := v.([]any)
			for i, e := range list {
				if s, ok := e.(string); ok && s != "" && len(out) < maxSchemaStrings {
					out = append(out, text{subject: subj, path: fmt.Sprintf("%s[%d]", p, i), kind: kindProse, s: s})
				}
			}
		}
	}
	return out
}

// identifier is a member name that JSON paths write after a dot.
var identifier = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// member is the JSON path step to the member k of an object: .k, or
// ["k"] when k is not an identifier.
func member(k string) string {
	if identifier.MatchString(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// confusables maps letters of other scripts that look like Latin letters
// to the letter they imitate: the Cyrillic and Greek look-alikes of the
// Latin alphabet.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ї': 'i', 'ј': 'j', 'к': 'k',
	'ӏ': 'l', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'г': 'r', 'ѕ': 's', 'т': 't', 'ц': 'u', 'ѵ': 'v',
	'ԝ': 'w', 'х': 'x', 'у': 'y', 'з': '3',
	'А': 'A', 'В': 'B', 'С': 'C', 'Е': 'E', 'Н': 'H', 'І': 'I', 'Ј': 'J', 'К': 'K', 'М': 'M', 'О': 'O', 'Р': 'P',
	'Ѕ': 'S', 'Т': 'T', 'Х': 'X', 'У': 'Y', 'Ԝ': 'W',
	// Greek
	'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'γ': 'y',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P',
	'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
}

// latinLookalike returns the Latin letter r imitates: a Cyrillic or Greek
// look-alike, or a full-width or mathematical letter (by compatibility
// decomposition); ok is false for every other rune.
func latinLookalike(r rune) (rune, bool) {
	if l, ok := confusables[r]; ok {
		return l, true
	}
	if !(r >= 0xff00 && r <= 0xffef || r >= 0x1d400 && r <= 0x1d7ff || r >= 0x2100 && r <= 0x214f || r >= 0x2460 && r <= 0x24ff || r >= 0x1f100 && r <= 0x1f1ff) {
		// Only full-width, mathematical, letter-like and enclosed
		// letters decompose to a Latin letter.
		return 0, false
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	k := norm.NFKC.Bytes(buf[:n])
	if len(k) == 1 && (k[0] >= 'a' && k[0] <= 'z' || k[0] >= 'A' && k[0] <= 'Z' || k[0] >= '0' && k[0] <= '9') {
		return rune(k[0]), true
	}
	return 0, false
}

// fold returns s as the model reads it, for the rules that look for
// words: invisible characters (format, tag) are removed, look-alike
// letters replaced by the Latin letters they imitate, and each run of
// spaces made one space, or one line break when it holds one (so that
// the rules keep to a sentence or a line), none at the ends.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := byte(0) // the space being collapsed: ' ', or '\n' once a line break is in it
	for _, r := range s {
		switch termsafe.Classify(r) {
		case termsafe.Format, termsafe.Tag, termsafe.Bidi:
			continue
		}
		switch r {
		case '\n', '\r', 0x2028, 0x2029:
			space = '\n'
			continue
		case ' ', '\t', 0xa0:
			if space == 0 {
				space = ' '
			}
			continue
		}
		if space != 0 && b.Len() > 0 {
			b.WriteByte(space)
		}
		space = 0
		if l, ok := latinLookalike(r); ok {
			r = l
		}
		b.WriteRune(r)
	}
	return b.String()
}

// maxExcerpt bounds the excerpt of a finding, in bytes.
const maxExcerpt = 160

// clip shortens an excerpt to one line of at most maxExcerpt bytes, with
// hidden characters shown as escapes.
func clip(s string) string {
	long := len(s) > 2*maxExcerpt
	if long {
		// Only the start is shown: the rest is not escaped (escaping
		// makes a text longer; only runs of spaces get shorter).
		s = runecut.Prefix(s, 2*maxExcerpt)
	}
	s = strings.Join(strings.Fields(termsafe.Line(s)), " ")
	if len(s) <= maxExcerpt && !long {
		return s
	}
	return runecut.Prefix(s, maxExcerpt) + "…"
}

// nameSet holds a server's own names, normalised (see normName): its
// tools' names and titles, its prompts' names, the parameters of its
// tools. A description that speaks of one of them speaks of the server
// itself.
type nameSet map[string]bool

// ownNames collects the names of c.
func ownNames(c *Catalog) nameSet {
	n := nameSet{}
	for _, t := range c.Tools {
		if t == nil {
			continue
		}
		n[normName(t.Name)] = true
		if t.Title != "" {
			n[normName(t.Title)] = true
		}
		if t.Annotations != nil && t.Annotations.Title != "" {
			n[normName(t.Annotations.Title)] = true
		}
		if props, _ := schemaargs.Map(t.InputSchema)["properties"].(map[string]any); props != nil {
			for p := range props {
				n[normName(p)] = true
			}
		}
	}
	for _, p := range c.Prompts {
		if p != nil {
			n[normName(p.Name)] = true
			if p.Title != "" {
				n[normName(p.Title)] = true
			}
		}
	}
	if c.ServerInfo != nil {
		n[normName(c.ServerInfo.Name)] = true
	}
	return n
}

// toolNames lists the tool names of c, for finding them in other
// servers' descriptions.
func toolNames(c *Catalog) []string {
	var out []string
	for _, t := range c.Tools {
		if t != nil && t.Name != "" {
			out = append(out, t.Name)
		}
	}
	return out
}

// normName is a name as two names are compared: folded (look-alikes made
// Latin, invisible characters removed), lower case, without separators
// (_ - . space) and quotes.
func normName(s string) string {
	var b strings.Builder
	for _, r := range fold(s) {
		switch r {
		case '_', '-', '.', ' ', '/', ':', '\'', '"', '`':
			continue
		}
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

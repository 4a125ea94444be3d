package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/schemaargs"
	"github.com/askback/askback/internal/text/lazyre"
	"github.com/askback/askback/internal/text/runecut"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	subject string    // what it belongs to: `tool "add"`
	path    string    // its JSON path in the catalog: $.tools[0].description
	at      *pathStep // or, for a string deep in a value, its path step by step
	kind    kind
	s       string
}

// where is t's JSON path.
func (t *text) where() string {
	if t.at != nil {
		return t.at.String()
	}
	return t.path
}

// pathStep is one step of a JSON path, after its parent's: a value nested
// ten thousand deep costs a step per level, not a path per level (the
// path is written out only for a finding).
type pathStep struct {
	parent *pathStep
	base   string // the whole path before this step, for the first step
	step   string // .k, ["k"] or [i]
}

// String writes the path out.
func (p *pathStep) String() string {
	var steps []string
	for q := p; q != nil; q = q.parent {
		steps = append(steps, q.step)
		if q.parent == nil {
			steps = append(steps, q.base)
		}
	}
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		b.WriteString(steps[i])
	}
	return b.String()
}

// visit hears each text of a catalog, in catalog order.
type visit func(*text)

// texts tells visit every string of c that the model is told, in catalog
// order: names, titles, descriptions, every string of the tools' schemas
// (at any depth, every keyword: descriptions, defaults and examples of
// any type, patterns, required names, references, enums, x-* extensions,
// the names of properties and definitions), annotations and _meta; and
// every other member an item was sent with (otherTexts).
func texts(c *catalog.Listing, v visit) {
	if si := c.ServerInfo(); si != nil {
		describedTexts(v, "server", "$.server", si.Name, si.Title, si.Description)
		otherTexts(v, "server", "$.server", c.Sent.ServerInfo, serverMembers)
	}
	addText(v, "server", "$.instructions", kindProse, c.Instructions())
	for i, t := range c.Tools {
		if t != nil {
			toolTexts(v, i, t)
			otherTexts(v, fmt.Sprintf("tool %q", t.Name), fmt.Sprintf("$.tools[%d]", i), c.Sent.Tools[t.Name], toolMembers)
		}
	}
	for i, p := range c.Prompts {
		if p != nil {
			promptTexts(v, i, p)
			otherTexts(v, fmt.Sprintf("prompt %q", p.Name), fmt.Sprintf("$.prompts[%d]", i), c.Sent.Prompts[p.Name], promptMembers)
		}
	}
	for i, r := range c.Resources {
		if r != nil {
			subj, base := fmt.Sprintf("resource %q", r.URI), fmt.Sprintf("$.resources[%d]", i)
			locatedTexts(v, subj, base, ".uri", r.URI, r.Name, r.Title, r.Description, r.Meta)
			otherTexts(v, subj, base, c.Sent.Resources[r.URI], resourceMembers)
		}
	}
	for i, r := range c.Templates {
		if r != nil {
			subj, base := fmt.Sprintf("resource template %q", r.URITemplate), fmt.Sprintf("$.resourceTemplates[%d]", i)
			locatedTexts(v, subj, base, ".uriTemplate", r.URITemplate, r.Name, r.Title, r.Description, r.Meta)
			otherTexts(v, subj, base, c.Sent.Templates[r.URITemplate], templateMembers)
		}
	}
}

// members are the members of an item the scan reads by name, or knows to
// hold no text the model reads (icons, a tool's execution, a resource's
// size); and, by member, those of the objects in it (a tool's
// annotations, each of a prompt's arguments).
type members struct {
	known map[string]bool
	in    map[string]members
}

func memberSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var (
	serverMembers = members{known: memberSet("name", "title", "description", "version", "websiteUrl", "icons")}
	toolMembers   = members{
		known: memberSet("name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "icons", "execution"),
		in:    map[string]members{"annotations": {known: memberSet("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")}},
	}
	promptMembers = members{
		known: memberSet("name", "title", "description", "arguments", "_meta", "icons"),
		in:    map[string]members{"arguments": {known: memberSet("name", "title", "description", "required")}},
	}
	resourceMembers = members{known: memberSet("uri", "name", "title", "description", "mimeType", "size", "annotations", "_meta", "icons")}
	templateMembers = members{known: memberSet("uriTemplate", "name", "title", "description", "mimeType", "annotations", "_meta", "icons")}
)

// otherTexts tells visit the members of raw, an item as its server sent it
// (catalog.Listing.Sent), that the scan does not read by name (m): a
// member MCP does not define, which a client that hands the model the
// item whole hands it too, is read as a _meta is, its name included. The
// objects m names (in) are looked into the same way: an object member, or
// each object of an array member.
func otherTexts(v visit, subj, base string, raw json.RawMessage, m members) {
	if len(raw) == 0 {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return // not an object: what the go-sdk read of it is all there is
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		at := base + member(k)
		if inner, ok := m.in[k]; ok {
			var list []json.RawMessage
			if json.Unmarshal(obj[k], &list) == nil {
				for i, e := range list {
					otherTexts(v, subj, fmt.Sprintf("%s[%d]", at, i), e, inner)
				}
			} else {
				otherTexts(v, subj, at, obj[k], inner)
			}
			continue
		}
		if m.known[k] {
			continue
		}
		var val any
		dec := json.NewDecoder(bytes.NewReader(obj[k]))
		dec.UseNumber()
		if dec.Decode(&val) != nil {
			continue
		}
		step := &pathStep{base: at}
		v(&text{subject: subj, at: step, kind: kindName, s: k})
		walkValue(v, subj, step, val, schemaWalk{})
	}
}

// addText tells visit the string s (of kind k, at path), unless it is empty.
func addText(v visit, subject, path string, k kind, s string) {
	if s != "" {
		v(&text{subject: subject, path: path, kind: k, s: s})
	}
}

// describedTexts tells visit the name, title and description of one item.
func describedTexts(v visit, subject, base, name, title, description string) {
	addText(v, subject, base+".name", kindName, name)
	addText(v, subject, base+".title", kindProse, title)
	addText(v, subject, base+".description", kindProse, description)
}

// metaTexts walks the _meta of one item.
func metaTexts(v visit, subject, base string, m mcp.Meta) {
	walkValue(v, subject, &pathStep{base: base, step: "._meta"}, plainValue(m), schemaWalk{})
}

// toolTexts tells visit the texts of tool i: its name, title and
// description, annotations, schemas and _meta.
func toolTexts(v visit, i int, t *mcp.Tool) {
	subj := fmt.Sprintf("tool %q", t.Name)
	base := fmt.Sprintf("$.tools[%d]", i)
	describedTexts(v, subj, base, t.Name, t.Title, t.Description)
	if t.Annotations != nil {
		walkValue(v, subj, &pathStep{base: base, step: ".annotations"}, plainValue(t.Annotations), schemaWalk{})
	}
	walkValue(v, subj, &pathStep{base: base, step: ".inputSchema"}, plainValue(t.InputSchema), schemaWalk{params: true})
	walkValue(v, subj, &pathStep{base: base, step: ".outputSchema"}, plainValue(t.OutputSchema), schemaWalk{})
	metaTexts(v, subj, base, t.Meta)
}

// promptTexts tells visit the texts of prompt i: its name, title and
// description, its arguments' and its _meta.
func promptTexts(v visit, i int, p *mcp.Prompt) {
	subj := fmt.Sprintf("prompt %q", p.Name)
	base := fmt.Sprintf("$.prompts[%d]", i)
	describedTexts(v, subj, base, p.Name, p.Title, p.Description)
	for j, a := range p.Arguments {
		if a == nil {
			continue
		}
		asubj := fmt.Sprintf("%s argument %q", subj, a.Name)
		abase := fmt.Sprintf("%s.arguments[%d]", base, j)
		describedTexts(v, asubj, abase, a.Name, a.Title, a.Description)
	}
	metaTexts(v, subj, base, p.Meta)
}

// locatedTexts tells visit the texts of a resource or a template: its URI
// (at base+uriKey), name, title, description and _meta.
func locatedTexts(v visit, subj, base, uriKey, uri, name, title, description string, m mcp.Meta) {
	addText(v, subj, base+uriKey, kindURI, uri)
	describedTexts(v, subj, base, name, title, description)
	metaTexts(v, subj, base, m)
}

// plainValue is v as encoding/json reads it back (maps, slices, strings,
// numbers, booleans), or nil.
func plainValue(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return x
	case mcp.Meta:
		if x == nil {
			return nil
		}
		return map[string]any(x)
	}
	if m := schemaargs.Map(v); m != nil {
		return m
	}
	return nil
}

// schemaWalk is where a walk is: in an input schema (params), how deep,
// and whether the object at hand is the top level's properties, whose
// names are the tool's parameters.
type schemaWalk struct {
	params   bool
	depth    int
	topProps bool
}

// schemaKeywords are the JSON Schema keywords and the annotations' hints:
// as a key they are the schema's words, not the server's, and no text of
// their own. Any other key (a property's name, an x-* extension, a
// made-up keyword, a _meta key) is a text the model reads.
var schemaKeywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"$schema": true, "$id": true, "$ref": true, "$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true,
		"$vocabulary": true, "$comment": true, "$defs": true, "definitions": true, "type": true, "enum": true,
		"const": true, "default": true, "examples": true, "title": true, "description": true, "format": true,
		"properties": true, "patternProperties": true, "additionalProperties": true, "required": true,
		"items": true, "prefixItems": true, "additionalItems": true, "contains": true, "minContains": true,
		"maxContains": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true,
		"else": true, "dependentSchemas": true, "dependentRequired": true, "dependencies": true,
		"propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true, "minimum": true,
		"maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
		"minLength": true, "maxLength": true, "pattern": true, "minItems": true, "maxItems": true,
		"uniqueItems": true, "minProperties": true, "maxProperties": true, "contentEncoding": true,
		"contentMediaType": true, "contentSchema": true, "deprecated": true, "readOnly": true, "writeOnly": true,
		"readOnlyHint": true, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true,
	}
})

// walkValue tells visit every string of a JSON value at any depth, and
// every key that is not a schema keyword (as a name): nothing is left
// out. The walk needs no bound of its own: a value nests as deep as its
// decoder allowed and holds as many strings as its bytes do; what the
// phrase rules read of them is bounded by the scan's budget, and what
// they did not read is said (see scanner.readable).
func walkValue(v visit, subj string, at *pathStep, val any, w schemaWalk) {
	switch x := val.(type) {
	case string:
		if x != "" {
			v(&text{subject: subj, at: at, kind: kindProse, s: x})
		}
	case []any:
		for i, e := range x {
			walkValue(v, subj, &pathStep{parent: at, step: "[" + strconv.Itoa(i) + "]"}, e, schemaWalk{params: w.params, depth: w.depth + 1})
		}
	case map[string]any:
		walkObject(v, subj, at, x, w)
	}
}

// walkObject is walkValue of an object: its keys in order, each told as
// a name unless it is a schema keyword, then its value.
func walkObject(v visit, subj string, at *pathStep, x map[string]any, w schemaWalk) {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		step := &pathStep{parent: at, step: member(k)}
		ksubj := subj
		if w.topProps {
			ksubj = fmt.Sprintf("%s parameter %q", subj, k)
		}
		if w.topProps || !schemaKeywords()[k] {
			v(&text{subject: ksubj, at: step, kind: kindName, s: k})
		}
		next := schemaWalk{params: w.params, depth: w.depth + 1}
		// The top level's properties are the tool's parameters.
		next.topProps = k == "properties" && w.depth == 0 && w.params && !w.topProps
		walkValue(v, ksubj, step, x[k], next)
	}
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
var confusables = sync.OnceValue(func() map[rune]rune {
	return map[rune]rune{
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
		// Latin: the long s, an s to a case-insensitive expression and to a
		// reader, which strings.ToLower keeps (so that a word test on the
		// lower-case text would miss "diſmiss")
		'ſ': 's',
	}
})

// latinLookalike returns the Latin letter r imitates: a Cyrillic or Greek
// look-alike, or a full-width or mathematical letter (by compatibility
// decomposition); ok is false for every other rune.
func latinLookalike(r rune) (rune, bool) {
	if l, ok := confusables()[r]; ok {
		return l, true
	}
	if !mayDecomposeToLatin(r) {
		return 0, false
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	k := norm.NFKC.Bytes(buf[:n])
	if len(k) == 1 && isASCIIAlnum(k[0]) {
		return rune(k[0]), true
	}
	return 0, false
}

// mayDecomposeToLatin reports whether r is in the blocks whose letters
// may decompose to a Latin letter: full-width, mathematical, letter-like
// and enclosed letters.
func mayDecomposeToLatin(r rune) bool {
	return r >= 0xff00 && r <= 0xffef || r >= 0x1d400 && r <= 0x1d7ff || r >= 0x2100 && r <= 0x214f || r >= 0x2460 && r <= 0x24ff || r >= 0x1f100 && r <= 0x1f1ff
}

// isASCIIAlnum reports whether b is an ASCII letter or digit.
func isASCIIAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
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
func ownNames(c *catalog.Listing) nameSet {
	n := nameSet{}
	for _, t := range c.Tools {
		if t != nil {
			n.addTool(t)
		}
	}
	for _, p := range c.Prompts {
		if p != nil {
			n.add(p.Name)
			n.addTitle(p.Title)
		}
	}
	if si := c.ServerInfo(); si != nil {
		n.add(si.Name)
	}
	return n
}

// addTool adds the names of tool t: its name, titles and parameters.
func (n nameSet) addTool(t *mcp.Tool) {
	n.add(t.Name)
	n.addTitle(t.Title)
	if t.Annotations != nil {
		n.addTitle(t.Annotations.Title)
	}
	props, _ := schemaargs.Map(t.InputSchema)["properties"].(map[string]any)
	for p := range props {
		n.add(p)
	}
}

// add adds the name s.
func (n nameSet) add(s string) { n[normName(s)] = true }

// addTitle adds the title s, unless it is empty.
func (n nameSet) addTitle(s string) {
	if s != "" {
		n.add(s)
	}
}

// toolNames lists the tool names of c, for finding them in other
// servers' descriptions.
func toolNames(c *catalog.Listing) []string {
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

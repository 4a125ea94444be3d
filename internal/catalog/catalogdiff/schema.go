package catalogdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/askback/askback/internal/catalog"
)

// effect is what a difference between two schemas does to the values they
// accept.
type effect int

const (
	narrowed   effect = iota // the new schema accepts less
	widened                  // the new schema accepts more
	changed                  // neither: other values, or a change not understood
	annotation               // nothing accepted changes: what a reader is told does
)

// finding is one difference between two schemas.
type finding struct {
	path   catalog.Path
	effect effect
	// what names the part: type, enum, bound, format, pattern, required,
	// removed, added, renamed, description, title, default, keyword.
	what     string
	msg      string
	old, new any
	// name is the property a removed, added, renamed or required finding
	// is about; required says whether an added one is required.
	name     string
	required bool
}

// maxSchemaDepth bounds how deep compareSchemas follows nested schemas: a
// catalog file is bounded in size, but its nesting is not.
const maxSchemaDepth = 64

// findings passes on the differences of two schemas as they are found
// (emit), and counts the comparisons of one value with another made to
// find them (steps), which grow with the schemas' size, never with its
// square.
type findings struct {
	emit  func(finding)
	steps int
}

// compareSchemas lists the differences from old to new (schemaDifferences).
func compareSchemas(p catalog.Path, old, new any, steps *int) []finding {
	var list []finding
	schemaDifferences(p, old, new, steps, func(f finding) { list = append(list, f) })
	return list
}

// schemaDifferences passes each difference from old to new to emit as it
// is found, two JSON schemas as encoding/json reads them (numbers as
// json.Number or float64) or as their text (json.RawMessage), and counts
// its steps in *steps. The differences of a schema of many properties,
// each changed, are not held as a list beside the changes made of them.
func schemaDifferences(p catalog.Path, old, new any, steps *int, emit func(finding)) {
	out := &findings{emit: emit}
	cmpSchema(out, p, old, new, 0)
	*steps += out.steps
}

// rawRef is a JSON value as the part of the text it is in, not a copy.
type rawRef []byte

// UnmarshalJSON keeps b, the value's part of the text, which the schema's
// holder never changes.
func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// level is the schema v as cmpSchema reads it: a schema held as its text
// (json.RawMessage) is made a tree, but for its properties, each left as
// its text (nil when null) until it is compared with another. A schema of
// many properties is then never a tree whole (ten times its text): two
// properties of the same text are the same, and the tree of one that
// differs is garbage once compared.
func level(v any) any {
	raw, ok := v.(json.RawMessage)
	if !ok {
		return v
	}
	var members map[string]rawRef
	if json.Unmarshal(raw, &members) != nil || members == nil {
		return catalog.SchemaTree(raw) // not an object
	}
	m := make(map[string]any, len(members))
	for k, r := range members {
		var ps map[string]rawRef
		if k == "properties" && json.Unmarshal(r, &ps) == nil && ps != nil {
			pm := make(map[string]any, len(ps))
			for name, pr := range ps {
				pm[name] = nil
				if string(pr) != "null" {
					pm[name] = json.RawMessage(pr)
				}
			}
			m[k] = pm
			continue
		}
		m[k] = catalog.SchemaTree(json.RawMessage(r))
	}
	return m
}

// whole is v with every part level left as text made a tree: a value a
// finding shows.
func whole(v any) any {
	switch x := v.(type) {
	case json.RawMessage:
		return catalog.SchemaTree(x)
	case map[string]any:
		ps, ok := x["properties"].(map[string]any)
		if !ok || !hasRaw(ps) {
			return x
		}
		out := maps.Clone(x)
		wps := make(map[string]any, len(ps))
		for k, p := range ps {
			wps[k] = whole(p)
		}
		out["properties"] = wps
		return out
	}
	return v
}

func isRaw(v any) bool { _, ok := v.(json.RawMessage); return ok }

// hasRaw reports whether a value of m is held as its text.
func hasRaw(m map[string]any) bool {
	for _, v := range m {
		if isRaw(v) {
			return true
		}
	}
	return false
}

func cmpSchema(out *findings, p catalog.Path, old, new any, depth int) {
	if o, ok := old.(json.RawMessage); ok {
		if n, ok := new.(json.RawMessage); ok && bytes.Equal(o, n) {
			return // the same text: the same schema
		}
	}
	old, new = level(old), level(new)
	if sameJSON(old, new) {
		return
	}
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if !ok1 || !ok2 || depth >= maxSchemaDepth {
		old, new = whole(old), whole(new)
		add(out, finding{path: p, effect: booleanSchema(old, new), what: "keyword", msg: "schema changed", old: old, new: new})
		return
	}
	cmpRaw(out, p, om, nm, annotation, "", "description", "title")
	cmpRaw(out, p, om, nm, annotation, "default", "default", "examples")
	cmpType(out, p, om["type"], nm["type"])
	cmpEnum(out, p, om, nm)
	for _, b := range bounds {
		cmpBound(out, p, b, om[b.key], nm[b.key])
	}
	cmpWord(out, p, "pattern", om["pattern"], nm["pattern"])
	cmpWord(out, p, "format", om["format"], nm["format"])
	cmpMultipleOf(out, p, om["multipleOf"], nm["multipleOf"])
	cmpFlag(out, p, "uniqueItems", om["uniqueItems"], nm["uniqueItems"])
	cmpProperties(out, p, om, nm, depth)
	cmpAdditional(out, p, om["additionalProperties"], nm["additionalProperties"], depth)
	cmpItems(out, p, om["items"], nm["items"], depth)
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		cmpList(out, p, k, om[k], nm[k], depth)
	}
	for _, k := range []string{"$defs", "definitions", "patternProperties", "dependentSchemas"} {
		cmpMap(out, p, k, om[k], nm[k], depth)
	}
	cmpRaw(out, p, om, nm, changed, "keyword", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
		"$ref", "dependencies", "dependentRequired", "additionalItems", "contentMediaType", "contentEncoding")
	// Any other keyword (a vendor's x-..., readOnly, deprecated) changes
	// no value accepted that this comparison knows of: a reader should
	// still see it.
	cmpRaw(out, p, om, nm, annotation, "keyword", otherKeys(om, nm)...)
}

// cmpRaw reports each of keys whose value differs between om and nm as
// changed, with effect e, as the part what (the key itself when what is
// ""): keywords this comparison does not read into.
func cmpRaw(out *findings, p catalog.Path, om, nm map[string]any, e effect, what string, keys ...string) {
	for _, k := range keys {
		o, n := om[k], nm[k]
		if sameJSON(o, n) {
			continue
		}
		w := what
		if w == "" {
			w = k
		}
		add(out, finding{path: p.Key(k), effect: e, what: w, msg: k + " changed", old: o, new: n})
	}
}

// known are the keywords cmpSchema compares itself, and those it ignores
// ($comment, $schema, $id: no effect on values or readers).
var known = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "type": true, "enum": true, "const": true,
	"pattern": true, "format": true, "multipleOf": true, "uniqueItems": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true,
	"$defs": true, "definitions": true, "patternProperties": true, "dependentSchemas": true, "not": true, "if": true,
	"then": true, "else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "$ref": true, "dependencies": true, "dependentRequired": true, "additionalItems": true,
	"contentMediaType": true, "contentEncoding": true, "$comment": true, "$schema": true, "$id": true, "id": true,
}

func init() {
	for _, b := range bounds {
		known[b.key] = true
	}
}

func otherKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		if !known[k] {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, inA := a[k]; !known[k] && !inA {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func add(out *findings, f finding) { out.emit(f) }

// booleanSchema is the effect of a change between schemas that are not
// both objects: true (anything) to something else narrows, to true
// widens, false (nothing) the reverse.
func booleanSchema(old, new any) effect {
	switch {
	case new == true || isEmptyObject(new):
		return widened
	case old == true || isEmptyObject(old):
		return narrowed
	case new == false:
		return narrowed
	case old == false:
		return widened
	}
	return changed
}

func isEmptyObject(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// types returns the types a "type" keyword allows; nil for any.
func types(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// allows reports whether a type set allows type t (number allows
// integer; nil allows everything).
func allows(set []string, t string) bool {
	if set == nil {
		return true
	}
	return slices.Contains(set, t) || t == "integer" && slices.Contains(set, "number")
}

func covers(a, b []string) bool {
	if a == nil {
		return true
	}
	if b == nil {
		return false
	}
	for _, t := range b {
		if !allows(a, t) {
			return false
		}
	}
	return true
}

func cmpType(out *findings, p catalog.Path, o, n any) {
	if sameJSON(o, n) {
		return
	}
	ot, nt := types(o), types(n)
	if o != nil && ot == nil || n != nil && nt == nil {
		add(out, finding{path: p.Key("type"), effect: changed, what: "type", msg: "type changed", old: o, new: n})
		return
	}
	e := changed
	switch wide, narrow := covers(nt, ot), covers(ot, nt); {
	case wide && narrow:
		return // the same set written otherwise
	case wide:
		e = widened
	case narrow:
		e = narrowed
	}
	add(out, finding{path: p.Key("type"), effect: e, what: "type", msg: fmt.Sprintf("type %s → %s", typeText(o), typeText(n)), old: o, new: n})
}

func typeText(v any) string {
	if v == nil {
		return "any"
	}
	if t := types(v); len(t) > 0 {
		return strings.Join(t, "|")
	}
	return short(v)
}

// cmpEnum compares enum and const: values removed narrow, values added
// widen, an enum or const added narrows, one removed widens.
func cmpEnum(out *findings, p catalog.Path, om, nm map[string]any) {
	ov, oHas := enumValues(om)
	nv, nHas := enumValues(nm)
	where := p.Key("enum")
	if _, ok := nm["const"]; ok {
		where = p.Key("const")
	} else if _, ok := om["const"]; ok && !nHas {
		where = p.Key("const")
	}
	switch {
	case !oHas && !nHas:
		if _, ok := om["enum"]; ok || nm["enum"] != nil {
			if !sameJSON(om["enum"], nm["enum"]) {
				add(out, finding{path: where, effect: changed, what: "enum", msg: "enum changed", old: om["enum"], new: nm["enum"]})
			}
		}
	case !oHas:
		add(out, finding{path: where, effect: narrowed, what: "enum", msg: "allowed values now limited to " + short(nv), new: nv})
	case !nHas:
		add(out, finding{path: where, effect: widened, what: "enum", msg: "allowed values no longer limited", old: ov})
	default:
		cmpValues(out, where, ov, nv)
	}
}

// enumValues are the values a schema m limits a value to: its const, or
// its enum; false when it has neither.
func enumValues(m map[string]any) ([]any, bool) {
	if c, ok := m["const"]; ok {
		return []any{c}, true
	}
	if e, ok := m["enum"].([]any); ok {
		return e, true
	}
	return nil, false
}

// cmpValues compares two lists of allowed values (at where): values
// removed narrow, values added widen.
func cmpValues(out *findings, where catalog.Path, ov, nv []any) {
	var removed, added []any
	oset, nset := valueSet(out, ov), valueSet(out, nv)
	for _, v := range ov {
		out.steps++
		if !nset[valueKey(v)] {
			removed = append(removed, v)
		}
	}
	for _, v := range nv {
		out.steps++
		if !oset[valueKey(v)] {
			added = append(added, v)
		}
	}
	if len(removed) > 0 {
		add(out, finding{path: where, effect: narrowed, what: "enum", msg: "allowed value removed: " + list(removed), old: removed})
	}
	if len(added) > 0 {
		add(out, finding{path: where, effect: widened, what: "enum", msg: "allowed value added: " + list(added), new: added})
	}
}

// valueKey is what two JSON values of an enum share when they are one
// value: numbers by value (1 and 1.0 are one), anything else as
// sameJSON compares it.
func valueKey(v any) string {
	if x, ok := number(v); ok {
		return "n" + x.RatString()
	}
	if x, ok := v.(string); ok {
		return "s" + x // most enums' values: no digest to make
	}
	d := digestOf(v)
	return "v" + string(d[:])
}

// valueSet is the keys of the values of a list.
func valueSet(out *findings, list []any) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, v := range list {
		out.steps++
		set[valueKey(v)] = true
	}
	return set
}

func list(vs []any) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, short(v))
	}
	return strings.Join(parts, ", ")
}

// bound is a keyword that limits a value from below or above.
type bound struct {
	key   string
	lower bool // raising it narrows (minimum); else lowering it does
}

var bounds = []bound{
	{"minimum", true}, {"exclusiveMinimum", true}, {"minLength", true}, {"minItems", true}, {"minProperties", true}, {"minContains", true},
	{"maximum", false}, {"exclusiveMaximum", false}, {"maxLength", false}, {"maxItems", false}, {"maxProperties", false}, {"maxContains", false},
}

func cmpBound(out *findings, p catalog.Path, b bound, o, n any) {
	if sameJSON(o, n) {
		return
	}
	at := p.Key(b.key)
	// Draft 4 wrote exclusiveMinimum and exclusiveMaximum as booleans.
	if ob, ok := o.(bool); ok || isBool(n) {
		nb, _ := n.(bool)
		e := widened
		if nb && !ob {
			e = narrowed
		}
		add(out, finding{path: at, effect: e, what: "bound", msg: fmt.Sprintf("%s %s → %s", b.key, short(o), short(n)), old: o, new: n})
		return
	}
	e, same := boundEffect(b, o, n)
	if same {
		return
	}
	verb := map[effect]string{narrowed: "tightened", widened: "loosened", changed: "changed"}[e]
	add(out, finding{path: at, effect: e, what: "bound", msg: fmt.Sprintf("%s %s: %s → %s", b.key, verb, shortOr(o, "none"), shortOr(n, "none")), old: o, new: n})
}

// boundEffect is what changing the numeric bound b from o to n does
// (nil for none): adding a bound or moving it inward narrows, removing
// it or moving it outward widens, a value not a number changes. same is
// true when the two are one number written two ways.
func boundEffect(b bound, o, n any) (e effect, same bool) {
	ov, oOK := number(o)
	nv, nOK := number(n)
	switch {
	case o != nil && !oOK || n != nil && !nOK:
		return changed, false
	case !oOK:
		return narrowed, false // a bound added
	case !nOK:
		return widened, false // a bound removed
	case ov.Cmp(nv) == 0:
		return changed, true
	case (ov.Cmp(nv) < 0) == b.lower:
		return narrowed, false
	}
	return widened, false
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// number reads a JSON number exactly.
func number(v any) (*big.Rat, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = n.String()
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		return r, true
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	default:
		return nil, false
	}
	if len(s) > 64 {
		return nil, false // no bound needs more; a huge exponent would cost
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// cmpWord compares pattern and format: one added or changed narrows (a
// changed pattern may accept other strings: it is taken as narrowing),
// one removed widens.
func cmpWord(out *findings, p catalog.Path, key string, o, n any) {
	if sameJSON(o, n) {
		return
	}
	e := narrowed
	msg := fmt.Sprintf("%s added: %s", key, short(n))
	switch {
	case n == nil:
		e, msg = widened, fmt.Sprintf("%s removed (was %s)", key, short(o))
	case o != nil:
		msg = fmt.Sprintf("%s changed: %s → %s", key, short(o), short(n))
	}
	add(out, finding{path: p.Key(key), effect: e, what: key, msg: msg, old: o, new: n})
}

func cmpMultipleOf(out *findings, p catalog.Path, o, n any) {
	if sameJSON(o, n) {
		return
	}
	ov, oOK := number(o)
	nv, nOK := number(n)
	e := narrowed
	switch {
	case !nOK && n == nil:
		e = widened
	case oOK && nOK && nv.Sign() != 0:
		// Every multiple of the old step is one of the new when the new
		// step divides it.
		if q := new(big.Rat).Quo(ov, nv); q.IsInt() {
			e = widened
		}
	}
	add(out, finding{path: p.Key("multipleOf"), effect: e, what: "bound", msg: fmt.Sprintf("multipleOf %s → %s", shortOr(o, "none"), shortOr(n, "none")), old: o, new: n})
}

func cmpFlag(out *findings, p catalog.Path, key string, o, n any) {
	ob, _ := o.(bool)
	nb, _ := n.(bool)
	if ob == nb {
		if !sameJSON(o, n) && !(o == nil && n == false || o == false && n == nil) {
			add(out, finding{path: p.Key(key), effect: changed, what: "bound", msg: key + " changed", old: o, new: n})
		}
		return
	}
	e := widened
	if nb {
		e = narrowed
	}
	add(out, finding{path: p.Key(key), effect: e, what: "bound", msg: fmt.Sprintf("%s %v → %v", key, ob, nb), old: o, new: n})
}

func required(m map[string]any) []string {
	var out []string
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func props(m map[string]any) map[string]any {
	p, _ := m["properties"].(map[string]any)
	return p
}

func cmpProperties(out *findings, p catalog.Path, om, nm map[string]any, depth int) {
	c := newPropertyChange(om, nm)
	pp := p.Key("properties")
	c.renames(out, pp)
	c.removedAndAdded(out, pp)
	names := make([]string, 0, len(c.op))
	for k := range c.op {
		if _, ok := c.np[k]; ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		cmpSchema(out, pp.Key(k), c.op[k], c.np[k], depth+1)
	}
	c.requiredChanges(out, p.Key("required"))
}

// propertyChange is how the properties of two object schemas and their
// required lists differ.
type propertyChange struct {
	op, np             map[string]any // the properties, old and new
	oreq, nreq         []string       // the required lists
	oreqSet, nreqSet   map[string]bool
	removed, added     []string // properties, sorted
	removedSet, addSet map[string]bool
	paired             map[string]bool // removed and added properties taken as renamed
}

// newPropertyChange finds what properties of om and nm are removed and
// added.
func newPropertyChange(om, nm map[string]any) *propertyChange {
	c := &propertyChange{op: props(om), np: props(nm), oreq: required(om), nreq: required(nm), paired: map[string]bool{}}
	c.oreqSet, c.nreqSet = stringSet(c.oreq), stringSet(c.nreq)
	c.removed, c.added = missingFrom(c.op, c.np), missingFrom(c.np, c.op)
	c.removedSet, c.addSet = stringSet(c.removed), stringSet(c.added)
	return c
}

// missingFrom lists, sorted, the keys of a that b does not have.
func missingFrom(a, b map[string]any) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// renames reports a property removed and one added with the same schema
// as renamed: each removed one pairs with the first added one of its
// schema not yet paired, found by the schema's digest.
func (c *propertyChange) renames(out *findings, pp catalog.Path) {
	bySchema := map[digest][]string{}
	for _, a := range c.added {
		out.steps++
		d := digestOf(c.np[a])
		bySchema[d] = append(bySchema[d], a)
	}
	for _, r := range c.removed {
		out.steps++
		d := digestOf(c.op[r])
		cands := bySchema[d]
		if len(cands) == 0 {
			continue
		}
		a := cands[0]
		bySchema[d] = cands[1:]
		c.paired[a], c.paired[r] = true, true
		add(out, finding{path: pp.Key(r), effect: changed, what: "renamed", name: r,
			msg: "renamed?", old: r, new: a,
			required: c.nreqSet[a]})
	}
}

// removedAndAdded reports the properties removed and added that are not
// renamed.
func (c *propertyChange) removedAndAdded(out *findings, pp catalog.Path) {
	for _, r := range c.removed {
		if !c.paired[r] {
			add(out, finding{path: pp.Key(r), effect: changed, what: "removed", name: r, msg: fmt.Sprintf("%q removed", r), old: whole(c.op[r])})
		}
	}
	for _, a := range c.added {
		if c.paired[a] {
			continue
		}
		req := c.nreqSet[a]
		msg := fmt.Sprintf("optional %q added", a)
		if req {
			msg = fmt.Sprintf("required %q added", a)
		}
		add(out, finding{path: pp.Key(a), effect: widened, what: "added", name: a, required: req, msg: msg, new: whole(c.np[a])})
	}
}

// requiredChanges reports the names required now and not before, and
// the other way round: of the properties on both sides (and any not
// declared), those added, removed or renamed being reported already.
func (c *propertyChange) requiredChanges(out *findings, rp catalog.Path) {
	for _, r := range c.nreq {
		out.steps++
		if c.oreqSet[r] {
			continue
		}
		if _, isNew := c.np[r]; isNew && c.op[r] == nil && !c.paired[r] {
			continue // reported as a required property added
		}
		if c.addSet[r] {
			continue // renamed, reported
		}
		add(out, finding{path: rp, effect: narrowed, what: "required", name: r, msg: fmt.Sprintf("%q is now required", r), new: r})
	}
	for _, r := range c.oreq {
		out.steps++
		if c.nreqSet[r] || c.removedSet[r] {
			continue
		}
		add(out, finding{path: rp, effect: widened, what: "required", name: r, msg: fmt.Sprintf("%q is no longer required", r), old: r})
	}
}

// stringSet is the strings of a list as a set.
func stringSet(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, s := range list {
		set[s] = true
	}
	return set
}

func cmpAdditional(out *findings, p catalog.Path, o, n any, depth int) {
	if sameJSON(o, n) {
		return
	}
	at := p.Key("additionalProperties")
	allowsAny := func(v any) bool { return v == nil || v == true || isEmptyObject(v) }
	switch {
	case allowsAny(o) && allowsAny(n):
		return
	case allowsAny(n):
		add(out, finding{path: at, effect: widened, what: "bound", msg: "other properties now allowed", old: o, new: n})
	case allowsAny(o):
		add(out, finding{path: at, effect: narrowed, what: "bound", msg: "other properties no longer allowed", old: o, new: n})
	case isMap(o) && isMap(n):
		cmpSchema(out, at, o, n, depth+1)
	default:
		add(out, finding{path: at, effect: booleanSchema(o, n), what: "bound", msg: "additionalProperties changed", old: o, new: n})
	}
}

func isMap(v any) bool { _, ok := v.(map[string]any); return ok }

func cmpItems(out *findings, p catalog.Path, o, n any, depth int) {
	if sameJSON(o, n) {
		return
	}
	at := p.Key("items")
	switch {
	case o == nil:
		add(out, finding{path: at, effect: narrowed, what: "type", msg: "items now limited", new: n})
	case n == nil:
		add(out, finding{path: at, effect: widened, what: "type", msg: "items no longer limited", old: o})
	default:
		if _, ok := o.([]any); ok {
			cmpList(out, p, "items", o, n, depth)
			return
		}
		cmpSchema(out, at, o, n, depth+1)
	}
}

// cmpList compares lists of schemas (anyOf, oneOf, allOf, tuples) item by
// item when they are as long; otherwise as one change it cannot judge.
func cmpList(out *findings, p catalog.Path, key string, o, n any, depth int) {
	if sameJSON(o, n) {
		return
	}
	ol, ok1 := o.([]any)
	nl, ok2 := n.([]any)
	if !ok1 || !ok2 || len(ol) != len(nl) {
		add(out, finding{path: p.Key(key), effect: changed, what: "keyword", msg: key + " changed", old: o, new: n})
		return
	}
	for i := range ol {
		cmpSchema(out, p.Key(key).Index(i), ol[i], nl[i], depth+1)
	}
}

// cmpMap compares maps of schemas ($defs) name by name; one removed or
// added is a change it cannot judge (what refers to it?).
func cmpMap(out *findings, p catalog.Path, key string, o, n any, depth int) {
	if sameJSON(o, n) {
		return
	}
	om, ok1 := o.(map[string]any)
	nm, ok2 := n.(map[string]any)
	if !ok1 || !ok2 {
		add(out, finding{path: p.Key(key), effect: changed, what: "keyword", msg: key + " changed", old: o, new: n})
		return
	}
	for _, k := range unionKeys(om, nm) {
		ov, ok1 := om[k]
		nv, ok2 := nm[k]
		switch {
		case ok1 && ok2:
			cmpSchema(out, p.Key(key).Key(k), ov, nv, depth+1)
		default:
			add(out, finding{path: p.Key(key).Key(k), effect: changed, what: "keyword", msg: fmt.Sprintf("%s %q %s", key, k, map[bool]string{true: "removed", false: "added"}[ok1]), old: ov, new: nv})
		}
	}
}

// short is v in JSON, cut to a length a line can hold.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 80 {
		cut := 77
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func shortOr(v any, none string) string {
	if v == nil {
		return none
	}
	return short(v)
}

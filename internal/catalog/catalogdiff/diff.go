// Package catalogdiff compares two catalogs of a server (internal/catalog)
// and classifies every change by what it means for the server's callers:
// breaking (a caller written for the old catalog fails), review (what the
// model is told changed: descriptions, instructions, annotations, a rug
// pull) or safe. It writes the result as text, JSON, Markdown for a pull
// request's comment, SARIF for code scanning, and GitHub Actions
// annotations.
package catalogdiff

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/text/optname"
)

// Change is one difference between two catalogs.
type Change struct {
	Rule Rule
	// Path is where it is: in the new catalog, or in the old one for
	// what was removed (Removed).
	Path    catalog.Path
	Removed bool
	// Subject names what changed for people: `tool "deploy"`.
	Subject string
	// Message says what changed, in a line.
	Message string
	// Old and New are the values before and after, when they help (a
	// description's text, a bound); nil when absent.
	Old, New any
}

// Class is the change's class.
func (c Change) Class() Class { return c.Rule.Class }

// Side names a catalog compared: where it came from and what it says of
// its server.
type Side struct {
	Source  string `json:"source"` // the file, or how the live server was reached
	Server  string `json:"server"`
	Version string `json:"version,omitempty"`
	// Protocol and ClientCapabilities are the protocol version the
	// catalog was read on and what its client declared.
	Protocol           string   `json:"protocolVersion,omitempty"`
	ClientCapabilities []string `json:"clientCapabilities,omitempty"`
}

// Report is the outcome of a comparison.
type Report struct {
	Old, New Side
	// Notes say what to know before the changes: that the catalogs were
	// read by clients that declared different capabilities or spoke
	// different protocol versions, and what that changed.
	Notes   []string
	Changes []Change
	// Files say where the catalogs compared are written, for SARIF to
	// show each change at its line; the caller sets them.
	Files Files
	// Name names one of the caller's options in its terms, for the lines
	// of the reports that point at it (a command line's flag); nil, or
	// "", names it as this package does ([Option.String]).
	Name optname.Namer[Option]
}

// Option is one of the caller's choices a report points at; [Report.Name]
// words it for the caller.
type Option int

// The options a report points at.
const (
	// OptionThreshold is the [Threshold] a diff fails at, the argument of
	// [Report.WriteText], [Report.WriteJSON] and [Report.WriteMarkdown].
	OptionThreshold Option = iota + 1
)

// String names o in this package's terms.
func (o Option) String() string {
	switch o {
	case OptionThreshold:
		return "Threshold"
	}
	return fmt.Sprintf("Option(%d)", int(o))
}

// Count returns how many changes of class c the report has.
func (r *Report) Count(c Class) int {
	n := 0
	for _, ch := range r.Changes {
		if ch.Class() == c {
			n++
		}
	}
	return n
}

// Worst is the most serious class of the changes, and false when there are
// none.
func (r *Report) Worst() (Class, bool) {
	if len(r.Changes) == 0 {
		return Safe, false
	}
	w := Safe
	for _, ch := range r.Changes {
		w = max(w, ch.Class())
	}
	return w, true
}

// Fails reports whether the report fails at threshold t.
func (r *Report) Fails(t Threshold) bool {
	w, any := r.Worst()
	return any && t.Fails(w)
}

// Compare lists the changes from old to new, most serious first, then by
// where they are.
// A change that what the new catalog's client declared explains (it
// declared less than the old one's) is to review, not breaking (see
// client.go).
func Compare(old, new *catalog.Catalog) *Report {
	d := compare(old, new)
	c := compareClients(old, new)
	d.forClients(c)
	r := d.report(old, new)
	r.Notes = c.notes(old, new)
	return r
}

// compare finds the changes from old to new, unsorted.
func compare(old, new *catalog.Catalog) *differ {
	d := &differ{}
	d.server(old, new)
	d.capabilities("capabilities", old.Capabilities, new.Capabilities)
	d.tools(old.Tools, new.Tools)
	d.prompts(old.Prompts, new.Prompts)
	d.resources(old.Resources, new.Resources)
	d.templates(old.Templates, new.Templates)
	return d
}

// report sorts the changes found into a report of old and new.
func (d *differ) report(old, new *catalog.Catalog) *Report {
	slices.SortStableFunc(d.changes, func(a, b Change) int {
		return cmp.Or(-cmp.Compare(a.Class(), b.Class()), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Rule.ID, b.Rule.ID), cmp.Compare(a.Message, b.Message))
	})
	side := func(c *catalog.Catalog) Side {
		return Side{Server: c.Server.Name, Version: c.Server.Version, Protocol: c.ProtocolVersion, ClientCapabilities: c.ClientCapabilities}
	}
	return &Report{Old: side(old), New: side(new), Changes: d.changes}
}

type differ struct {
	changes []Change
	// steps counts the comparisons of one value with another: they grow
	// with the catalogs' size, never with its square (a hostile catalog
	// must not stall a CI job).
	steps int
}

func (d *differ) add(rule Rule, p catalog.Path, subject, msg string, old, new any) {
	d.changes = append(d.changes, Change{Rule: rule, Path: p, Subject: subject, Message: msg, Old: old, New: new})
}

func (d *differ) removed(rule Rule, p catalog.Path, subject, msg string, old, new any) {
	d.changes = append(d.changes, Change{Rule: rule, Path: p, Removed: true, Subject: subject, Message: msg, Old: old, New: new})
}

// text compares a piece of text the model or the user reads.
func (d *differ) text(rule Rule, p catalog.Path, subject, what, old, new string) {
	if old == new {
		return
	}
	msg := what + " changed"
	switch {
	case old == "":
		msg = what + " added"
	case new == "":
		msg = what + " removed"
	}
	d.add(rule, p, subject, msg, nilIfEmpty(old), nilIfEmpty(new))
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (d *differ) icons(p catalog.Path, subject string, old, new []catalog.Icon) {
	if !reflect.DeepEqual(old, new) {
		d.add(RuleIconChanged, p.Key("icons"), subject, "icons changed", iconSources(old), iconSources(new))
	}
}

func iconSources(icons []catalog.Icon) any {
	if len(icons) == 0 {
		return nil
	}
	var out []string
	for _, i := range icons {
		out = append(out, i.Src)
	}
	return out
}

func (d *differ) server(old, new *catalog.Catalog) {
	const who = "server"
	o, n := old.Server, new.Server
	d.text(RuleServerInfoChanged, "server.name", who, "name", o.Name, n.Name)
	d.text(RuleServerInfoChanged, "server.title", who, "title", o.Title, n.Title)
	d.text(RuleServerInfoChanged, "server.description", who, "description", o.Description, n.Description)
	d.text(RuleServerInfoChanged, "server.websiteUrl", who, "website", o.WebsiteURL, n.WebsiteURL)
	if o.Version != n.Version {
		d.add(RuleVersionChanged, "server.version", who, fmt.Sprintf("version %s → %s", orNone(o.Version), orNone(n.Version)), nilIfEmpty(o.Version), nilIfEmpty(n.Version))
	}
	d.icons("server", who, o.Icons, n.Icons)
	if old.ProtocolVersion != new.ProtocolVersion {
		d.add(RuleProtocolChanged, "protocolVersion", who, fmt.Sprintf("protocol version %s → %s", orNone(old.ProtocolVersion), orNone(new.ProtocolVersion)),
			nilIfEmpty(old.ProtocolVersion), nilIfEmpty(new.ProtocolVersion))
	}
	d.text(RuleInstructionsChanged, "instructions", who, "instructions", old.Instructions, new.Instructions)
	d.others("server", who, o.Others(), n.Others())
}

// others compares the members of an item the catalog keeps as the server
// sent them and has no field for (its _meta, a later protocol's), each
// whole: any change is to review.
func (d *differ) others(p catalog.Path, who string, old, new map[string]any) {
	for _, k := range unionKeys(old, new) {
		d.steps++
		o, inOld := old[k]
		n, inNew := new[k]
		msg := "changed"
		switch {
		case !inOld:
			msg = "added"
		case !inNew:
			msg = "removed"
		case sameJSON(o, n):
			continue
		}
		d.add(RuleMemberChanged, p.Key(k), who, fmt.Sprintf("member %s %s", k, msg), o, n)
	}
}

// capabilities compares two capability objects member by member: one
// removed (or turned false) is dropped, one added is safe, other changes
// are to review.
func (d *differ) capabilities(p catalog.Path, old, new map[string]any) {
	d.capabilitiesAt(p, old, new, 0)
}

func (d *differ) capabilitiesAt(p catalog.Path, old, new map[string]any, depth int) {
	if depth >= maxSchemaDepth {
		// Deeper than any capability: compared whole, as for schemas.
		if !sameJSON(old, new) {
			d.add(RuleCapabilityOption, p, "server", fmt.Sprintf("capability %s changed", strings.TrimPrefix(string(p), "capabilities.")), old, new)
		}
		return
	}
	for _, k := range unionKeys(old, new) {
		d.capability(p.Key(k), old, new, k, depth)
	}
}

// capability compares the member k of two capability objects (at at): a
// member removed or turned false is dropped, one added is safe, objects
// are compared member by member, other changes are to review.
func (d *differ) capability(at catalog.Path, old, new map[string]any, k string, depth int) {
	o, inOld := old[k]
	n, inNew := new[k]
	name := strings.TrimPrefix(string(at), "capabilities.")
	switch {
	case sameJSON(o, n), isOff(o) && isOff(n):
		// Absent and false mean the same: not declared.
	case inOld && (!inNew || n == false) && o != false:
		d.removed(RuleCapabilityRemoved, at, "server", fmt.Sprintf("capability %s dropped", name), o, n)
	case inNew && (!inOld || o == false) && n != false:
		d.add(RuleCapabilityAdded, at, "server", fmt.Sprintf("capability %s added", name), o, n)
	case isMap(o) && isMap(n):
		d.capabilitiesAt(at, o.(map[string]any), n.(map[string]any), depth+1)
	default:
		d.add(RuleCapabilityOption, at, "server", fmt.Sprintf("capability %s changed", name), o, n)
	}
}

// isOff reports a capability's member that is absent (nil) or false, which
// MCP reads alike.
func isOff(v any) bool { return v == nil || v == false }

// unionKeys is every key of a and b, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// keyed pairs the items of two lists by key: those only in old, only in
// new, and in both (in key order). A key given twice pairs its first
// items; later ones are set apart as their own keys ("name (2)").
func keyed[T any](old, new []T, key func(T) string) (gone, came []T, both [][2]T) {
	index := func(items []T) (map[string]T, []string) {
		m := map[string]T{}
		var keys []string
		seen := map[string]int{}
		for _, it := range items {
			k := key(it)
			seen[k]++
			if seen[k] > 1 {
				k = fmt.Sprintf("%s (%d)", k, seen[k])
			}
			m[k] = it
			keys = append(keys, k)
		}
		return m, keys
	}
	om, okeys := index(old)
	nm, nkeys := index(new)
	slices.Sort(okeys)
	slices.Sort(nkeys)
	for _, k := range okeys {
		if n, ok := nm[k]; ok {
			both = append(both, [2]T{om[k], n})
		} else {
			gone = append(gone, om[k])
		}
	}
	for _, k := range nkeys {
		if _, ok := om[k]; !ok {
			came = append(came, nm[k])
		}
	}
	return gone, came, both
}

// renames pairs items gone with items that came when they have the same
// shape (and shape says they can pair): each at most once, in key order.
// Items are paired by a map of shapes, never each with each.
func renames[T any](d *differ, gone, came []T, shape func(T) (string, bool)) (pairs [][2]T, restGone, restCame []T) {
	byShape := map[string][]int{}
	for i, c := range came {
		d.steps++
		if s, ok := shape(c); ok {
			byShape[s] = append(byShape[s], i)
		}
	}
	used := make([]bool, len(came))
	for _, g := range gone {
		d.steps++
		s, ok := shape(g)
		if cands := byShape[s]; ok && len(cands) > 0 {
			used[cands[0]] = true
			byShape[s] = cands[1:]
			pairs = append(pairs, [2]T{g, came[cands[0]]})
			continue
		}
		restGone = append(restGone, g)
	}
	for i, c := range came {
		if !used[i] {
			restCame = append(restCame, c)
		}
	}
	return pairs, restGone, restCame
}

// kind is how the differences of one list of a catalog are reported:
// what its items are called, where they are and by what rules.
type kind[T any] struct {
	noun string // "tool", "resource template"
	path func(key string) catalog.Path
	key  func(T) string
	// shape is what an item gone and one that came share when they look
	// like one renamed, and false when the item pairs with none; guess
	// words it ("renamed to %q? (same schemas)").
	shape                   func(T) (string, bool)
	guess                   string
	renamed, removed, added Rule
}

// members reports the items of old and new by key: renamed, removed,
// added, and each pair on both sides passed to both with its path (in the
// new catalog) and its name for people.
//
// The items are paired by pointer, not copied: a tool is a large value,
// and the maps and pairs of two catalogs of many tools held a copy of
// every one.
func members[T any](d *differ, k kind[T], old, new []T, both func(p catalog.Path, who string, o, n T)) {
	key := func(t *T) string { return k.key(*t) }
	shape := func(t *T) (string, bool) { return k.shape(*t) }
	gone, came, kept := keyed(pointers(old), pointers(new), key)
	pairs, gone, came := renames(d, gone, came, shape)
	who := func(key string) string { return fmt.Sprintf("%s %q", k.noun, key) }
	for _, p := range pairs {
		o, n := key(p[0]), key(p[1])
		d.removed(k.renamed, k.path(o), who(o), fmt.Sprintf("%s removed; "+k.guess, who(o), n), o, n)
	}
	for _, t := range gone {
		key := key(t)
		d.removed(k.removed, k.path(key), who(key), who(key)+" removed", key, nil)
	}
	for _, t := range came {
		key := key(t)
		d.add(k.added, k.path(key), who(key), who(key)+" added", nil, key)
	}
	for _, b := range kept {
		key := key(b[1])
		both(k.path(key), who(key), *b[0], *b[1])
	}
}

// pointers are pointers to the items of list.
func pointers[T any](list []T) []*T {
	out := make([]*T, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out
}

func toolPath(name string) catalog.Path { return catalog.Path("tools").Key(name) }

func (d *differ) tools(old, new []catalog.Tool) {
	members(d, kind[catalog.Tool]{
		noun: "tool", path: toolPath, key: func(t catalog.Tool) string { return t.Name },
		shape: func(t catalog.Tool) (string, bool) {
			in, out := digestOf(catalog.SchemaTree(t.InputSchema)), digestOf(catalog.SchemaTree(t.OutputSchema))
			return string(in[:]) + string(out[:]), true
		},
		guess:   "renamed to %q? (same schemas)",
		renamed: RuleToolRenamed, removed: RuleToolRemoved, added: RuleToolAdded,
	}, old, new, d.tool)
}

func (d *differ) tool(p catalog.Path, who string, o, n catalog.Tool) {
	d.text(RuleTitleChanged, p.Key("title"), who, "title", o.Title, n.Title)
	d.text(RuleDescriptionChanged, p.Key("description"), who, "description", o.Description, n.Description)
	d.icons(p, who, o.Icons, n.Icons)
	d.annotations(p.Key("annotations"), who, o.Annotations, n.Annotations)
	d.execution(p.Key("execution"), who, o.Execution, n.Execution)
	// A catalog read from a file holds its schemas' text: the comparison
	// makes trees of the parts of one pair that differ (schema.go).
	d.input(p.Key("inputSchema"), who, o.InputSchema, n.InputSchema)
	d.output(p.Key("outputSchema"), who, o.OutputSchema, n.OutputSchema)
	d.others(p, who, o.Others(), n.Others())
}

// execution compares how a tool runs as a task, by what it means (no
// execution, or no taskSupport, is "forbidden"): one that now requires a
// task breaks direct callers; any other change is to review.
func (d *differ) execution(p catalog.Path, who string, o, n any) {
	if sameJSON(withTaskSupport(o), withTaskSupport(n)) {
		return
	}
	support := func(v any) string { return withTaskSupport(v)["taskSupport"].(string) }
	was, now := support(o), support(n)
	if now == "required" && was != "required" {
		d.add(RuleTaskRequired, p.Key("taskSupport"), who, fmt.Sprintf("task support %q, was %q", now, was), was, now)
		return
	}
	d.add(RuleExecutionChanged, p, who, fmt.Sprintf("execution changed (task support %q, was %q)", now, was), o, n)
}

// withTaskSupport is a tool's execution member with the taskSupport MCP
// gives it when absent ("forbidden": the tool does not run as a task).
func withTaskSupport(v any) map[string]any {
	m, _ := v.(map[string]any)
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	if s, ok := out["taskSupport"].(string); !ok || s == "" {
		out["taskSupport"] = "forbidden"
	}
	return out
}

// annotations compares a tool's hints by what they mean (an absent hint
// is MCP's default): a hint that now allows more than was approved is a
// rug pull.
func (d *differ) annotations(p catalog.Path, who string, o, n *catalog.ToolAnnotations) {
	var ot, nt string
	if o != nil {
		ot = o.Title
	}
	if n != nil {
		nt = n.Title
	}
	d.text(RuleTitleChanged, p.Key("title"), who, "annotated title", ot, nt)
	hint := func(name string, was, now bool, pull bool) {
		if was == now {
			return
		}
		rule := RuleAnnotationChanged
		msg := fmt.Sprintf("%s %v → %v", name, was, now)
		if pull {
			rule = RuleRugPull
			msg += ": " + map[string]string{
				"readOnlyHint":    "no longer read-only",
				"destructiveHint": "now destructive",
				"openWorldHint":   "now reaches the open world",
			}[name]
		}
		d.add(rule, p.Key(name), who, msg, was, now)
	}
	hint("readOnlyHint", o.ReadOnly(), n.ReadOnly(), o.ReadOnly() && !n.ReadOnly())
	// Destructiveness means something only for a tool that is not
	// read-only; a tool that was read-only is reported above.
	if !n.ReadOnly() && !o.ReadOnly() {
		hint("destructiveHint", o.Destructive(), n.Destructive(), !o.Destructive() && n.Destructive())
	}
	hint("idempotentHint", o.Idempotent(), n.Idempotent(), false)
	hint("openWorldHint", o.OpenWorld(), n.OpenWorld(), !o.OpenWorld() && n.OpenWorld())
}

// describe words a schema finding for people: noun is input or output,
// base the path of the schema.
func describe(noun string, base catalog.Path, f finding) string {
	switch f.what {
	case "added":
		kind := "optional"
		if f.required {
			kind = "required"
		}
		return fmt.Sprintf("%s %s %q added", kind, noun, chain(base, f.path))
	case "removed":
		return fmt.Sprintf("%s %q removed", noun, chain(base, f.path))
	case "renamed":
		return fmt.Sprintf("%s %q removed and %q added with the same schema: renamed?", noun, chain(base, f.path), f.new)
	case "required":
		in := chain(base, f.path.Parent())
		name := f.name
		if in != "" {
			name = in + "." + name
		}
		if f.effect == narrowed {
			return fmt.Sprintf("%s %q is now required", noun, name)
		}
		return fmt.Sprintf("%s %q is no longer required", noun, name)
	}
	if c := chain(base, f.path.Parent()); c != "" {
		return fmt.Sprintf("%s %q: %s", noun, c, f.msg)
	}
	return noun + ": " + f.msg
}

// chain names the property at p below the schema at base as a caller
// writes it: "target.zone", "tags[]" for an array's items.
func chain(base, p catalog.Path) string {
	all, under := p.Segments(), base.Segments()
	if len(all) < len(under) {
		return "" // the schema itself
	}
	segs := all[len(under):]
	var parts []string
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties":
			if i+1 < len(segs) {
				parts = append(parts, segs[i+1])
				i++
			}
		case "items":
			if len(parts) > 0 {
				parts[len(parts)-1] += "[]"
			}
		}
	}
	return strings.Join(parts, ".")
}

// input classifies the differences of an input schema: what refuses a
// caller's old arguments breaks, what accepts more is safe.
func (d *differ) input(p catalog.Path, who string, old, new any) {
	schemaDifferences(p, old, new, &d.steps, func(f finding) {
		msg := describe("input", p, f)
		if f.what == "removed" || f.what == "renamed" {
			d.removed(inputRule(f), f.path, who, msg, f.old, f.new)
		} else {
			d.add(inputRule(f), f.path, who, msg, f.old, f.new)
		}
	})
}

// inputRule is the rule of a difference of an input schema.
func inputRule(f finding) Rule {
	switch {
	case f.what == "removed":
		return RuleInputRemoved
	case f.what == "renamed":
		return RuleInputRenamed
	case f.what == "added" && f.required:
		return RuleInputRequired
	case f.what == "added":
		return RuleInputAdded
	case f.what == "required" && f.effect == narrowed:
		return RuleInputRequired
	case f.effect == annotation:
		return noteRule(f)
	case f.effect == widened:
		return RuleInputLoosened
	case f.effect == narrowed && f.what == "type":
		return RuleInputTypeNarrowed
	case f.effect == narrowed && f.what == "enum":
		return RuleInputEnumNarrowed
	case f.effect == narrowed:
		return RuleInputBoundTighter
	case f.what == "type":
		return RuleInputTypeNarrowed
	}
	return RuleInputSchemaChanged
}

// output classifies the differences of an output schema the other way
// round: callers read it, so what promises less or other values breaks,
// and what promises more (or narrower values) is safe.
func (d *differ) output(p catalog.Path, who string, old, new any) {
	switch {
	case old == nil && new == nil:
		return
	case old == nil:
		d.add(RuleOutputExtended, p, who, "output schema added", nil, nil)
		return
	case new == nil:
		d.removed(RuleOutputRemoved, p, who, "output schema removed: structured results are no longer promised", nil, nil)
		return
	}
	schemaDifferences(p, old, new, &d.steps, func(f finding) {
		msg := describe("output", p, f)
		if f.what == "removed" || f.what == "renamed" {
			d.removed(RuleOutputRemoved, f.path, who, msg, f.old, f.new)
		} else {
			d.add(outputRule(f), f.path, who, msg, f.old, f.new)
		}
	})
}

// outputRule is the rule of a difference of an output schema that
// removes nothing.
func outputRule(f finding) Rule {
	switch {
	case f.what == "added":
		return RuleOutputExtended
	case f.effect == annotation:
		return noteRule(f)
	case f.effect == narrowed:
		return RuleOutputExtended
	}
	return RuleOutputChanged
}

func noteRule(f finding) Rule {
	switch f.what {
	case "description":
		return RuleDescriptionChanged
	case "title":
		return RuleTitleChanged
	}
	return RuleSchemaNoteChanged
}

func promptPath(name string) catalog.Path { return catalog.Path("prompts").Key(name) }

func (d *differ) prompts(old, new []catalog.Prompt) {
	members(d, kind[catalog.Prompt]{
		noun: "prompt", path: promptPath, key: func(p catalog.Prompt) string { return p.Name },
		shape: func(p catalog.Prompt) (string, bool) {
			return argShape(p.Arguments), len(p.Arguments) > 0
		},
		guess:   "renamed to %q? (same arguments)",
		renamed: RulePromptRenamed, removed: RulePromptRemoved, added: RulePromptAdded,
	}, old, new, d.prompt)
}

// argShape is what callers rely on of a prompt's arguments: names and
// which are required (of a name given twice, the last).
func argShape(args []catalog.Argument) string {
	m := map[string]any{}
	for _, a := range args {
		m[a.Name] = a.Required
	}
	d := digestOf(m)
	return string(d[:])
}

func (d *differ) prompt(p catalog.Path, who string, o, n catalog.Prompt) {
	d.text(RuleTitleChanged, p.Key("title"), who, "title", o.Title, n.Title)
	d.text(RuleDescriptionChanged, p.Key("description"), who, "description", o.Description, n.Description)
	d.icons(p, who, o.Icons, n.Icons)
	gone, came, both := keyed(o.Arguments, n.Arguments, func(a catalog.Argument) string { return a.Name })
	ap := p.Key("arguments")
	for _, a := range gone {
		d.removed(RuleArgumentRemoved, ap.Key(a.Name), who, fmt.Sprintf("argument %q removed", a.Name), a.Name, nil)
	}
	for _, a := range came {
		if a.Required {
			d.add(RuleArgumentRequired, ap.Key(a.Name), who, fmt.Sprintf("required argument %q added", a.Name), nil, a.Name)
		} else {
			d.add(RuleArgumentAdded, ap.Key(a.Name), who, fmt.Sprintf("optional argument %q added", a.Name), nil, a.Name)
		}
	}
	for _, b := range both {
		oa, na := b[0], b[1]
		at := ap.Key(na.Name)
		switch {
		case !oa.Required && na.Required:
			d.add(RuleArgumentRequired, at.Key("required"), who, fmt.Sprintf("argument %q is now required", na.Name), false, true)
		case oa.Required && !na.Required:
			d.add(RuleArgumentAdded, at.Key("required"), who, fmt.Sprintf("argument %q is no longer required", na.Name), true, false)
		}
		d.text(RuleTitleChanged, at.Key("title"), who, fmt.Sprintf("argument %q title", na.Name), oa.Title, na.Title)
		d.text(RuleDescriptionChanged, at.Key("description"), who, fmt.Sprintf("argument %q description", na.Name), oa.Description, na.Description)
	}
	d.others(p, who, o.Others(), n.Others())
}

func resourcePath(uri string) catalog.Path { return catalog.Path("resources").Key(uri) }
func templatePath(uriTemplate string) catalog.Path {
	return catalog.Path("resourceTemplates").Key(uriTemplate)
}

func (d *differ) resources(old, new []catalog.Resource) {
	d.resourceList("resource", resourcePath, old, new)
}

// templates compares resource templates as resources keyed by their URI
// template.
func (d *differ) templates(old, new []catalog.Template) {
	d.resourceList("resource template", templatePath, asResources(old), asResources(new))
}

// asResources is templates as resources whose URI is the template.
func asResources(templates []catalog.Template) []catalog.Resource {
	out := make([]catalog.Resource, len(templates))
	for i, t := range templates {
		out[i] = catalog.Resource{URI: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
			MIMEType: t.MIMEType, Audience: t.Audience, Priority: t.Priority, Icons: t.Icons, Other: t.Others()}
	}
	return out
}

// resourceList compares resources (noun names them, path places them by
// URI): one gone and one added under the same name moved.
func (d *differ) resourceList(noun string, path func(string) catalog.Path, old, new []catalog.Resource) {
	members(d, kind[catalog.Resource]{
		noun: noun, path: path, key: func(r catalog.Resource) string { return r.URI },
		shape:   func(r catalog.Resource) (string, bool) { return r.Name, r.Name != "" },
		guess:   "moved to %q? (same name)",
		renamed: RuleResourceRenamed, removed: RuleResourceRemoved, added: RuleResourceAdded,
	}, old, new, d.resource)
}

func (d *differ) resource(p catalog.Path, who string, o, n catalog.Resource) {
	d.text(RuleResourceInfoChanged, p.Key("name"), who, "name", o.Name, n.Name)
	d.text(RuleTitleChanged, p.Key("title"), who, "title", o.Title, n.Title)
	d.text(RuleDescriptionChanged, p.Key("description"), who, "description", o.Description, n.Description)
	if o.MIMEType != n.MIMEType {
		d.add(RuleMIMETypeChanged, p.Key("mimeType"), who, fmt.Sprintf("MIME type %s → %s", orNone(o.MIMEType), orNone(n.MIMEType)), nilIfEmpty(o.MIMEType), nilIfEmpty(n.MIMEType))
	}
	d.icons(p, who, o.Icons, n.Icons)
	if !reflect.DeepEqual(o.Audience, n.Audience) {
		d.add(RuleAnnotationChanged, p.Key("audience"), who, fmt.Sprintf("audience %s → %s", short(o.Audience), short(n.Audience)), o.Audience, n.Audience)
	}
	if !reflect.DeepEqual(o.Priority, n.Priority) {
		op, np := deref(o.Priority), deref(n.Priority)
		d.add(RuleAnnotationChanged, p.Key("priority"), who, fmt.Sprintf("priority %s → %s", shortOr(op, "none"), shortOr(np, "none")), op, np)
	}
	d.others(p, who, o.Others(), n.Others())
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

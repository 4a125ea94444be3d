package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/text/lazyre"
	"github.com/askback/askback/internal/text/termsafe"
)

// MaxFileSize bounds a catalog file that ReadFile is given.
const MaxFileSize = 64 << 20

// Path names a place in a catalog, as the file nests it:
// tools.deploy.inputSchema.properties.environment, resources["file:///a"].
// The items of tools, prompts, prompt arguments, resources and templates
// are named by their name, URI or URI template; other arrays by index
// (icons[0]).
type Path string

var plainSegment = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// Key is p with one more member: .name when name is a plain word, else
// ["name"] quoted as Go quotes strings.
func (p Path) Key(name string) Path {
	if plainSegment.MatchString(name) {
		if p == "" {
			return Path(name)
		}
		return p + Path("."+name)
	}
	return p + Path("["+strconv.Quote(name)+"]")
}

// Index is p with one more array index.
func (p Path) Index(i int) Path { return p + Path("["+strconv.Itoa(i)+"]") }

// Parent is the path p is in: "" for a top-level member.
func (p Path) Parent() Path {
	starts := segmentStarts(string(p))
	if len(starts) <= 1 {
		return ""
	}
	return p[:starts[len(starts)-1]]
}

// segmentStarts returns where each segment of s begins (the index of its
// '.' or '[', 0 for the first).
func segmentStarts(s string) []int {
	starts := []int{0}
	in := false
	for i := 0; i < len(s); i++ {
		switch {
		case in && s[i] == '\\':
			i++
		case s[i] == '"':
			in = !in
		case !in && i > 0 && (s[i] == '.' || s[i] == '['):
			starts = append(starts, i)
		}
	}
	return starts
}

// Lines is where each path's value begins in a catalog file (from 1).
type Lines map[Path]int

// Line is the line of p, or of the nearest path p is in that has one (an
// added tool is shown at the tools list); 0 when none has.
func (l Lines) Line(p Path) int {
	for {
		if n, ok := l[p]; ok {
			return n
		}
		if p == "" {
			return 0
		}
		p = p.Parent()
	}
}

// Encode returns the catalog as its canonical file, and the line of every
// path in it.
func (c *Catalog) Encode() ([]byte, Lines, error) {
	return c.encode(nil)
}

// LinesOf returns the lines of paths in the catalog's canonical file, and
// of every path they are in (which Lines.Line falls back on): for each of
// them, what Encode's lines say, without keeping a line for every path of
// the file.
func (c *Catalog) LinesOf(paths []Path) (Lines, error) {
	want := map[Path]bool{"": true}
	for _, p := range paths {
		for ; p != "" && !want[p]; p = p.Parent() {
			want[p] = true
		}
	}
	e := &encoder{lines: Lines{}, line: 1, want: want, discard: true}
	return e.lines, c.encodeTo(e)
}

// encode writes the canonical file, noting the line of each path in want
// (every path when want is nil). The lists are made plain one item at a
// time, so that no more than one item's plain form is held at once.
func (c *Catalog) encode(want map[Path]bool) ([]byte, Lines, error) {
	e := &encoder{lines: Lines{}, line: 1, want: want}
	if err := c.encodeTo(e); err != nil {
		return nil, nil, err
	}
	return termsafe.JSON(e.buf.Bytes()), e.lines, nil
}

// encodeTo writes the canonical file with e (which escapes nothing:
// termsafe.JSON does, without adding a line).
func (c *Catalog) encodeTo(e *encoder) error {
	tree, err := c.fileTree()
	if err != nil {
		return err
	}
	if err := e.value("", tree, 0); err != nil {
		return err
	}
	e.buf.WriteByte('\n')
	return nil
}

// fileTree is the catalog's plain form, its lists made plain item by item
// as they are written (lazyList).
func (c *Catalog) fileTree() (map[string]any, error) {
	cc := *c
	cc.Format = Format
	cc.fill()
	cc.Sort()
	lists := cc
	cc.Tools, cc.Prompts, cc.Resources, cc.Templates = nil, nil, nil, nil
	head, err := plain(&cc)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	tree := head.(map[string]any)
	tree["tools"] = items(lists.Tools)
	tree["prompts"] = items(lists.Prompts)
	tree["resources"] = items(lists.Resources)
	tree["resourceTemplates"] = items(lists.Templates)
	return tree, nil
}

// lazyList is a list whose items are made plain as they are written.
type lazyList struct {
	n    int
	item func(i int) (any, error)
}

// items is list as a lazyList.
func items[T any](list []T) lazyList {
	return lazyList{n: len(list), item: func(i int) (any, error) { return plain(list[i]) }}
}

// Bytes returns the catalog as its canonical file (Encode without the
// lines).
func (c *Catalog) Bytes() ([]byte, error) {
	b, _, err := c.encode(map[Path]bool{})
	return b, err
}

// Matches reports whether data is the catalog's canonical file, byte for
// byte (what Bytes returns), without holding the file it writes: it is
// compared line by line as it is written.
//
// It stops at the first line that differs: a file in another form (compact,
// by another tool) is not written whole again to be found different.
func (c *Catalog) Matches(data []byte) (bool, error) {
	same := true
	e := &encoder{lines: Lines{}, line: 1, want: map[Path]bool{}, discard: true, sink: func(text []byte) {
		if !same {
			return
		}
		safe := termsafe.JSON(text) // within a line: no string spans two
		if !bytes.HasPrefix(data, safe) {
			same = false
			return
		}
		data = data[len(safe):]
	}}
	e.stop = func() bool { return !same }
	if err := c.encodeTo(e); errors.Is(err, errStopped) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	e.sink(e.buf.Bytes())
	return same && len(data) == 0, nil
}

// Write writes the catalog's canonical file.
func (c *Catalog) Write(w io.Writer) error {
	b, err := c.Bytes()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

type encoder struct {
	buf   bytes.Buffer
	lines Lines
	want  map[Path]bool // the paths whose lines to note; nil: every path
	line  int
	// discard keeps no text, only lines (LinesOf): a value never spans a
	// line, so the text before each new line can go, to sink if set.
	discard bool
	sink    func(text []byte)
	// stop, when set, ends the writing (errStopped) once it says so,
	// checked before each item of a list.
	stop func() bool
}

// errStopped is what the encoder returns when its stop said to.
var errStopped = errors.New("catalog: stopped")

func (e *encoder) newline(depth int) {
	if e.discard {
		if e.sink != nil {
			e.sink(e.buf.Bytes())
		}
		e.buf.Reset()
	}
	e.buf.WriteByte('\n')
	e.line++
	for range depth {
		e.buf.WriteString("  ")
	}
}

// maxLinedDepth is how deep the canonical file writes one member or item
// a line: a value nested deeper is written whole on its line, compact (its
// paths have the line of the value, Lines.Line's fallback). Written a line
// each and indented, a value nested n deep would cost n² bytes, and a path
// for each of its members n² more.
const maxLinedDepth = 32

func (e *encoder) value(p Path, v any, depth int) error {
	if e.want == nil || e.want[p] {
		e.lines[p] = e.line
	}
	if depth >= maxLinedDepth {
		if _, lazy := v.(lazyList); !lazy {
			return e.scalar(v)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		return e.object(p, v, depth)
	case []any:
		return e.array(p, lazyList{n: len(v), item: func(i int) (any, error) { return v[i], nil }}, depth)
	case lazyList:
		return e.array(p, v, depth)
	}
	return e.scalar(v)
}

// object writes the object v at p: its members in key order, one a line.
func (e *encoder) object(p Path, v map[string]any, depth int) error {
	if len(v) == 0 {
		e.buf.WriteString("{}")
		return nil
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		if err := e.scalar(k); err != nil {
			return err
		}
		e.buf.WriteString(": ")
		if err := e.value(p.Key(k), v[k], depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf.WriteByte('}')
	return nil
}

// array writes the array v at p: one item a line.
func (e *encoder) array(p Path, v lazyList, depth int) error {
	if v.n == 0 {
		e.buf.WriteString("[]")
		return nil
	}
	e.buf.WriteByte('[')
	for i := range v.n {
		if e.stop != nil && e.stop() {
			return errStopped
		}
		item, err := v.item(i)
		if err != nil {
			return fmt.Errorf("catalog: %w", err)
		}
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.newline(depth + 1)
		if err := e.value(itemPath(p, i, item), item, depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.buf.WriteByte(']')
	return nil
}

func (e *encoder) scalar(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	e.buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return nil
}

// keyedLists are the arrays whose items a path names by a member of
// theirs, by the path of the array.
func itemKey(list Path) string {
	switch list {
	case "tools", "prompts":
		return "name"
	case "resources":
		return "uri"
	case "resourceTemplates":
		return "uriTemplate"
	}
	if strings.HasPrefix(string(list), "prompts") && strings.HasSuffix(string(list), ".arguments") && list.Parent().Parent() == "prompts" {
		return "name"
	}
	return ""
}

// itemPath is the path of the i-th item of the array at list.
func itemPath(list Path, i int, item any) Path {
	if k := itemKey(list); k != "" {
		if m, ok := item.(map[string]any); ok {
			if name, ok := m[k].(string); ok {
				return list.Key(name)
			}
		}
	}
	return list.Index(i)
}

// parseSaved is how ReadFile reads a catalog with a catalogFormat: one
// JSON object in the form Encode writes (any spacing), no key twice in
// one object, no member the format does not have, catalogFormat 1. What
// was read is checked against the file one list item at a time, so that
// no more than one item is held twice.
func parseSaved(data []byte) (*Catalog, error) {
	if err := strictjson.CheckRepeats(data); err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] != '{' && json.Valid(data) {
		return nil, errors.New("not a JSON object")
	}
	var refs map[string]rawRef
	if err := json.Unmarshal(data, &refs); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	top := make(map[string]json.RawMessage, len(refs))
	for k, v := range refs {
		top[k] = json.RawMessage(v)
	}
	if err := checkFormat(top); err != nil {
		return nil, err
	}
	// Decoded as encoding/json does without a decoder of its own (which
	// would copy the file): the items' types read their numbers as
	// json.Number themselves (readOther), the capabilities are read again
	// so.
	// The lists are read into arrays of their length (encoding/json fills
	// the room a slice has): grown as they were read, each was copied as
	// it doubled, and had room for up to as many items again.
	c := Catalog{Tools: make([]Tool, 0, count(top["tools"])), Prompts: make([]Prompt, 0, count(top["prompts"])),
		Resources: make([]Resource, 0, count(top["resources"])), Templates: make([]Template, 0, count(top["resourceTemplates"]))}
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("not a catalog: %w", err)
	}
	if raw, ok := top["capabilities"]; ok {
		caps, err := plainJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("not a catalog: %w", err)
		}
		c.Capabilities, _ = caps.(map[string]any)
	}
	c.fill()
	// What was read, written again, must be what the file holds: nothing
	// dropped (a member the format does not have, a key in other letter
	// case that encoding/json would match anyway), nothing made up.
	if p, what, err := c.differsFrom(top); err != nil || what != "" {
		if err != nil {
			return nil, err
		}
		where := string(p)
		if where == "" {
			where = "the top level"
		}
		return nil, fmt.Errorf("%s: %s", where, what)
	}
	c.Sort()
	return &c, nil
}

// count is how many items the JSON array raw has (0 when it is not one).
func count(raw json.RawMessage) int {
	var items []rawRef
	if json.Unmarshal(raw, &items) != nil {
		return 0
	}
	return len(items)
}

// savedList is one list of a catalog as parseSaved checks it: its name,
// how many items were read, the i-th written again as JSON, and the type
// of its items.
type savedList struct {
	name string
	n    int
	item func(i int) ([]byte, error)
	of   any
}

// differsFrom names the first place where c, written again, differs from
// the file's top-level members top (its lists item by item), or a member
// that differs from one of the format's only in letter case.
func (c *Catalog) differsFrom(top map[string]json.RawMessage) (Path, string, error) {
	lists := []savedList{
		{"tools", len(c.Tools), func(i int) ([]byte, error) { return json.Marshal(c.Tools[i]) }, Tool{}},
		{"prompts", len(c.Prompts), func(i int) ([]byte, error) { return json.Marshal(c.Prompts[i]) }, Prompt{}},
		{"resources", len(c.Resources), func(i int) ([]byte, error) { return json.Marshal(c.Resources[i]) }, Resource{}},
		{"resourceTemplates", len(c.Templates), func(i int) ([]byte, error) { return json.Marshal(c.Templates[i]) }, Template{}},
	}
	head := *c
	head.Tools, head.Prompts, head.Resources, head.Templates = nil, nil, nil, nil
	again, err := plain(&head)
	if err != nil {
		return "", "", err
	}
	againTop, _ := again.(map[string]any)
	file := map[string]any{}
	for k, raw := range top {
		if slices.ContainsFunc(lists, func(l savedList) bool { return l.name == k }) && bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("[")) {
			file[k] = []any{} // compared item by item below
			continue
		}
		if file[k], err = plainJSON(raw); err != nil {
			return "", "", err
		}
	}
	for _, l := range lists {
		againTop[l.name] = []any{}
	}
	if err := checkCase("server", file["server"], Server{}); err != nil {
		return "", "", err
	}
	if p, what := firstDifference("", file, againTop); what != "" {
		return p, what, nil
	}
	for _, l := range lists {
		if p, what, err := l.differsFrom(top[l.name]); err != nil || what != "" {
			return p, what, err
		}
	}
	return "", "", nil
}

// differsFrom compares the list as read with the file's (raw), one item
// at a time.
func (l savedList) differsFrom(raw json.RawMessage) (Path, string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", nil
	}
	var items []rawRef
	if err := json.Unmarshal(raw, &items); err != nil {
		return "", "", err
	}
	if len(items) != l.n {
		return Path(l.name), "not in the form of a catalog", nil
	}
	var buf bytes.Buffer
	for i, itemRaw := range items {
		again, err := l.item(i)
		if err != nil {
			return "", "", err
		}
		item, back, err := itemTrees(itemRaw, again, itemKey(Path(l.name)), &buf)
		if err != nil {
			return "", "", err
		}
		p := itemPath(Path(l.name), i, item)
		if err := checkCase(p, item, l.of); err != nil {
			return "", "", err
		}
		if q, what := firstDifference(p, item, back); what != "" {
			return q, what, nil
		}
	}
	return "", "", nil
}

// itemTrees are an item of a list as the file has it (file) and as it
// was read, written again (again), as plain trees to compare, but for
// the members that are the same text in both (the file's compacted), nil
// in both: a member written back as the file has it cannot differ, and
// its tree (a tool's schema: ten times its text) is not made. The
// member that names the item (key) is always made. buf is room to
// compact in.
func itemTrees(file, again []byte, key string, buf *bytes.Buffer) (item, back any, err error) {
	var fm, am map[string]rawRef
	if json.Unmarshal(file, &fm) != nil || json.Unmarshal(again, &am) != nil || fm == nil || am == nil {
		// Not two objects: compared whole.
		if item, err = plainJSON(file); err != nil {
			return nil, nil, err
		}
		back, err = plainJSON(again)
		return item, back, err
	}
	im, bm := make(map[string]any, len(fm)), make(map[string]any, len(am))
	for k, raw := range fm {
		if a, ok := am[k]; ok && k != key {
			buf.Reset()
			if json.Compact(buf, raw) == nil && bytes.Equal(buf.Bytes(), a) {
				im[k], bm[k] = nil, nil
				continue
			}
		}
		if im[k], err = plainJSON(raw); err != nil {
			return nil, nil, err
		}
	}
	for k, raw := range am {
		if _, done := bm[k]; done {
			continue
		}
		if bm[k], err = plainJSON(raw); err != nil {
			return nil, nil, err
		}
	}
	return im, bm, nil
}

// checkFormat refuses a file's top-level object without the
// catalogFormat this reader reads.
func checkFormat(top map[string]json.RawMessage) error {
	raw, ok := top["catalogFormat"]
	if !ok {
		return errors.New("no catalogFormat: not a catalog written by mcp-tester catalog save")
	}
	f, err := plainJSON(raw)
	if err != nil {
		return err
	}
	if n, ok := f.(json.Number); !ok || n.String() != strconv.Itoa(Format) {
		return fmt.Errorf("catalogFormat %v: this mcp-tester reads format %d", f, Format)
	}
	return nil
}

// checkCase refuses a member of v, an object of the catalog's type of
// (Server{}, Tool{}, …) at p, that differs from one of the format's only
// in letter case (any other member is one the server sent, kept as sent),
// naming where it is.
func checkCase(p Path, v any, of any) error {
	m, _ := v.(map[string]any)
	known := jsonNames(of)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if known[k] || !foldsToKnown(k, known) {
			continue
		}
		for name := range known {
			if strings.EqualFold(k, name) {
				return fmt.Errorf("%s: not a member of a catalog (%q is)", p.Key(k), name)
			}
		}
	}
	return nil
}

// firstDifference names the first place where a (the file) and b (what
// was read of it) differ, below p.
func firstDifference(p Path, a, b any) (Path, string) {
	at, what := difference(&step{root: p}, a, b)
	if what == "" {
		return "", ""
	}
	return at.path(), what
}

// step is one member or item on the way down from a path (root) into a
// value: the path is made of the steps only when a difference is found,
// so that the way down a deeply nested value costs no more than its
// depth (a path made at each step would cost its square).
type step struct {
	up    *step
	root  Path // the path above the first step (up == nil)
	key   string
	index int // when key is "" and up != nil
	depth int // steps below root
}

// member is s with one more member.
func (s *step) member(k string) *step { return &step{up: s, key: k, depth: s.depth + 1} }

// item is s with one more item, named as itemPath names it where s is
// near enough to the top to be one of the catalog's named lists.
func (s *step) item(i int, v any) *step {
	if s.depth <= 3 {
		if list := s.path(); itemKey(list) != "" {
			return &step{root: itemPath(list, i, v), depth: s.depth + 1}
		}
	}
	return &step{up: s, index: i, depth: s.depth + 1}
}

// path is where s is.
func (s *step) path() Path {
	var down []*step
	for ; s.up != nil; s = s.up {
		down = append(down, s)
	}
	var b strings.Builder
	b.WriteString(string(s.root))
	for i := len(down) - 1; i >= 0; i-- {
		d := down[i]
		switch {
		case d.key == "":
			b.WriteString("[" + strconv.Itoa(d.index) + "]")
		case plainSegment.MatchString(d.key) && b.Len() > 0:
			b.WriteString("." + d.key)
		case plainSegment.MatchString(d.key):
			b.WriteString(d.key)
		default:
			b.WriteString("[" + strconv.Quote(d.key) + "]")
		}
	}
	return Path(b.String())
}

// difference is firstDifference below at.
func difference(at *step, a, b any) (*step, string) {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return at, "not in the form of a catalog"
		}
		return objectDifference(at, a, bm)
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return at, "not in the form of a catalog"
		}
		for i := range a {
			if q, what := difference(at.item(i, a[i]), a[i], bl[i]); what != "" {
				return q, what
			}
		}
		return nil, ""
	}
	if !reflect.DeepEqual(a, b) {
		return at, "not in the form of a catalog (a value of the wrong type?)"
	}
	return nil, ""
}

// objectDifference is difference of two objects: a member of the file's
// that was not read (unless omitempty left it out), a member's value, or
// a member read that the file does not have.
func objectDifference(at *step, a, b map[string]any) (*step, string) {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		bv, ok := b[k]
		if !ok {
			if empty(a[k]) && memberNames()[k] {
				continue // written with omitempty: absent on the way back
			}
			return at.member(k), "not a member of a catalog (misspelt, or in other letter case?)"
		}
		if q, what := difference(at.member(k), a[k], bv); what != "" {
			return q, what
		}
	}
	for k, bv := range b {
		if _, ok := a[k]; !ok && !empty(bv) {
			return at.member(k), "missing"
		}
	}
	return nil, ""
}

// memberNames are the JSON names of the members of a catalog's types.
func memberNames() map[string]bool {
	names := map[string]bool{}
	for _, v := range []any{Catalog{}, Server{}, Icon{}, Tool{}, ToolAnnotations{}, Prompt{}, Argument{}, Resource{}, Template{}} {
		maps.Copy(names, jsonNames(v))
	}
	return names
}

// fill gives the lists and capabilities that are absent their empty
// value, as the file writes them.
func (c *Catalog) fill() {
	if c.Capabilities == nil {
		c.Capabilities = map[string]any{}
	}
	if c.Tools == nil {
		c.Tools = []Tool{}
	}
	if c.Prompts == nil {
		c.Prompts = []Prompt{}
	}
	if c.Resources == nil {
		c.Resources = []Resource{}
	}
	if c.Templates == nil {
		c.Templates = []Template{}
	}
}

// empty reports whether v is what omitempty leaves out.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// Segments returns p's members and indexes as written in the catalog:
// names unquoted, indexes as "[0]".
func (p Path) Segments() []string {
	s := string(p)
	starts := segmentStarts(s)
	var out []string
	for i, at := range starts {
		end := len(s)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		seg := s[at:end]
		switch {
		case strings.HasPrefix(seg, "."):
			seg = seg[1:]
		case strings.HasPrefix(seg, "[\""):
			if u, err := strconv.Unquote(seg[1 : len(seg)-1]); err == nil {
				seg = u
			}
		}
		out = append(out, seg)
	}
	return out
}

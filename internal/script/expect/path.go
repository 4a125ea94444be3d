package expect

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Path is a way into a JSON value: object member names and array indexes
// (as decimal text); Any ("*") stands for every member or element.
type Path []string

// Any is the path element that stands for every member or element.
const Any = "*"

// ParsePath reads a path: $ (the whole value), $.a.b or a.b, a.0.b or
// a[0].b (numbers index arrays), and * for every member or element when
// wildcards is set: content.*.annotations, content[*].
func ParsePath(s string, wildcards bool) (Path, error) {
	return PathSyntax{Wildcards: wildcards}.Parse(s)
}

// PathSyntax is how a language writes paths: whether * may stand for every
// member or element, and the examples its errors give.
type PathSyntax struct {
	// Wildcards allows *: content.*.annotations, content[*].
	Wildcards bool
	// Forms are the ways to write a path an error suggests ("$.a.b, a.b,
	// a.0.b or a[0].b" when empty); Index is an indexed element as an
	// error shows it ("[0]" when empty).
	Forms, Index string
}

// Parse reads a path as ParsePath does, in this syntax.
func (syn PathSyntax) Parse(s string) (Path, error) {
	forms, index := cmp.Or(syn.Forms, "$.a.b, a.b, a.0.b or a[0].b"), cmp.Or(syn.Index, "[0]")
	orig := s
	if s == "$" {
		return Path{}, nil
	}
	s = strings.TrimPrefix(s, "$.")
	if s == "" || strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("invalid path %q: write %s", orig, forms)
	}
	var out Path
	for _, el := range strings.Split(s, ".") {
		// content[0][1] → content, 0, 1
		name, rest, _ := strings.Cut(el, "[")
		if name == "" && rest == "" {
			return nil, fmt.Errorf("invalid path %q: empty element; separate names with single dots", orig)
		}
		if name != "" {
			out = append(out, name)
		}
		if rest == "" {
			continue
		}
		for _, idx := range strings.Split("["+rest, "[")[1:] {
			n, ok := strings.CutSuffix(idx, "]")
			if ok && n == Any && syn.Wildcards {
				out = append(out, Any)
				continue
			}
			if _, err := strconv.Atoi(n); !ok || err != nil {
				return nil, fmt.Errorf("invalid path %q: brackets hold an array index, e.g. %s", orig, index)
			}
			out = append(out, n)
		}
	}
	if !syn.Wildcards {
		for _, el := range out {
			if el == Any {
				return nil, fmt.Errorf("invalid path %q: * is not allowed here", orig)
			}
		}
	}
	return out, nil
}

// String writes the path as $.a[0].b.
func (p Path) String() string {
	var b strings.Builder
	b.WriteString("$")
	for _, el := range p {
		if el == Any {
			b.WriteString(".*")
			continue
		}
		if _, err := strconv.Atoi(el); err == nil {
			b.WriteString("[" + el + "]")
			continue
		}
		writeMember(&b, el)
	}
	return b.String()
}

// writeMember writes .name, or ["name"] for a name that is no identifier.
func writeMember(b *strings.Builder, name string) {
	ident := name != ""
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	if ident {
		b.WriteString("." + name)
		return
	}
	b.WriteString("[" + quoteJSON(name) + "]")
}

// Lookup follows p through v (no wildcards).
func Lookup(v Value, p Path) (Value, error) {
	for i, el := range p {
		switch x := v.(type) {
		case *Object:
			next, ok := x.Get(el)
			if !ok {
				return nil, fmt.Errorf("%s has no member %q", p[:i], el)
			}
			v = next
		case []any:
			n, err := strconv.Atoi(el)
			if err != nil {
				return nil, fmt.Errorf("%s is an array; index it with a number, not %q", p[:i], el)
			}
			if n < 0 || n >= len(x) {
				return nil, fmt.Errorf("%s has %d element(s); index %d is out of range", p[:i], len(x), n)
			}
			v = x[n]
		default:
			return nil, fmt.Errorf("%s is %s, not an object or array", p[:i], KindOf(v))
		}
	}
	return v, nil
}

// Ignore makes v say nothing of what p names, in place (every match of a
// wildcard): an object member is removed (a missing member is no
// difference), an array element becomes {{any}} (removing it would shift
// the others). It reports whether p named something. The empty path names
// nothing.
func Ignore(v Value, p Path) bool {
	if len(p) == 0 {
		return false
	}
	el, rest := p[0], p[1:]
	found := false
	switch x := v.(type) {
	case *Object:
		for _, k := range append([]string(nil), x.Keys...) {
			if el != Any && k != el {
				continue
			}
			if len(rest) == 0 {
				x.Delete(k)
				found = true
			} else if Ignore(x.Values[k], rest) {
				found = true
			}
		}
	case []any:
		for i, e := range x {
			if el != Any && strconv.Itoa(i) != el {
				continue
			}
			if len(rest) == 0 {
				x[i] = Placeholder("any")
				found = true
			} else if Ignore(e, rest) {
				found = true
			}
		}
	}
	return found
}

// KindOf names the JSON kind of a decoded value as an error says it ("a
// string", "null"): a Value, or what encoding/json decodes into an any.
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case *Object, map[string]any:
		return "an object"
	}
	return "a number"
}

package profile

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/askback/askback/internal/text/suggest"
)

// Error is something wrong with a profiles file at one of its lines: a key
// the format does not know, or a value of the wrong shape.
type Error struct {
	// Path is the file's path; empty when the content was parsed alone.
	Path string
	// Line is the line the problem is on, from 1.
	Line int
	// Msg says what is wrong and what would be right.
	Msg string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// maxMergeDepth bounds how deep YAML merge keys ("<<: *base") are
// followed: an alias may refer to a mapping that merges itself.
const maxMergeDepth = 8

// checkShape walks a parsed profiles file and reports the first key that
// neither the file, a profile nor its auth knows (with the nearest known
// key and all of them), and the first part that is not a mapping where
// one is wanted; what the decoder would have said names Go's types.
func checkShape(doc *yaml.Node) error {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	root := resolve(doc.Content[0])
	if isNull(root) {
		return nil
	}
	top := keysOf(reflect.TypeFor[File]())
	return eachPair(root, "the file", "a mapping with the key profiles", 0, func(k, v *yaml.Node) error {
		if err := known(k, top, "at the top of the file", "the file's keys"); err != nil {
			return err
		}
		return checkProfiles(v)
	})
}

// checkProfiles checks the value of the file's profiles key.
func checkProfiles(v *yaml.Node) error {
	v = resolve(v)
	if isNull(v) {
		return nil
	}
	keys := keysOf(reflect.TypeFor[Profile]())
	return eachPair(v, "profiles", "a mapping of profile names to profiles", 0, func(name, p *yaml.Node) error {
		where := fmt.Sprintf("profile %q", name.Value)
		p = resolve(p)
		if isNull(p) {
			return nil
		}
		return eachPair(p, where, "a mapping of keys such as command or url", 0, func(k, v *yaml.Node) error {
			if err := known(k, keys, "in "+where, "a profile's keys"); err != nil {
				return err
			}
			switch k.Value {
			case "auth":
				return checkAuth(v, where)
			case "headers":
				return checkMapping(v, where+": headers", "a mapping of header names to values")
			}
			return nil
		})
	})
}

// checkAuth checks the auth of the profile where.
func checkAuth(v *yaml.Node, where string) error {
	v = resolve(v)
	if isNull(v) {
		return nil
	}
	keys := keysOf(reflect.TypeFor[Auth]())
	where = "the auth of " + where
	return eachPair(v, where, "a mapping of keys such as identity or client_id", 0, func(k, _ *yaml.Node) error {
		return known(k, keys, "in "+where, "auth's keys")
	})
}

// checkMapping reports a value that is neither empty nor a mapping.
func checkMapping(v *yaml.Node, what, want string) error {
	v = resolve(v)
	if isNull(v) || v.Kind == yaml.MappingNode {
		return nil
	}
	return &Error{Line: v.Line, Msg: fmt.Sprintf("%s must be %s", what, want)}
}

// eachPair calls f with each key and value of the mapping m, the pairs of
// mappings it merges included; a node that is no mapping is an Error
// saying that what must be want.
func eachPair(m *yaml.Node, what, want string, depth int, f func(k, v *yaml.Node) error) error {
	m = resolve(m)
	if m.Kind != yaml.MappingNode {
		return &Error{Line: m.Line, Msg: fmt.Sprintf("%s must be %s", what, want)}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Tag == "!!merge" && depth < maxMergeDepth {
			if err := eachMerged(v, what, want, depth+1, f); err != nil {
				return err
			}
			continue
		}
		if err := f(k, v); err != nil {
			return err
		}
	}
	return nil
}

// eachMerged calls f with the pairs of the mapping or mappings a merge key
// refers to.
func eachMerged(v *yaml.Node, what, want string, depth int, f func(k, v *yaml.Node) error) error {
	v = resolve(v)
	if v.Kind != yaml.SequenceNode {
		return eachPair(v, what, want, depth, f)
	}
	for _, m := range v.Content {
		if err := eachPair(m, what, want, depth, f); err != nil {
			return err
		}
	}
	return nil
}

// known reports a key k that is not among keys, with the nearest of them
// when it looks like a typo, and all of them.
func known(k *yaml.Node, keys []string, where, whose string) error {
	for _, key := range keys {
		if k.Value == key {
			return nil
		}
	}
	msg := fmt.Sprintf("unknown key %q %s", k.Value, where)
	if near, ok := suggest.Closest(k.Value, keys); ok {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	msg += fmt.Sprintf(" (%s: %s)", whose, strings.Join(keys, ", "))
	return &Error{Line: k.Line, Msg: msg}
}

// keysOf returns the YAML keys of a struct type's fields, sorted.
func keysOf(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// resolve follows aliases to the node they refer to.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxMergeDepth; i++ {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is an empty value ("key:" with nothing after).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

package scan

import (
	"fmt"
	"sort"

	"github.com/askback/askback/internal/catalog"
)

// named is one tool or prompt name, where it is.
type named struct {
	server, index int
	name          string
}

// collisions reports names that collide (MCPS050): within one server, and
// across the servers scanned together, compared as normName compares
// them (case, separators, look-alike letters and invisible characters do
// not tell two names apart for a model).
func (s *scanner) collisions() {
	for _, kind := range []string{"tool", "prompt"} {
		for _, g := range s.nameGroups(kind) {
			first := g[0]
			for _, e := range g[1:] {
				s.collide(kind, first, e)
			}
		}
	}
}

// nameGroups groups the names of kind of every server scanned by their
// normName, the groups in the order of their keys.
func (s *scanner) nameGroups(kind string) [][]named {
	groups := map[string][]named{}
	var keys []string
	for i, srv := range s.servers {
		for j, n := range listedNames(srv.Catalog, kind) {
			k := normName(n)
			if k == "" {
				continue
			}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], named{i, j, n})
		}
	}
	sort.Strings(keys)
	out := make([][]named, 0, len(keys))
	for _, k := range keys {
		out = append(out, groups[k])
	}
	return out
}

// listedNames lists the names of c's tools or prompts (kind), in order,
// "" for a missing one.
func listedNames(c *catalog.Listing, kind string) []string {
	var names []string
	if kind == "tool" {
		for _, t := range c.Tools {
			name := ""
			if t != nil {
				name = t.Name
			}
			names = append(names, name)
		}
		return names
	}
	for _, p := range c.Prompts {
		name := ""
		if p != nil {
			name = p.Name
		}
		names = append(names, name)
	}
	return names
}

// collide reports e, whose name collides with first's.
func (s *scanner) collide(kind string, first, e named) {
	s.server = e.server
	list := "tools"
	if kind == "prompt" {
		list = "prompts"
	}
	t := &text{subject: fmt.Sprintf("%s %q", kind, e.name), path: fmt.Sprintf("$.%s[%d].name", list, e.index)}
	same := first.name == e.name
	switch {
	case first.server == e.server && same:
		s.add(RuleCollision, High, t, fmt.Sprintf("the %s name %q is listed twice by this server: which one is called?", kind, e.name), e.name)
	case first.server == e.server:
		s.add(RuleCollision, Low, t, fmt.Sprintf("the %s names %q and %q differ only in case, separators or look-alike letters", kind, first.name, e.name), e.name)
	case same:
		s.add(RuleCollision, Medium, t, fmt.Sprintf("the server %q offers a %s of the same name %q: a client that merges them may call the wrong one", s.servers[first.server].Name, kind, e.name), e.name)
	default:
		s.add(RuleCollision, High, t, fmt.Sprintf("%q looks like %q of the server %q: a look-alike name takes the calls meant for the other", e.name, first.name, s.servers[first.server].Name), e.name)
	}
}

package catalog

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/encoding/strictjson"
)

// keyedList is one list of a catalog whose items a client tells apart by
// one key: the tools and prompts by name, a prompt's arguments by name,
// the resources by URI, the templates by URI template.
type keyedList struct {
	member string          // the list's member in the file: "tools"
	what   string          // an item as a person says it, %q its key: "tool %q"
	rule   string          // how items are told apart: "tools are told apart by name"
	at     []jsonscan.Step // where the list's object is, from the catalog
	keys   []string        // each item's key, in the file's order
	skip   []bool          // items that are not there to tell apart (null)
}

// keyed is an item of a list as far as its key goes; nil for a null item.
type keyed = *struct {
	Name        string `json:"name"`
	URI         string `json:"uri"`
	URITemplate string `json:"uriTemplate"`
}

// keyLists is what of a catalog's lists tells their items apart, in the
// file's order (a saved catalog's Catalog may hold them in another).
type keyLists struct {
	Tools   []keyed `json:"tools"`
	Prompts []*struct {
		Name      string  `json:"name"`
		Arguments []keyed `json:"arguments"`
	} `json:"prompts"`
	Resources []keyed `json:"resources"`
	Templates []keyed `json:"resourceTemplates"`
}

// keyedLists are the lists of the catalog data (one catalog's object)
// that a client tells apart by key.
func keyedLists(data []byte) ([]keyedList, error) {
	var k keyLists
	if err := strictjson.DecodeLikeSDK(data, &k); err != nil {
		return nil, err
	}
	var out []keyedList
	add := func(member, what, rule string, at []jsonscan.Step, items []keyed, get func(keyed) string) {
		l := keyedList{member: member, what: what, rule: rule, at: at}
		for _, it := range items {
			if it == nil {
				l.keys, l.skip = append(l.keys, ""), append(l.skip, true)
				continue
			}
			l.keys, l.skip = append(l.keys, get(it)), append(l.skip, false)
		}
		out = append(out, l)
	}
	name := func(it keyed) string { return it.Name }
	add("tools", "tool %q", "tools are told apart by name", nil, k.Tools, name)
	var prompts []keyed
	for i, p := range k.Prompts {
		if p == nil {
			prompts = append(prompts, nil)
			continue
		}
		prompts = append(prompts, &struct {
			Name        string `json:"name"`
			URI         string `json:"uri"`
			URITemplate string `json:"uriTemplate"`
		}{Name: p.Name})
		add("arguments", "argument %q of prompt "+strconv.Quote(p.Name), "a prompt's arguments are told apart by name", []jsonscan.Step{jsonscan.KeyStep("prompts"), jsonscan.ItemStep(i)}, p.Arguments, name)
	}
	add("prompts", "prompt %q", "prompts are told apart by name", nil, prompts, name)
	add("resources", "resource %q", "resources are told apart by URI", nil, k.Resources, func(it keyed) string { return it.URI })
	add("resourceTemplates", "resource template %q", "resource templates are told apart by URI template", nil, k.Templates, func(it keyed) string { return it.URITemplate })
	return out, nil
}

// unique refuses a catalog file (data, its catalogs named) that lists one
// tool, prompt, prompt argument, resource or resource template twice by
// its key (a hand edit, a merge): a client could call only one of them,
// and a diff or a scan would compare or judge one of them. The error says which, and where both are (line and
// column, and the path).
func unique(data []byte, named []Named) error {
	for _, n := range named {
		raw := data
		if len(n.At) > 0 {
			places, err := jsonscan.Locate(data, [][]jsonscan.Step{n.At})
			if err != nil || places[0].Found != len(n.At) {
				continue // read already: not to be
			}
			raw = data[places[0].Start:places[0].End]
		}
		lists, err := keyedLists(raw)
		if err != nil {
			return err
		}
		for _, l := range lists {
			if j, i, ok := l.repeated(); ok {
				return duplicate(data, n.At, l, j, i)
			}
		}
	}
	return nil
}

// repeated returns the first item i of l whose key an earlier item j has.
func (l keyedList) repeated() (j, i int, ok bool) {
	first := map[string]int{}
	for i, k := range l.keys {
		if l.skip[i] {
			continue
		}
		if j, seen := first[k]; seen {
			return j, i, true
		}
		first[k] = i
	}
	return 0, 0, false
}

// Repeated names the first item that data, a catalog file as Bytes
// writes it, lists twice by its key ("tool \"x\""), or is "" when none
// is: the catalog of a server that lists one twice would be refused when
// read back, so catalog save refuses it first.
func Repeated(data []byte) (string, error) {
	lists, err := keyedLists(data)
	if err != nil {
		return "", err
	}
	for _, l := range lists {
		if _, i, ok := l.repeated(); ok {
			return fmt.Sprintf(l.what, l.keys[i]), nil
		}
	}
	return "", nil
}

// duplicate is the error of item i of list l, whose key item j has.
func duplicate(data []byte, at []jsonscan.Step, l keyedList, j, i int) error {
	path := func(item int) []jsonscan.Step {
		return append(slices.Concat(at, l.at), jsonscan.KeyStep(l.member), jsonscan.ItemStep(item))
	}
	where := func(p []jsonscan.Step, place jsonscan.Place, ok bool) string {
		s := stepsPath(p)
		if ok {
			s = position(data, int64(place.Start)) + ", " + s
		}
		return s
	}
	places, err := jsonscan.Locate(data, [][]jsonscan.Step{path(j), path(i)})
	ok := err == nil && len(places) == 2
	var pj, pi jsonscan.Place
	if ok {
		pj, pi = places[0], places[1]
	}
	return fmt.Errorf("%s: %s listed again (first at %s): %s; remove or rename one",
		where(path(i), pi, ok), fmt.Sprintf(l.what, l.keys[i]), where(path(j), pj, ok), l.rule)
}

// stepsPath is a path of steps as a catalog's paths are written:
// servers[1].catalog.tools[3].
func stepsPath(steps []jsonscan.Step) string {
	var p Path
	for _, s := range steps {
		if s.Item {
			p = p.Index(s.Index)
		} else {
			p = p.Key(s.Key)
		}
	}
	return string(p)
}

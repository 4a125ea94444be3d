package jsonscan

// A Step is one step of a path into a JSON value: the member Key of an
// object, or, for an Item step, the item Index of an array.
type Step struct {
	Key   string
	Index int
	Item  bool
}

// KeyStep is the step to the member key of an object.
func KeyStep(key string) Step { return Step{Key: key} }

// ItemStep is the step to item i of an array.
func ItemStep(i int) Step { return Step{Index: i, Item: true} }

// Place is where Locate found a path's value in the data, in bytes.
type Place struct {
	// Found is how many steps of the path lead to the value: all of them
	// when the data has the value, fewer when it does not and the value
	// is the deepest one on the path that it has (the whole data for
	// none).
	Found int
	// Start and End bound the value's JSON: data[Start:End] (a string's
	// quotes included).
	Start, End int
	// KeyStart and KeyEnd bound the key (its quotes included) when the
	// value is a member of an object; both are -1 otherwise.
	KeyStart, KeyEnd int
}

// Locate reads data, exactly one JSON value, once, with encoding/json's
// syntax and Repeats' strictness (a key twice in one object is refused,
// so that every path leads to one value), and returns where the value at
// each path is: places[i] for paths[i]. Keys are compared as decoded and
// as written otherwise ("\u0061" is "a", "A" is not), as the go-sdk's
// decoder matches them. A path the data does not have all of is placed at
// the deepest value on it that the data has (Place.Found says how deep).
// Data that is not one JSON value, or that nests deeper than MaxDepth, is
// an error (wrapping ErrSyntax, ErrAmbiguous or ErrTooDeep), and no
// place is returned.
func Locate(data []byte, paths [][]Step) ([]Place, error) {
	root := &pathNode{}
	for _, p := range paths {
		root.add(p)
	}
	s := newScanner(data, true)
	defer s.release()
	err := s.alone(s.locate(root, -1, -1))
	switch {
	case err != nil:
		return nil, err
	case s.repeat != nil:
		return nil, s.repeat
	}
	places := make([]Place, len(paths))
	for i, p := range paths {
		places[i] = root.deepest(p)
	}
	return places, nil
}

// pathNode is one value of the paths Locate looks for: the steps from it
// that some path takes, and where it was found.
type pathNode struct {
	members map[string]*pathNode
	items   map[int]*pathNode
	found   bool
	place   Place
}

// add makes nodes for every step of path below n.
func (n *pathNode) add(path []Step) {
	for _, st := range path {
		n = n.child(st, true)
	}
}

// child is n's node for the step st, made when create is set and there
// is none; nil otherwise.
func (n *pathNode) child(st Step, create bool) *pathNode {
	if st.Item {
		c := n.items[st.Index]
		if c == nil && create {
			if n.items == nil {
				n.items = map[int]*pathNode{}
			}
			c = &pathNode{}
			n.items[st.Index] = c
		}
		return c
	}
	c := n.members[st.Key]
	if c == nil && create {
		if n.members == nil {
			n.members = map[string]*pathNode{}
		}
		c = &pathNode{}
		n.members[st.Key] = c
	}
	return c
}

// deepest is the place of the deepest value on path that was found,
// from n (which was).
func (n *pathNode) deepest(path []Step) Place {
	place := n.place
	for i, st := range path {
		if n = n.child(st, false); n == nil || !n.found {
			break
		}
		place = n.place
		place.Found = i + 1
	}
	return place
}

// locating is what scanner.object reads into while Locate reads the
// object of a node: the members some path goes on through.
type locating pathNode

// locate reads the value at s.pos (after optional space), which is n's,
// whose key (quotes included) is data[keyStart:keyEnd] when it is a
// member of an object; the values below it that paths lead to are
// located too.
func (s *scanner) locate(n *pathNode, keyStart, keyEnd int) error {
	s.space()
	start := s.pos
	var err error
	switch {
	case n.members != nil && s.at('{'):
		err = s.object((*locating)(n))
	case n.items != nil && s.at('['):
		err = s.array(func(i int) error {
			if c := n.items[i]; c != nil {
				return s.locate(c, -1, -1)
			}
			return s.value(nil)
		})
	default:
		err = s.value(nil)
	}
	n.found = true
	n.place = Place{Start: start, End: s.pos, KeyStart: keyStart, KeyEnd: keyEnd}
	return err
}

// locateMember reads the value of the member key of n's object: located
// when a path goes on through it.
func (s *scanner) locateMember(n *locating, key span) error {
	var c *pathNode
	if key.plain {
		c = n.members[string(s.data[key.start:key.end])]
	} else {
		c = n.members[s.text(key)]
	}
	if c == nil {
		return s.value(nil)
	}
	return s.locate(c, key.start-1, key.end+1)
}

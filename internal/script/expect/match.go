package expect

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Difference is one place where a value does not match what was expected.
type Difference struct {
	Path     Path
	Expected string // the expected value (a pattern, compact JSON); "" when nothing was expected there
	Actual   string // what is there, compact JSON; "" when it is missing
}

func (d Difference) String() string {
	switch {
	case d.Actual == "":
		return fmt.Sprintf("%s: missing (expected %s)", d.Path, d.Expected)
	default:
		return fmt.Sprintf("%s: expected %s, got %s", d.Path, d.Expected, d.Actual)
	}
}

// maxDifferences bounds the differences Match lists.
const maxDifferences = 100

// Match compares got with want, an expected value whose strings are
// patterns (ParsePattern; a string that is not a pattern is compared as
// written), and lists the differences in document order, at most 100.
// Members of got that want does not name are no difference.
func Match(want, got Value) []Difference {
	var diffs []Difference
	match(want, got, Path{}, &diffs)
	return diffs
}

// Matches reports whether got matches want.
func Matches(want, got Value) bool {
	var diffs []Difference
	match(want, got, Path{}, &diffs)
	return len(diffs) == 0
}

func match(want, got Value, at Path, diffs *[]Difference) {
	if len(*diffs) >= maxDifferences {
		return
	}
	add := func() {
		*diffs = append(*diffs, Difference{Path: append(Path(nil), at...), Expected: Compact(want), Actual: Compact(got)})
	}
	switch w := want.(type) {
	case *Object:
		g, ok := got.(*Object)
		if !ok {
			add()
			return
		}
		for _, k := range w.Keys {
			gv, ok := g.Get(k)
			if !ok {
				*diffs = append(*diffs, Difference{Path: append(append(Path(nil), at...), k), Expected: Compact(w.Values[k])})
				continue
			}
			match(w.Values[k], gv, append(at, k), diffs)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			add()
			return
		}
		for i := range w {
			match(w[i], g[i], append(at, strconv.Itoa(i)), diffs)
		}
	case string:
		if !stringMatches(w, got) {
			add()
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok || !sameNumber(w, g) {
			add()
		}
	default: // nil, bool
		if got != want {
			add()
		}
	}
}

// stringMatches reports whether got matches the pattern w; a string that
// is no valid pattern is compared as written.
func stringMatches(w string, got Value) bool {
	if !strings.Contains(w, "{{") {
		s, ok := got.(string)
		return ok && s == w
	}
	p, err := ParsePattern(w)
	if err != nil {
		s, ok := got.(string)
		return ok && s == w
	}
	return p.MatchValue(got)
}

// maxExponent bounds the exponent of numbers compared by value: beyond it
// they are compared as written (big.Rat would allocate their digits).
const maxExponent = 400

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	if bigExponent(a) || bigExponent(b) {
		return false
	}
	x, ok1 := new(big.Rat).SetString(a.String())
	y, ok2 := new(big.Rat).SetString(b.String())
	return ok1 && ok2 && x.Cmp(y) == 0
}

func bigExponent(n json.Number) bool {
	s := strings.ToLower(n.String())
	i := strings.IndexByte(s, 'e')
	if i < 0 {
		return false
	}
	e, err := strconv.Atoi(s[i+1:])
	return err != nil || e > maxExponent || e < -maxExponent
}

// Project returns got as it would be written where it matches want: what
// matches a pattern is written as the pattern, members want does not name
// are left out, so that a line diff of want and Project(want, got) shows
// only the differences.
func Project(want, got Value) Value {
	switch w := want.(type) {
	case *Object:
		if g, ok := got.(*Object); ok {
			return shared(w, g, Project)
		}
		return got
	case []any:
		g, ok := got.([]any)
		if !ok {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			if i < len(w) {
				out[i] = Project(w[i], g[i])
			} else {
				out[i] = g[i]
			}
		}
		return out
	case string:
		if stringMatches(w, got) {
			return w
		}
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(w, g) {
			return w
		}
	}
	return got
}

// shared is the members of want that got has too, in want's order, each
// the value f makes of the two (Project, Update: a member got lacks is
// dropped, one got adds is no difference).
func shared(want, got *Object, f func(want, got Value) Value) *Object {
	out := NewObject()
	for _, k := range want.Keys {
		if gv, ok := got.Get(k); ok {
			out.Set(k, f(want.Values[k], gv))
		}
	}
	return out
}

// Update returns want rewritten to match got, changing only what does not
// match: members got lacks are dropped, a value that differs is replaced
// by got's (Generalize'd; by its kind alone where want held a placeholder
// alone), and what matches, placeholders included, stays as written. An
// array whose length changed takes each new element from the expected
// element at its place (or the last one), so an array checked by shape
// stays checked by shape.
func Update(want, got Value) Value {
	if Matches(want, got) {
		return want
	}
	switch w := want.(type) {
	case *Object:
		if g, ok := got.(*Object); ok {
			return shared(w, g, Update)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(w) == 0 {
			break
		}
		out := make([]any, len(g))
		for i := range g {
			out[i] = Update(w[min(i, len(w)-1)], g[i])
		}
		return out
	case string:
		if p, err := ParsePattern(w); err == nil {
			if _, whole := p.Whole(); whole {
				return shapeOf(got)
			}
		}
	}
	return Expect(got, ExpectOptions{})
}

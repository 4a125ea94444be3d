package scan

import (
	"strconv"
	"strings"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/report/sarif"
)

// PathSteps reads a finding's path, as the scan writes it
// ($.tools[0].inputSchema.properties["a b"].description: a member after
// a dot when its name is an identifier, else quoted as Go quotes strings;
// an index in brackets), as the steps of a path into its catalog's JSON;
// ok is false when path is not one.
func PathSteps(path string) (steps []jsonscan.Step, ok bool) {
	rest, ok := strings.CutPrefix(path, "$")
	if !ok {
		return nil, false
	}
	for rest != "" {
		var st jsonscan.Step
		switch rest[0] {
		case '.':
			end := strings.IndexAny(rest[1:], ".[") + 1
			if end == 0 {
				end = len(rest)
			}
			if !identifier.MatchString(rest[1:end]) {
				return nil, false
			}
			st, rest = jsonscan.KeyStep(rest[1:end]), rest[end:]
		case '[':
			st, rest, ok = bracketStep(rest)
			if !ok {
				return nil, false
			}
		default:
			return nil, false
		}
		steps = append(steps, st)
	}
	return steps, true
}

// bracketStep reads the step in brackets at the start of s, ["key"] or
// [index], and returns what follows it.
func bracketStep(s string) (jsonscan.Step, string, bool) {
	if strings.HasPrefix(s, `["`) {
		quoted, err := strconv.QuotedPrefix(s[1:])
		if err != nil || !strings.HasPrefix(s[1+len(quoted):], "]") {
			return jsonscan.Step{}, "", false
		}
		key, err := strconv.Unquote(quoted)
		if err != nil {
			return jsonscan.Step{}, "", false
		}
		return jsonscan.KeyStep(key), s[len(quoted)+2:], true
	}
	end := strings.IndexByte(s, ']')
	if end < 2 {
		return jsonscan.Step{}, "", false
	}
	i, err := strconv.Atoi(s[1:end])
	if err != nil || i < 0 || strconv.Itoa(i) != s[1:end] {
		return jsonscan.Step{}, "", false
	}
	return jsonscan.ItemStep(i), s[end+1:], true
}

// Regions returns where in data, a catalog file that some of the scanned
// servers were read from, the findings about those servers are, by the
// server's name and the finding's path (sarif.Anchor's Regions): the
// region of the text found when it is a value (a string), of its key
// when it is the name of a member whose value is an object or an array
// (a parameter's name), and otherwise where the deepest value on its
// path that the file has begins (a tool without annotations: the tool).
// servers are those of the file (catalog.ReadFile's), each found by its
// name. Data that is not one JSON value, or that has a key twice in one
// object, is an error: no path leads to one place in it.
func (r *Report) Regions(data []byte, servers []catalog.Named) (map[string]map[string]sarif.Region, error) {
	catalogs := map[string][]jsonscan.Step{}
	for _, n := range servers {
		catalogs[n.Name] = n.At
	}
	type located struct{ server, path string }
	var which []located
	var paths [][]jsonscan.Step
	for _, f := range r.Findings {
		base, ok := catalogs[f.Server]
		if !ok {
			continue
		}
		steps, ok := PathSteps(f.Path)
		if !ok {
			continue
		}
		which = append(which, located{f.Server, f.Path})
		paths = append(paths, append(base[:len(base):len(base)], steps...))
	}
	places, err := jsonscan.Locate(data, paths)
	if err != nil {
		return nil, err
	}
	// The ends of a region are -1 when it has only a start.
	offsets := make([]int, 0, 2*len(places))
	for i, p := range places {
		start, end := p.Start, -1
		switch {
		case p.Found < len(paths[i]):
		case data[p.Start] != '{' && data[p.Start] != '[':
			end = p.End
		case p.KeyStart >= 0:
			start, end = p.KeyStart, p.KeyEnd
		}
		offsets = append(offsets, start, end)
	}
	at := sarif.Positions(data, offsets)
	out := map[string]map[string]sarif.Region{}
	for i, w := range which {
		if out[w.server] == nil {
			out[w.server] = map[string]sarif.Region{}
		}
		start := at[2*i]
		reg := sarif.Region{Line: start.Line, Column: start.Column}
		if offsets[2*i+1] >= 0 {
			end := at[2*i+1]
			reg.EndLine, reg.EndColumn = end.Line, end.Column
		}
		out[w.server][w.path] = reg
	}
	return out, nil
}

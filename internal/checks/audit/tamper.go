package audit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/askback/askback/internal/encoding/userjson"
)

// tamper is one way to change a requestState. Variants are chosen by
// looking at one state and applied to the fresh state of each probe.
type tamper struct {
	name  string
	apply func(state string) (string, bool)
}

// Bounds on the tampering probes.
const (
	maxTampers    = 14
	maxLeafEdits  = 6
	maxStateBytes = 64 << 10
)

const (
	urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	stdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
)

// tampers chooses the tampering variants for states shaped like sample:
// changed characters at the start, middle and end (and of each
// dot-separated part), truncations, and format-preserving edits of every
// readable value (a base64 or base64url JSON payload, possibly
// "payload.signature" or a JWT).
func tampers(sample string) []tamper {
	if sample == "" || len(sample) > maxStateBytes {
		return nil
	}
	ts := &tamperSet{sample: sample, seen: map[string]bool{}}
	// Readable edits first: they are the strongest evidence.
	for _, t := range leafEdits(sample) {
		ts.add(t)
	}
	for _, rel := range []float64{0, 0.5, 1} {
		ts.add(flipTamper(rel))
	}
	if strings.Contains(sample, ".") {
		for _, t := range dotTampers(sample) {
			ts.add(t)
		}
	}
	ts.add(tamper{name: "the last character cut off", apply: func(s string) (string, bool) { return s[:len(s)-1], len(s) > 1 }})
	ts.add(tamper{name: "cut to half its length", apply: func(s string) (string, bool) { return s[:len(s)/2], len(s) > 1 }})
	return ts.out
}

// tamperSet collects the tampers of a sample state: at most maxTampers,
// none that fails on it, leaves it as it is, or makes what another did.
type tamperSet struct {
	sample string
	out    []tamper
	seen   map[string]bool // the states the tampers made
}

// add keeps t unless it fails on the sample, leaves it as it is, makes
// what another tamper made, or the set is full.
func (ts *tamperSet) add(t tamper) {
	if len(ts.out) >= maxTampers {
		return
	}
	got, ok := t.apply(ts.sample)
	if !ok || got == ts.sample || ts.seen[got] {
		return
	}
	ts.seen[got] = true
	ts.out = append(ts.out, t)
}

// dotTampers are the tampers of a state of dot-separated parts: a
// character of each part changed, the last part (a signature) removed or
// emptied.
func dotTampers(sample string) []tamper {
	var out []tamper
	parts := strings.Split(sample, ".")
	for i := range parts {
		out = append(out, flipPartTamper(i, len(parts)))
	}
	return append(out,
		tamper{name: "the last dot-separated part (signature) removed", apply: func(s string) (string, bool) {
			i := strings.LastIndexByte(s, '.')
			return s[:max(i, 0)], i > 0
		}},
		tamper{name: "the last dot-separated part (signature) emptied", apply: func(s string) (string, bool) {
			i := strings.LastIndexByte(s, '.')
			return s[:max(i+1, 0)], i > 0
		}})
}

// flipTamper changes one character at a relative position to another
// character of the same base64 alphabet, flipping the top bit of the six it
// encodes (never only padding bits).
func flipTamper(rel float64) tamper {
	where := map[float64]string{0: "first", 0.5: "middle", 1: "last"}[rel]
	return tamper{name: fmt.Sprintf("one character changed (the %s)", where), apply: func(s string) (string, bool) {
		if s == "" {
			return "", false
		}
		i := int(rel * float64(len(s)-1))
		return flipNear(s, i, 0, len(s))
	}}
}

func flipPartTamper(part, parts int) tamper {
	return tamper{name: fmt.Sprintf("one character changed in dot-separated part %d of %d", part+1, parts), apply: func(s string) (string, bool) {
		ps := strings.Split(s, ".")
		if len(ps) != parts || ps[part] == "" {
			return "", false
		}
		start := 0
		for _, p := range ps[:part] {
			start += len(p) + 1
		}
		end := start + len(ps[part])
		return flipNear(s, start+len(ps[part])/2, start, end)
	}}
}

// flipNear changes the character nearest to i within [lo, hi) that belongs
// to a base64 alphabet; failing that, it flips the low bit of byte i.
func flipNear(s string, i, lo, hi int) (string, bool) {
	for d := 0; d < hi-lo; d++ {
		for _, j := range []int{i + d, i - d} {
			if j < lo || j >= hi {
				continue
			}
			c := s[j]
			alpha := urlAlphabet
			if c == '+' || c == '/' {
				alpha = stdAlphabet
			}
			if k := strings.IndexByte(alpha, c); k >= 0 {
				return s[:j] + string(alpha[k^32]) + s[j+1:], true
			}
		}
	}
	if i < 0 || i >= len(s) {
		return "", false
	}
	b := []byte(s)
	b[i] ^= 1
	return string(b), true
}

// codec is one way a state segment may be encoded.
type codec struct {
	name   string
	decode func(string) ([]byte, error)
	encode func([]byte) string
}

var codecs = []codec{
	{"JSON", func(s string) ([]byte, error) { return []byte(s), nil }, func(b []byte) string { return string(b) }},
	{"base64url", base64.RawURLEncoding.DecodeString, base64.RawURLEncoding.EncodeToString},
	{"base64url", base64.URLEncoding.DecodeString, base64.URLEncoding.EncodeToString},
	{"base64", base64.RawStdEncoding.DecodeString, base64.RawStdEncoding.EncodeToString},
	{"base64", base64.StdEncoding.DecodeString, base64.StdEncoding.EncodeToString},
}

// readable finds how segment seg decodes to a JSON object.
func readable(seg string) (codec, map[string]any, bool) {
	for _, c := range codecs {
		b, err := c.decode(seg)
		if err != nil || len(bytes.TrimSpace(b)) == 0 || bytes.TrimSpace(b)[0] != '{' {
			continue
		}
		if v, ok := decodeObject(b); ok {
			return c, v, true
		}
	}
	return codec{}, nil, false
}

// decodeObject reads b as one JSON object by the rule of internal/encoding/userjson
// (nothing after it, no key twice), its numbers as written, so that an
// edit changes one value and nothing else.
func decodeObject(b []byte) (map[string]any, bool) {
	v, err := userjson.Parse("the state", string(b), userjson.AsWritten)
	return v, err == nil
}

// segments splits a state into the parts that may be readable: the whole
// state, or its dot-separated parts.
func segments(s string) []string {
	if strings.Contains(s, ".") && !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return strings.Split(s, ".")
	}
	return []string{s}
}

// leafEdits makes one format-preserving edit per readable value of sample.
func leafEdits(sample string) []tamper {
	segs := segments(sample)
	var out []tamper
	for i, seg := range segs {
		c, obj, ok := readable(seg)
		if !ok {
			continue
		}
		if alg, ok := obj["alg"].(string); ok && len(segs) == 3 && i == 0 && alg != "none" {
			out = append(out, algNone(len(segs)))
		}
		for _, path := range leafPaths(obj, nil) {
			if len(out) >= maxLeafEdits {
				return out
			}
			out = append(out, leafEdit(i, len(segs), c, path))
		}
	}
	return out
}

func leafEdit(seg, nsegs int, c codec, path []string) tamper {
	where := ""
	if nsegs > 1 {
		where = fmt.Sprintf(" of dot-separated part %d", seg+1)
	}
	name := fmt.Sprintf("readable %s state%s decoded, %q changed, encoded again", c.name, where, strings.Join(path, "."))
	return tamper{name: name, apply: func(s string) (string, bool) {
		segs := segments(s)
		if len(segs) != nsegs {
			return "", false
		}
		b, err := c.decode(segs[seg])
		if err != nil {
			return "", false
		}
		obj, ok := decodeObject(b)
		if !ok {
			return "", false
		}
		old, ok := leafAt(obj, path)
		if !ok {
			return "", false
		}
		nv, ok := editValue(old)
		if !ok {
			return "", false
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(nv) != nil {
			return "", false
		}
		// Change the value in place, so that everything else (key order,
		// spacing) stays as the server wrote it.
		edited, ok := replaceLeaf(b, path, bytes.TrimRight(buf.Bytes(), "\n"))
		if !ok {
			return "", false
		}
		segs[seg] = c.encode(edited)
		return strings.Join(segs, "."), true
	}}
}

func algNone(nsegs int) tamper {
	return tamper{name: `JWT header set to "alg":"none" and the signature removed`, apply: func(s string) (string, bool) {
		segs := strings.Split(s, ".")
		if len(segs) != nsegs {
			return "", false
		}
		c, obj, ok := readable(segs[0])
		if !ok {
			return "", false
		}
		obj["alg"] = "none"
		b, _ := json.Marshal(obj)
		return c.encode(b) + "." + segs[1] + ".", true
	}}
}

// leafPaths lists the paths of the primitive values of v, in key order.
func leafPaths(v map[string]any, prefix []string) [][]string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out [][]string
	for _, k := range keys {
		p := append(append([]string{}, prefix...), k)
		switch x := v[k].(type) {
		case map[string]any:
			if len(prefix) < 3 {
				out = append(out, leafPaths(x, p)...)
			}
		case string, json.Number, bool:
			out = append(out, p)
		}
	}
	return out
}

// leafAt returns the value at path.
func leafAt(obj map[string]any, path []string) (any, bool) {
	cur := obj
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			return nil, false
		}
		cur = next
	}
	v, ok := cur[path[len(path)-1]]
	return v, ok
}

// replaceLeaf replaces the primitive value at path in the JSON object raw
// with val, leaving every other byte as it was.
func replaceLeaf(raw []byte, path []string, val []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	w := leafWalk{path: path}
	for {
		if w.atValue() {
			return spliceValue(dec, raw, val)
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if !w.step(tok) {
			return nil, false
		}
	}
}

// leafFrame is an object or array replaceLeaf is in: in an object, the key
// last read and whether a key comes next.
type leafFrame struct {
	object    bool
	expectKey bool
	key       string
}

// leafWalk follows the tokens of a JSON document to the value at path.
type leafWalk struct {
	path  []string
	stack []*leafFrame
}

// atValue reports whether the next token is the value of the key at path.
func (w *leafWalk) atValue() bool {
	if len(w.stack) == 0 || len(w.stack) != len(w.path) {
		return false
	}
	if top := w.stack[len(w.stack)-1]; !top.object || top.expectKey {
		return false
	}
	for i, f := range w.stack {
		if !f.object || f.key != w.path[i] {
			return false
		}
	}
	return true
}

// step takes in the token tok; it reports false when the document ended
// without the value at path.
func (w *leafWalk) step(tok json.Token) bool {
	var top *leafFrame
	if len(w.stack) > 0 {
		top = w.stack[len(w.stack)-1]
	}
	if d, ok := tok.(json.Delim); ok {
		switch d {
		case '{', '[':
			if top != nil && top.object {
				top.expectKey = true // after this value, a key comes next
			}
			w.stack = append(w.stack, &leafFrame{object: d == '{', expectKey: d == '{'})
		case '}', ']':
			w.stack = w.stack[:len(w.stack)-1]
			return len(w.stack) > 0
		}
		return true
	}
	if top == nil || !top.object {
		return true
	}
	if s, ok := tok.(string); ok && top.expectKey {
		top.key, top.expectKey = s, false
		return true
	}
	top.expectKey = true
	return true
}

// spliceValue reads the next token of dec, a primitive value after its
// key's colon, and returns raw with val in its place.
func spliceValue(dec *json.Decoder, raw, val []byte) ([]byte, bool) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, false
	}
	if _, isDelim := tok.(json.Delim); isDelim {
		return nil, false
	}
	end := dec.InputOffset()
	colon := bytes.IndexByte(raw[start:end], ':')
	if colon < 0 {
		return nil, false
	}
	vs := int(start) + colon + 1
	for vs < int(end) && (raw[vs] == ' ' || raw[vs] == '\t' || raw[vs] == '\n' || raw[vs] == '\r') {
		vs++
	}
	return append(append(append([]byte{}, raw[:vs]...), val...), raw[end:]...), true
}

// editValue changes a value so that it keeps its type and shape: a later
// time, a larger number, a flipped boolean, a string with its last letter
// or digit changed.
func editValue(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return !x, true
	case json.Number:
		return editNumber(x)
	case string:
		return editString(x), true
	}
	return nil, false
}

// editNumber returns x plus one, or an hour later for a Unix time.
func editNumber(x json.Number) (any, bool) {
	if n, err := x.Int64(); err == nil {
		if n > 1_000_000_000 { // a Unix time: an hour later
			return json.Number(strconv.FormatInt(n+3600, 10)), true
		}
		return json.Number(strconv.FormatInt(n+1, 10)), true
	}
	f, err := x.Float64()
	if err != nil {
		return nil, false
	}
	return json.Number(strconv.FormatFloat(f+1, 'f', -1, 64)), true
}

// editString returns x an hour later when it is a time, else with its
// last letter or digit turned to the next one, else with an x appended.
func editString(x string) string {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, x); err == nil {
			return t.Add(time.Hour).Format(layout)
		}
	}
	b := []byte(x)
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			b[i] = '0' + (c-'0'+1)%10
			return string(b)
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+1)%26
			return string(b)
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+1)%26
			return string(b)
		}
	}
	return x + "x"
}

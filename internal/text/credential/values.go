package credential

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Field reports whether the answer to a form's field, or a tool's or
// prompt's argument, called name holds a secret: the name, read as an
// identifier, or the prose that describes it (a field's title and
// description) says so by the terms of [DefaultTerms] (password, pin,
// one-time code, card number, ssn, api_key, pat, …).
func Field(name string, prose ...string) bool {
	return defaults().MatchName(name, prose...) != ""
}

// Value reports whether v has the form of a secret, whatever it is called:
// a token ([Token]), a payment card's number (13 to 19 digits that pass the
// Luhn check, groups separated by spaces or dashes) or a social-security
// number (ddd-dd-dddd).
func Value(v string) bool {
	return Token(v) || cardNumber(v) || ssn(v)
}

// cardNumber reports whether v is 13 to 19 digits, in groups separated by
// single spaces or dashes, that pass the Luhn check.
func cardNumber(v string) bool {
	if len(v) < 13 || len(v) > 23 {
		return false
	}
	var buf [23]byte
	digits, ok := groupedDigits(v, buf[:0])
	if !ok || len(digits) < 13 || len(digits) > 19 {
		return false
	}
	return luhn(digits)
}

// groupedDigits appends to digits the value of each digit of v, a run of
// digits in groups separated by single spaces or dashes; it reports false
// when v is written otherwise.
func groupedDigits(v string, digits []byte) ([]byte, bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c-'0')
		case (c == ' ' || c == '-') && i > 0 && i+1 < len(v) && v[i-1] >= '0' && v[i-1] <= '9':
		default:
			return nil, false
		}
	}
	return digits, true
}

// luhn reports whether digits (values 0 to 9) pass the Luhn check.
func luhn(digits []byte) bool {
	sum := 0
	for i := range digits {
		d := int(digits[len(digits)-1-i])
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// ssn reports whether v is written ddd-dd-dddd.
func ssn(v string) bool {
	if len(v) != 11 || v[3] != '-' || v[6] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 3 && i != 6 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}

// scalarText is the text of a JSON string or number as a [Value] reads it.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

// HideFields returns v, a decoded JSON value (an answer's content, a
// call's arguments), with the value of each member that holds a secret
// replaced by [Hidden], at any depth: a member whose name is a [Field]
// (described, for the top level, by describe's prose, which may be nil),
// and a string or number that is a [Value]. v itself is left as it is.
// paths names, in order, every value hidden, and those that were already
// [Hidden] (a recording's), as dotted paths ("password",
// "auth.token", "cards.0"), so that a writer can say where a value is
// to be filled in by hand.
func HideFields(v any, describe func(name string) []string) (any, []string) {
	var paths []string
	out := hideValue(v, "", describe, 0, &paths)
	return out, paths
}

// maxHideDepth bounds the walk; deeper values are hidden whole.
const maxHideDepth = 64

func hideValue(v any, path string, describe func(string) []string, depth int, paths *[]string) any {
	if depth > maxHideDepth {
		*paths = append(*paths, path)
		return Hidden
	}
	switch x := v.(type) {
	case map[string]any:
		return hideMembers(x, path, describe, depth, paths)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = hideValue(e, joinPath(path, strconv.Itoa(i)), describe, depth+1, paths)
		}
		return out
	}
	if s, ok := scalarText(v); ok && (s == Hidden || Value(s)) {
		*paths = append(*paths, path)
		return Hidden
	}
	return v
}

// hideMembers is hideValue for an object, its members taken in the order
// of their names.
func hideMembers(x map[string]any, path string, describe func(string) []string, depth int, paths *[]string) map[string]any {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(x))
	for _, k := range keys {
		var prose []string
		if depth == 0 && describe != nil {
			prose = describe(k)
		}
		if x[k] != nil && Field(k, prose...) {
			out[k] = Hidden
			*paths = append(*paths, joinPath(path, k))
			continue
		}
		out[k] = hideValue(x[k], joinPath(path, k), describe, depth+1, paths)
	}
	return out
}

// joinPath is the dotted path of member or element k of the value at path.
func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// HideMessage returns a JSON-RPC message with the secrets of what a
// client says hidden, every other byte as it was: the values HideFields
// hides in the arguments of a call (params.arguments), in the answers to
// questions (params.inputResponses, and the content of an
// elicitation/create result), a member named like a secret hidden whole
// (see [Field]), each replaced by the JSON string [Hidden].
// secrets are the texts hidden (strings as they were, numbers as written),
// for a caller to hide wherever a server echoes them. A message that is
// not valid JSON is returned as it is.
func HideMessage(msg []byte) (out []byte, secrets []string) {
	return hideAt(msg, nil)
}

// HidePart is [HideMessage] for one member of a message, its "params" or
// its "result", as a trace keeps them.
func HidePart(member string, raw []byte) (out []byte, secrets []string) {
	return hideAt(raw, []string{member})
}

// Names remembers what [Field] made of the keys that are no plain words
// (such as "io.modelcontextprotocol/clientInfo", which Field reads word by
// word, allocating), for a reader of many messages: [Names.HideMessage]
// reads each such key once. It keeps up to maxNames keys of at most
// maxName bytes (any other is read every time) and is safe for concurrent
// use.
type Names struct {
	mu    sync.Mutex
	field map[string]bool
}

// What a Names keeps.
const (
	maxNames = 1024
	maxName  = 128
)

// NewNames returns an empty Names.
func NewNames() *Names { return &Names{field: map[string]bool{}} }

// HideMessage is [HideMessage], the keys that are no plain words read once.
func (n *Names) HideMessage(msg []byte) (out []byte, secrets []string) {
	return hideAtNames(msg, nil, n)
}

// isField is Field(name), remembered by n (when not nil).
func (n *Names) isField(name string) bool {
	if n == nil {
		return Field(name)
	}
	n.mu.Lock()
	f, ok := n.field[name]
	n.mu.Unlock()
	if ok {
		return f
	}
	f = Field(name)
	if len(name) <= maxName {
		n.mu.Lock()
		if len(n.field) < maxNames {
			n.field[strings.Clone(name)] = f
		}
		n.mu.Unlock()
	}
	return f
}

func hideAt(msg []byte, root []string) (out []byte, secrets []string) {
	return hideAtNames(msg, root, nil)
}

// hideAtNames is hideAt, the keys read by names (nil: by Field).
func hideAtNames(msg []byte, root []string, names *Names) (out []byte, secrets []string) {
	if !bytes.Contains(msg, []byte(`"arguments"`)) && !bytes.Contains(msg, []byte(`"inputResponses"`)) &&
		!(bytes.Contains(msg, []byte(`"content"`)) && bytes.Contains(msg, []byte(`"action"`))) &&
		!bytes.Contains(msg, []byte(`\`)) {
		return msg, nil
	}
	if !mayHold(msg, names) {
		return msg, nil
	}
	return walk(msg, root)
}

// walk is hideAt past its quick checks: the message read token by token.
func walk(msg []byte, root []string) (out []byte, secrets []string) {
	w := walker{msg: msg, root: root, dec: json.NewDecoder(bytes.NewReader(msg)), payload: -1}
	w.dec.UseNumber()
	for {
		before := w.dec.InputOffset()
		tok, err := w.dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return msg, nil
		}
		if w.readKey(tok) {
			continue
		}
		if !w.readValue(tok, w.valueStart(before)) {
			return msg, nil
		}
	}
	if len(w.spans) == 0 {
		return msg, nil
	}
	return splice(msg, w.spans), w.secrets
}

// span is the byte range of a value to hide.
type span struct{ from, to int64 }

// walker is the state of walk: where the decoder is in the message, and
// what it has found to hide.
type walker struct {
	msg  []byte
	root []string
	dec  *json.Decoder
	// The path of keys from the root to where the decoder is; "" for an
	// array's element. inObject[i] tells whether container i is an object.
	path     []string
	inObject []bool
	wantKey  bool
	key      string // the key of the value that comes next
	payload  int    // the depth at which a payload began, or -1
	hideNext bool
	spans    []span
	secrets  []string
}

// inObjectNow reports whether the decoder is inside an object (not an
// array, nor at the top).
func (w *walker) inObjectNow() bool {
	return len(w.inObject) > 0 && w.inObject[len(w.inObject)-1]
}

// readKey takes tok as the key of the object's next member if that is
// what the decoder is at, and reports whether it did.
func (w *walker) readKey(tok json.Token) bool {
	s, ok := tok.(string)
	if !ok || !w.inObjectNow() || !w.wantKey {
		return false
	}
	w.key = s
	w.wantKey = false
	w.hideNext = w.payload >= 0 && Field(s)
	return true
}

// valueStart returns where a value begins (or a container ends) that the
// decoder read from before: the first byte after the separators.
func (w *walker) valueStart(before int64) int64 {
	start := before
	for start < int64(len(w.msg)) && strings.IndexByte(" \t\r\n,:", w.msg[start]) >= 0 {
		start++
	}
	return start
}

// readValue takes tok, which begins at start, as a value or the end of a
// container; it reports false when the message does not read as JSON.
func (w *walker) readValue(tok json.Token, start int64) bool {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' || t == '[' {
			return w.open(t, start)
		}
		w.close()
	default:
		w.scalar(t, start)
	}
	w.hideNext = false
	w.key = ""
	w.wantKey = w.inObjectNow()
	return true
}

// open enters the object or array t begins at start, or skips and hides it
// whole when it stands for a secret.
func (w *walker) open(t json.Delim, start int64) bool {
	if w.hideNext {
		end, ok := skipValue(w.dec)
		if !ok {
			return false
		}
		w.hide(start, end, string(w.msg[start:end]))
		w.hideNext = false
		w.wantKey = w.inObjectNow()
		return true
	}
	if w.entersPayload(t) {
		w.payload = len(w.inObject) + 1
	}
	w.path = append(w.path, w.key)
	w.inObject = append(w.inObject, t == '{')
	w.wantKey = t == '{'
	w.key = ""
	return true
}

// entersPayload reports whether the container t opens under the current
// key is the first payload on the path (see [startsPayload]).
func (w *walker) entersPayload(t json.Delim) bool {
	return w.payload < 0 && t == '{' && len(w.path) > 0 &&
		startsPayload(append(w.root[:len(w.root):len(w.root)], w.path[1:]...), w.key)
}

// close leaves the innermost container, and the payload if it began there.
func (w *walker) close() {
	depth := len(w.inObject)
	if w.payload == depth {
		w.payload = -1
	}
	w.path = w.path[:len(w.path)-1]
	w.inObject = w.inObject[:depth-1]
}

// scalar hides the string or number t, which begins at start, if it is in
// a payload and is a secret by its member's name or its form.
func (w *walker) scalar(t json.Token, start int64) {
	if w.payload < 0 {
		return
	}
	text, isText := scalarText(t)
	if isText && (w.hideNext || Value(text)) && text != Hidden {
		w.hide(start, w.dec.InputOffset(), text)
	}
}

// hide records the bytes from..to, whose text is secret, to be hidden.
func (w *walker) hide(from, to int64, secret string) {
	w.spans = append(w.spans, span{from, to})
	w.secrets = append(w.secrets, secret)
}

// splice returns msg with each span replaced by the JSON string [Hidden].
func splice(msg []byte, spans []span) []byte {
	var b bytes.Buffer
	last := int64(0)
	for _, s := range spans {
		b.Write(msg[last:s.from])
		b.WriteString(`"` + Hidden + `"`)
		last = s.to
	}
	b.Write(msg[last:])
	return b.Bytes()
}

// startsPayload reports whether the object that begins under key, at path
// (the keys from the message's root),
// holds what a client says for itself: a call's arguments, the answers to
// questions, or an elicitation's answer.
func startsPayload(path []string, key string) bool {
	switch {
	case key == "arguments" && len(path) == 1 && path[0] == "params":
		return true
	case key == "inputResponses":
		return true
	case key == "content" && len(path) == 1 && path[0] == "result":
		return true
	}
	return false
}

// skipValue reads the rest of an object or array whose opening the
// decoder has just read, and returns the offset of its end.
func skipValue(dec *json.Decoder) (int64, bool) {
	for n := 1; n > 0; {
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				n++
			} else {
				n--
			}
		}
	}
	return dec.InputOffset(), true
}

// mayHold reports whether msg may hold a secret HideMessage hides, reading
// its bytes once without allocating for what most messages are: a key
// that is a [Field], a string that is a [Value], a number long enough to
// be a card's, or an escape (which only the walk reads right).
func mayHold(msg []byte, names *Names) bool {
	digits := 0
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c >= '0' && c <= '9' {
			if digits++; digits >= 13 {
				return true
			}
			continue
		}
		digits = 0
		if c != '"' {
			continue
		}
		end, plain := stringEnd(msg, i+1)
		if !plain || stringMayHold(msg, i+1, end, names) {
			return true
		}
		i = end
	}
	return false
}

// stringEnd returns the index of the quote that ends the string whose
// text begins at from. plain is false when an escape comes first or the
// string has no end: only the walk reads those right.
func stringEnd(msg []byte, from int) (end int, plain bool) {
	end = from
	for end < len(msg) && msg[end] != '"' {
		if msg[end] == '\\' {
			return end, false
		}
		end++
	}
	return end, end < len(msg)
}

// stringMayHold reports whether the string msg[from:end], without escapes,
// is a key that is a [Field] or a value that is a [Value].
func stringMayHold(msg []byte, from, end int, names *Names) bool {
	text := string(msg[from:end]) // not kept: no allocation
	if isKey(msg, end+1) {
		term, plain := defaults().matchPlain(text)
		return term != "" || !plain && names.isField(text)
	}
	return Value(text)
}

// isKey reports whether the string that ended before at is a key: a colon
// comes next, after white space.
func isKey(msg []byte, at int) bool {
	k := at
	for k < len(msg) && (msg[k] == ' ' || msg[k] == '\t' || msg[k] == '\r' || msg[k] == '\n') {
		k++
	}
	return k < len(msg) && msg[k] == ':'
}

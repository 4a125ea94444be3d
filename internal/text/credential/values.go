package credential

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
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
	digits := buf[:0]
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c-'0')
		case (c == ' ' || c == '-') && i > 0 && i+1 < len(v) && v[i-1] >= '0' && v[i-1] <= '9':
		default:
			return false
		}
	}
	if len(digits) < 13 || len(digits) > 19 {
		return false
	}
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
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
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
				*paths = append(*paths, join(k))
				continue
			}
			out[k] = hideValue(x[k], join(k), describe, depth+1, paths)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = hideValue(e, join(strconv.Itoa(i)), describe, depth+1, paths)
		}
		return out
	}
	if s, ok := scalarText(v); ok && (s == Hidden || Value(s)) {
		*paths = append(*paths, path)
		return Hidden
	}
	return v
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

func hideAt(msg []byte, root []string) (out []byte, secrets []string) {
	if !bytes.Contains(msg, []byte(`"arguments"`)) && !bytes.Contains(msg, []byte(`"inputResponses"`)) &&
		!(bytes.Contains(msg, []byte(`"content"`)) && bytes.Contains(msg, []byte(`"action"`))) &&
		!bytes.Contains(msg, []byte(`\`)) {
		return msg, nil
	}
	if !mayHold(msg) {
		return msg, nil
	}
	return walk(msg, root)
}

// walk is hideAt past its quick checks: the message read token by token.
func walk(msg []byte, root []string) (out []byte, secrets []string) {
	type span struct{ from, to int64 }
	var spans []span
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	// The path of keys from the root to where the decoder is; "" for an
	// array's element. inObject[i] tells whether container i is an object.
	var path []string
	var inObject []bool
	wantKey := false
	key := ""     // the key of the value that comes next
	payload := -1 // the depth at which a payload began, or -1
	hideNext := false
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return msg, nil
		}
		depth := len(inObject)
		if s, ok := tok.(string); ok && depth > 0 && inObject[depth-1] && wantKey {
			key = s
			wantKey = false
			hideNext = payload >= 0 && Field(s)
			continue
		}
		// A value begins (or a container ends) at the first byte after
		// the separators before it.
		start := before
		for start < int64(len(msg)) && strings.IndexByte(" \t\r\n,:", msg[start]) >= 0 {
			start++
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if hideNext {
					// The whole object or array stands for the secret.
					end, ok := skipValue(dec)
					if !ok {
						return msg, nil
					}
					spans = append(spans, span{start, end})
					secrets = append(secrets, string(msg[start:end]))
					hideNext = false
					wantKey = depth > 0 && inObject[depth-1]
					continue
				}
				if payload < 0 && t == '{' && len(path) > 0 && startsPayload(append(root[:len(root):len(root)], path[1:]...), key) {
					payload = depth + 1
				}
				path = append(path, key)
				inObject = append(inObject, t == '{')
				wantKey = t == '{'
				key = ""
				continue
			case '}', ']':
				if payload == depth {
					payload = -1
				}
				path = path[:len(path)-1]
				inObject = inObject[:depth-1]
			}
		default:
			if payload >= 0 {
				text, isText := scalarText(t)
				if isText && (hideNext || Value(text)) && text != Hidden {
					spans = append(spans, span{start, dec.InputOffset()})
					secrets = append(secrets, text)
				}
			}
		}
		hideNext = false
		key = ""
		wantKey = len(inObject) > 0 && inObject[len(inObject)-1]
	}
	if len(spans) == 0 {
		return msg, nil
	}
	var b bytes.Buffer
	last := int64(0)
	for _, s := range spans {
		b.Write(msg[last:s.from])
		b.WriteString(`"` + Hidden + `"`)
		last = s.to
	}
	b.Write(msg[last:])
	return b.Bytes(), secrets
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
func mayHold(msg []byte) bool {
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
		end := i + 1
		for end < len(msg) && msg[end] != '"' {
			if msg[end] == '\\' {
				return true
			}
			end++
		}
		if end >= len(msg) {
			return true
		}
		text := string(msg[i+1 : end]) // not kept: no allocation
		k := end + 1
		for k < len(msg) && (msg[k] == ' ' || msg[k] == '\t' || msg[k] == '\r' || msg[k] == '\n') {
			k++
		}
		if k < len(msg) && msg[k] == ':' {
			if term, plain := defaults().matchPlain(text); term != "" || !plain && Field(text) {
				return true
			}
		} else if Value(text) {
			return true
		}
		i = end
	}
	return false
}

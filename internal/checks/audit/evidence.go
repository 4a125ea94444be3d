package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Limits on evidence, so that a report stays readable.
const (
	maxEvidence = 600 // characters of one request or response
	maxString   = 72  // characters of one string inside it
)

// shorten renders raw JSON compactly with long strings cut.
func shorten(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return cut(string(raw), maxEvidence)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(shortenStrings(v)); err != nil {
		return cut(string(raw), maxEvidence)
	}
	return cut(string(bytes.TrimSpace(b.Bytes())), maxEvidence)
}

func shortenStrings(v any) any {
	switch x := v.(type) {
	case string:
		return cutString(x, maxString)
	case []any:
		for i := range x {
			x[i] = shortenStrings(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = shortenStrings(x[k])
		}
	}
	return v
}

// cutString keeps the start and the end of a long string.
func cutString(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	r := []rune(s)
	head, tail := max*2/3, max/3-8
	return fmt.Sprintf("%s…%s (%d chars)", string(r[:head]), string(r[n-tail:]), n)
}

func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return b
}

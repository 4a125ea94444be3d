// Package jsonobject reads a JSON object that a person wrote: the value of
// --args or --elicit, the content of an elicit_response line. Every such
// place follows one rule: exactly one JSON value, an object, nothing after
// it, no key twice in one object, and an error that names what was written
// and says what is wrong.
package jsonobject

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/strictjson"
)

// Numbers says how Parse decodes numbers.
type Numbers int

const (
	// Float64 decodes numbers as float64, as a message from the wire
	// decodes: what schema validation reads (answers).
	Float64 Numbers = iota
	// AsWritten keeps numbers as json.Number, so that they are sent on
	// exactly as written (tool arguments keep every digit of a large
	// integer).
	AsWritten
)

// Parse reads text as one JSON object. what names the text in errors:
// "WHAT is not a JSON object: it is an array", "WHAT has text after the JSON
// object".
func Parse(what, text string, numbers Numbers) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	if numbers == AsWritten {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s is not a JSON object: it is empty", what)
		}
		return nil, fmt.Errorf("%s is not a JSON object: %v", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a JSON object: it is %s", what, kind(v))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s has text after the JSON object", what)
	}
	if err := strictjson.CheckRepeats([]byte(text)); err != nil {
		// A key given twice would be read as its last value, silently.
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return m, nil
}

// kind names the JSON type of a decoded value that is not an object.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

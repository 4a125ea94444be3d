// Package userjson reads the JSON that a person wrote: the value of
// --args, --elicit or --sample, the content of an elicit_response line, a
// sample_response reply, a JSON value in a script's arguments. Every such
// place follows one rule: exactly one JSON value, nothing after it, no key
// twice in one object, and an error that names what was written and says
// what is wrong.
package userjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/askback/askback/internal/encoding/strictjson"
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
	v, err := read(what, text, numbers, true)
	if err != nil {
		return nil, err
	}
	if err := strictjson.CheckRepeats([]byte(text)); err != nil {
		// A key given twice would be read as its last value, silently.
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return v.(map[string]any), nil
}

// Value reads text as one JSON value of any type, by the rules of Parse:
// "WHAT is not JSON: unexpected EOF", "WHAT has text after the JSON value".
// A key twice in one object is an error wrapping strictjson.ErrAmbiguous.
func Value(what, text string, numbers Numbers) (any, error) {
	v, err := read(what, text, numbers, false)
	if err != nil {
		return nil, err
	}
	if err := strictjson.CheckRepeats([]byte(text)); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

// A FieldError is Decode's refusal of an object that is well-formed but
// does not fit the struct: a member it has no field for, or a value of
// another type than its field's.
type FieldError struct {
	What string // what the text is, as given to Decode
	Err  error  // encoding/json's account of the mismatch
}

func (e *FieldError) Error() string { return e.What + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Decode reads text as one JSON object, by the rules of Parse, into the
// struct v. Since encoding/json matches members to fields whatever their
// letter case, two members whose names differ only in case are refused as
// a key twice would be; a member v has no field for is a *FieldError.
func Decode(what, text string, v any) error {
	if _, err := read(what, text, Float64, true); err != nil {
		return err
	}
	err := strictjson.DecodeKnown([]byte(text), v)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, strictjson.ErrAmbiguous):
		return fmt.Errorf("%s: %w", what, err)
	}
	return &FieldError{What: what, Err: err}
}

// read decodes the one JSON value of text, an object when object is set,
// refusing empty text and text after the value.
func read(what, text string, numbers Numbers, object bool) (any, error) {
	noun, after := "JSON", "value"
	if object {
		noun, after = "a JSON object", "object"
	}
	dec := json.NewDecoder(strings.NewReader(text))
	if numbers == AsWritten {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s is not %s: it is empty", what, noun)
		}
		return nil, fmt.Errorf("%s is not %s: %v", what, noun, err)
	}
	if _, ok := v.(map[string]any); object && !ok {
		return nil, fmt.Errorf("%s is not a JSON object: it is %s", what, kind(v))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s has text after the JSON %s", what, after)
	}
	return v, nil
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

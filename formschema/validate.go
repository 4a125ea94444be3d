package formschema

import (
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// FieldError is one problem with one field of an answer.
type FieldError struct {
	Field   string
	Message string
}

func (e FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Message) }

// ValidationError lists every problem found in an answer, in field order.
type ValidationError struct {
	Problems []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return "answer does not match the requested schema: " + strings.Join(parts, "; ")
}

// ApplyDefaults returns a copy of content in which every field that is
// absent and has a default in the schema holds that default (SEP-1034).
// A field answered with null counts as absent: a form's values are never
// null, and [Schema.Validate] reads null as no answer, so null gets the
// default too (otherwise it would reach a decoder as the zero value, which
// the schema may not allow: false for a default of true, "" outside an
// enum, 0 below a minimum). content may be nil.
func (s *Schema) ApplyDefaults(content map[string]any) map[string]any {
	out := make(map[string]any, len(content)+len(s.Fields))
	for k, v := range content {
		out[k] = v
	}
	for _, f := range s.Fields {
		if v, ok := out[f.Name]; (!ok || v == nil) && f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	return out
}

// Validate checks an accepted answer's content against the schema: required
// fields present, each value of the right type and within its bounds, enum
// values among the choices (each chosen at most once in a multi-select),
// formats well formed, and no field the schema does not ask for. A field
// answered with null counts as absent. It returns nil or a
// *ValidationError.
func (s *Schema) Validate(content map[string]any) error {
	var probs []FieldError
	for _, f := range s.Fields {
		v, ok := content[f.Name]
		if !ok || v == nil {
			if f.Required {
				probs = append(probs, FieldError{f.Name, "is required"})
			}
			continue
		}
		if err := f.check(v); err != nil {
			probs = append(probs, FieldError{f.Name, err.Error()})
		}
	}
	probs = append(probs, s.extraFields(content)...)
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

// extraFields returns a problem for each field of content the schema does
// not ask for, by name.
func (s *Schema) extraFields(content map[string]any) []FieldError {
	var extra []string
	for k := range content {
		if s.Field(k) == nil {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	probs := make([]FieldError, 0, len(extra))
	for _, k := range extra {
		probs = append(probs, FieldError{k, "is not in the requested schema"})
	}
	return probs
}

// check reports what is wrong with one value for the field, or nil.
func (f *Field) check(v any) error {
	switch f.Kind {
	case String:
		return f.checkString(v)
	case Number, Integer:
		return f.checkNumber(v)
	case Boolean:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("must be true or false, got %s", describe(v))
		}
	case SingleEnum:
		s, ok := v.(string)
		if !ok || !f.allows(s) {
			return fmt.Errorf("must be one of %s, got %s", f.choices(), describe(v))
		}
	case MultiSelect:
		return f.checkMulti(v)
	}
	return nil
}

// checkString is check for a String field: its length and format.
func (f *Field) checkString(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a string, got %s", describe(v))
	}
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength {
		return fmt.Errorf("must be at least %d characters long, got %d", *f.MinLength, n)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return fmt.Errorf("must be at most %d characters long, got %d", *f.MaxLength, n)
	}
	return checkFormat(f.Format, s)
}

// checkNumber is check for a Number or Integer field: whole for an
// Integer, and within the bounds.
func (f *Field) checkNumber(v any) error {
	x, ok := number(v)
	if !ok {
		return fmt.Errorf("must be a number, got %s", describe(v))
	}
	if f.Kind == Integer && x != math.Trunc(x) {
		return fmt.Errorf("must be a whole number, got %v", x)
	}
	if f.Minimum != nil && x < *f.Minimum {
		return fmt.Errorf("must be at least %v, got %v", *f.Minimum, x)
	}
	if f.Maximum != nil && x > *f.Maximum {
		return fmt.Errorf("must be at most %v, got %v", *f.Maximum, x)
	}
	return nil
}

// checkMulti is check for a MultiSelect field: a list of distinct choices,
// as many as the bounds allow.
func (f *Field) checkMulti(v any) error {
	items, ok := toStrings(v)
	if !ok {
		return fmt.Errorf("must be a list of choices, got %s", describe(v))
	}
	if err := f.checkChoices(items); err != nil {
		return err
	}
	if f.MinItems != nil && len(items) < *f.MinItems {
		return fmt.Errorf("must have at least %d choices, got %d", *f.MinItems, len(items))
	}
	if f.MaxItems != nil && len(items) > *f.MaxItems {
		return fmt.Errorf("must have at most %d choices, got %d", *f.MaxItems, len(items))
	}
	return nil
}

// checkChoices reports the first item that is not a choice of the field,
// or that is chosen twice.
func (f *Field) checkChoices(items []string) error {
	for i, s := range items {
		if !f.allows(s) {
			return fmt.Errorf("%q is not one of %s", s, f.choices())
		}
		if slices.Contains(items[:i], s) {
			// A choice is picked or not: twice would count towards
			// minItems what one pick is.
			return fmt.Errorf("%q is chosen twice", s)
		}
	}
	return nil
}

func (f *Field) allows(s string) bool {
	return slices.ContainsFunc(f.Options, func(o Option) bool { return o.Value == s })
}

func (f *Field) choices() string {
	vals := make([]string, len(f.Options))
	for i, o := range f.Options {
		vals[i] = fmt.Sprintf("%q", o.Value)
	}
	return strings.Join(vals, ", ")
}

// A format is a string format a form may ask for: its name, what a value
// must be (for the error), and the check of a value.
type format struct {
	name, want string
	ok         func(string) bool
}

// formats are the string formats a form may ask for (a value, not a
// variable: the table cannot be changed).
func formats() [4]format {
	return [...]format{
		{"email", "an email address", isEmail},
		{"uri", "an absolute URI", isAbsoluteURI},
		{"date", "a date (YYYY-MM-DD)", isDate},
		{"date-time", "a date-time (RFC 3339)", isDateTime},
	}
}

// knownFormat reports whether a form may ask for the format name, and
// lists the ones it may ask for.
func knownFormat(name string) (ok bool, names string) {
	all := formats()
	list := make([]string, len(all))
	for i, f := range all {
		ok = ok || f.name == name
		list[i] = f.name
	}
	return ok, strings.Join(list, ", ")
}

// checkFormat reports whether s is not written in the format (one of
// formats, or "" for any).
func checkFormat(name, s string) error {
	for _, f := range formats() {
		if f.name == name && !f.ok(s) {
			return fmt.Errorf("must be %s, got %q", f.want, s)
		}
	}
	return nil
}

// isEmail reports whether s is an address as RFC 5321 writes it: ASCII
// only (net/mail also takes the UTF-8 of RFC 6532, where "p\u0430ypal@…"
// (a Cyrillic a) passes for another address; that is format idn-email,
// not email).
func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && isASCII(s)
}

// isAbsoluteURI reports whether s is a URI with a scheme, written only
// with the characters of a URI.
func isAbsoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && uriChars(s)
}

// isDate reports whether s is a date written YYYY-MM-DD.
func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// isDateTime reports whether s is a date-time as RFC 3339 writes it.
func isDateTime(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// uriChars reports whether s is written only with the characters of a URI
// (RFC 3986: unreserved, reserved, and % followed by two hex digits).
// net/url takes more (spaces, non-ASCII letters, quotes and angle brackets
// in a path), which a handler trusting the format would not expect.
func uriChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case uriByte(c):
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

// uriByte reports whether c is an unreserved or reserved character of a
// URI.
func uriByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

func toStrings(v any) ([]string, bool) {
	switch x := v.(type) {
	case []string:
		return x, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case nil:
		return "null"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	if n, ok := number(v); ok {
		return fmt.Sprintf("the number %v", n)
	}
	return fmt.Sprintf("%T", v)
}

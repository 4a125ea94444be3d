package interactive

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/askback/askback/form"
	"github.com/askback/askback/formschema"
	"github.com/askback/askback/internal/text/termsafe"
)

// Widget is the kind of input a person uses for a field.
type Widget string

// The widgets a form is made of.
const (
	TextInput   Widget = "input"        // strings, numbers and integers: a line of text
	YesNo       Widget = "confirm"      // required booleans and booleans with a default
	SelectOne   Widget = "select"       // single-choice enums; optional booleans without a default
	SelectMany  Widget = "multi-select" // multi-choice enums
	requiredTag        = " (required)"
)

// Option is one choice of a select field.
type Option struct {
	Label string // what the person reads
	Value string // what is sent; "" is the "no answer" choice of an optional select
}

// Value is what a person entered into one field, whatever its widget.
type Value struct {
	Text   string   // TextInput
	On     bool     // YesNo
	Choice string   // SelectOne; "" means no answer
	Set    []string // SelectMany
}

// Field describes how one field of a form is asked: the widget, its texts
// and its starting value (the schema's default, pre-filled).
type Field struct {
	Name        string
	Kind        formschema.Kind
	Widget      Widget
	Title       string // the field's title, marked " (required)" when it is
	Description string // the schema's description and a hint on what to enter
	Placeholder string // TextInput: an example of the expected input
	Options     []Option
	Required    bool
	// Warning says why the person should think twice before answering: the
	// field looks like it asks for a secret, which a form must never do.
	Warning   string
	CharLimit int // TextInput: the schema's maxLength, 0 when none
	Limit     int // SelectMany: the schema's maxItems, 0 when none
	Start     Value

	schema *formschema.Field
}

// Describe maps every field of a form schema to the way it is asked, in the
// schema's order.
func Describe(s *formschema.Schema) []*Field {
	if s == nil {
		return nil
	}
	out := make([]*Field, 0, len(s.Fields))
	secrets := form.DefaultSecretPolicy()
	for _, f := range s.Fields {
		out = append(out, describeField(f, secrets))
	}
	return out
}

func describeField(f *formschema.Field, secrets *form.SecretPolicy) *Field {
	d := &Field{Name: f.Name, Kind: f.Kind, Required: f.Required, schema: f}
	if w := secrets.Match(f.Name, f.Title, f.Description); w != "" {
		d.Warning = fmt.Sprintf("%s looks like it asks for a secret (%q); a form must never ask for passwords, keys, tokens or payment data: decline unless you are sure", termsafe.Line(f.Label()), w)
	}
	d.Title = termsafe.Line(f.Label())
	if f.Required {
		d.Title += requiredTag
	}
	var hints []string
	if f.Description != "" {
		hints = append(hints, termsafe.Line(f.Description))
	}
	switch f.Kind {
	case formschema.Boolean:
		d.asBoolean(f)
	case formschema.SingleEnum:
		d.asSingleEnum(f)
	case formschema.MultiSelect:
		hints = append(hints, d.asMultiSelect(f))
	case formschema.Number, formschema.Integer:
		hints = append(hints, d.asNumber(f))
	default: // String
		hints = append(hints, d.asString(f)...)
	}
	d.Description = joinHints(hints)
	return d
}

// asBoolean asks for boolean field f: a yes/no toggle, or a choice that
// may be left unanswered.
func (d *Field) asBoolean(f *formschema.Field) {
	def, hasDef := f.Default.(bool)
	if f.Required || hasDef {
		// A yes/no toggle always gives an answer: the schema's
		// default pre-filled (the spec asks clients to), else No.
		d.Widget = YesNo
		d.Start.On = def
		return
	}
	// An optional boolean without a default may be left unanswered:
	// a toggle would send No for a field the person never touched.
	d.Widget = SelectOne
	d.Options = []Option{{Label: "(no answer)", Value: ""}, {Label: "Yes", Value: "true"}, {Label: "No", Value: "false"}}
}

// asSingleEnum asks for single-choice field f, starting at its default
// (or, required, its first option).
func (d *Field) asSingleEnum(f *formschema.Field) {
	d.Widget = SelectOne
	def, _ := f.Default.(string)
	if !f.Required && def == "" {
		d.Options = append(d.Options, Option{Label: "(no answer)", Value: ""})
	}
	for _, o := range f.Options {
		d.Options = append(d.Options, Option{Label: termsafe.Line(o.Title), Value: o.Value})
	}
	d.Start.Choice = def
	if def == "" && f.Required && len(f.Options) > 0 {
		d.Start.Choice = f.Options[0].Value
	}
}

// asMultiSelect asks for multiple-choice field f, starting at its default;
// it returns the hint of how many to choose.
func (d *Field) asMultiSelect(f *formschema.Field) string {
	d.Widget = SelectMany
	for _, o := range f.Options {
		d.Options = append(d.Options, Option{Label: termsafe.Line(o.Title), Value: o.Value})
	}
	if items, ok := f.Default.([]any); ok {
		for _, it := range items {
			if s, ok := it.(string); ok {
				d.Start.Set = append(d.Start.Set, s)
			}
		}
	}
	if f.MaxItems != nil {
		d.Limit = *f.MaxItems
	}
	return rangeHint("choose", "", intPtrFloat(f.MinItems), intPtrFloat(f.MaxItems), "choices")
}

// asNumber asks for number or integer field f as text; it returns the
// hint of its bounds.
func (d *Field) asNumber(f *formschema.Field) string {
	d.Widget = TextInput
	what := "a number"
	if f.Kind == formschema.Integer {
		what = "a whole number"
	}
	d.Placeholder = what
	if x, ok := f.Default.(float64); ok {
		d.Start.Text = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return rangeHint(what, what, f.Minimum, f.Maximum, "")
}

// asString asks for string field f as text; it returns the hints of its
// default, format and length.
func (d *Field) asString(f *formschema.Field) []string {
	var hints []string
	d.Widget = TextInput
	if def, _ := f.Default.(string); termsafe.Has(def) {
		// Typed into the field, a control character would reach the
		// terminal; left empty, the field still gets its default.
		hints = append(hints, "the default is not shown: it holds control characters")
	} else {
		d.Start.Text = def
	}
	if h, ex := formatHint(f.Format); h != "" {
		hints = append(hints, h)
		d.Placeholder = ex
	}
	hints = append(hints, rangeHint("", "", intPtrFloat(f.MinLength), intPtrFloat(f.MaxLength), "characters"))
	if f.MaxLength != nil {
		d.CharLimit = *f.MaxLength
	}
	return hints
}

func formatHint(format string) (hint, example string) {
	switch format {
	case "email":
		return "an email address", "name@example.com"
	case "uri":
		return "an absolute link", "https://example.com/"
	case "date":
		return "a date, YYYY-MM-DD", "2026-07-28"
	case "date-time":
		return "a date and time (RFC 3339)", "2026-07-28T14:30:00Z"
	}
	return "", ""
}

// rangeHint says what bounds a value must respect, e.g. "a number between 1
// and 5" or "at most 30 characters". It returns "" when there are none,
// unless plain is set, which is then returned.
func rangeHint(prefix, plain string, lo, hi *float64, unit string) string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	var s string
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		s = "exactly " + num(*lo)
	case lo != nil && hi != nil:
		s = "between " + num(*lo) + " and " + num(*hi)
	case lo != nil:
		s = "at least " + num(*lo)
	case hi != nil:
		s = "at most " + num(*hi)
	default:
		return plain
	}
	if unit != "" {
		s += " " + unit
	}
	if prefix != "" {
		s = prefix + " " + s
	}
	return s
}

func intPtrFloat(p *int) *float64 {
	if p == nil {
		return nil
	}
	x := float64(*p)
	return &x
}

func joinHints(hints []string) string {
	var keep []string
	for _, h := range hints {
		if h != "" {
			keep = append(keep, h)
		}
	}
	return strings.Join(keep, " · ")
}

// Decode turns what a person entered into the value sent for the field.
// ok is false when the field is left out of the answer (an empty text or
// the "no answer" choice); err says what is wrong with text that cannot be
// a value of the field's kind.
func (f *Field) Decode(v Value) (value any, ok bool, err error) {
	switch f.Widget {
	case YesNo:
		return v.On, true, nil
	case SelectOne:
		if v.Choice == "" {
			return nil, false, nil
		}
		if f.Kind == formschema.Boolean {
			return v.Choice == "true", true, nil
		}
		return v.Choice, true, nil
	case SelectMany:
		if len(v.Set) == 0 && f.schema.Default == nil {
			// Nothing chosen and no default to override: leave it out.
			return nil, false, nil
		}
		set := make([]any, len(v.Set))
		for i, s := range v.Set {
			set[i] = s
		}
		return set, true, nil
	}
	if f.Kind == formschema.Number || f.Kind == formschema.Integer {
		return f.decodeNumber(v.Text)
	}
	if v.Text == "" {
		return nil, false, nil
	}
	return v.Text, true, nil
}

// decodeNumber is Decode of the text entered in a number or integer field:
// an integer as int64 while it is exact.
func (f *Field) decodeNumber(text string) (value any, ok bool, err error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, false, nil
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, false, fmt.Errorf("enter %s", f.Placeholder)
	}
	if f.Kind == formschema.Integer {
		if x != math.Trunc(x) {
			return nil, false, errors.New("enter a whole number")
		}
		if math.Abs(x) < 1<<53 {
			return int64(x), true, nil
		}
	}
	return x, true, nil
}

// Check reports what is wrong with a value as it is being entered, using
// the schema's own checks for the field. Leaving a field empty is not
// checked here: a missing required field is reported when the form is
// submitted, so that declining never requires filling it in.
func (f *Field) Check(v Value) error {
	x, ok, err := f.Decode(v)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	one := &formschema.Schema{Fields: []*formschema.Field{f.schema}}
	if err := one.Validate(map[string]any{f.Name: x}); err != nil {
		var ve *formschema.ValidationError
		if errors.As(err, &ve) && len(ve.Problems) > 0 {
			return errors.New(ve.Problems[0].Message)
		}
		return err
	}
	return nil
}

// Collect builds the content of an accepted answer from the values entered
// into fields (values[i] belongs to fields[i]) and checks it against the
// schema. problems lists, one per line, what must be fixed before the
// answer can be sent: fields whose text is not a value, and the schema's
// own complaints (required fields missing, bounds).
func Collect(s *formschema.Schema, fields []*Field, values []Value) (content map[string]any, problems []string) {
	content = map[string]any{}
	for i, f := range fields {
		x, ok, err := f.Decode(values[i])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", strings.TrimSuffix(f.Title, requiredTag), err))
			continue
		}
		if ok {
			content[f.Name] = x
		}
	}
	if len(problems) > 0 {
		return content, problems
	}
	if err := s.Validate(s.ApplyDefaults(content)); err != nil {
		var ve *formschema.ValidationError
		if !errors.As(err, &ve) {
			return content, []string{err.Error()}
		}
		for _, p := range ve.Problems {
			label := p.Field
			if sf := s.Field(p.Field); sf != nil {
				label = termsafe.Line(sf.Label())
			}
			problems = append(problems, fmt.Sprintf("%s: %s", label, p.Message))
		}
	}
	return content, problems
}

// hide applies hide to what the field shows and to its pre-filled text,
// never to the values its choices send.
func (f *Field) hide(hide func(string) string) {
	f.Title, f.Description, f.Placeholder, f.Warning = hide(f.Title), hide(f.Description), hide(f.Placeholder), hide(f.Warning)
	for i := range f.Options {
		f.Options[i].Label = hide(f.Options[i].Label)
	}
	f.Start.Text = hide(f.Start.Text)
}

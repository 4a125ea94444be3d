package interactive

import (
	"reflect"
	"strings"
	"testing"

	"github.com/askback/askback/formschema"
)

const deploySchema = `{
  "type": "object",
  "properties": {
    "environment": { "type": "string", "title": "Target environment",
      "oneOf": [ { "const": "staging", "title": "Staging" },
                 { "const": "production", "title": "Production" } ],
      "default": "staging" },
    "confirm": { "type": "boolean", "title": "I have reviewed the changes" }
  },
  "required": ["environment", "confirm"]
}`

func describe(t *testing.T, schema string) (*formschema.Schema, []*Field) {
	t.Helper()
	s, err := formschema.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	return s, Describe(s)
}

func byName(fields []*Field, name string) *Field {
	for _, f := range fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func TestDescribeDeployForm(t *testing.T) {
	_, fields := describe(t, deploySchema)
	if len(fields) != 2 || fields[0].Name != "environment" || fields[1].Name != "confirm" {
		t.Fatalf("fields = %+v, want environment then confirm, as declared", fields)
	}
	env := fields[0]
	if env.Widget != SelectOne || env.Title != "Target environment (required)" {
		t.Errorf("environment = %s %q", env.Widget, env.Title)
	}
	want := []Option{{"Staging", "staging"}, {"Production", "production"}}
	if !reflect.DeepEqual(env.Options, want) {
		t.Errorf("options = %+v, want the oneOf titles %+v (no empty choice: required)", env.Options, want)
	}
	if env.Start.Choice != "staging" {
		t.Errorf("start = %q, want the default staging pre-selected", env.Start.Choice)
	}
	confirm := fields[1]
	if confirm.Widget != YesNo || confirm.Title != "I have reviewed the changes (required)" || confirm.Start.On {
		t.Errorf("confirm = %+v", confirm)
	}
}

func TestDescribeEveryKind(t *testing.T) {
	_, fields := describe(t, `{"type":"object","properties":{
	  "name":  {"type":"string","title":"Name","description":"Your full name","minLength":2,"maxLength":30,"default":"Ada"},
	  "email": {"type":"string","format":"email"},
	  "site":  {"type":"string","format":"uri"},
	  "day":   {"type":"string","format":"date"},
	  "at":    {"type":"string","format":"date-time"},
	  "age":   {"type":"integer","minimum":18,"maximum":130,"default":30},
	  "ratio": {"type":"number","maximum":1.5},
	  "ok":    {"type":"boolean","default":true},
	  "maybe": {"type":"boolean"},
	  "sure":  {"type":"boolean"},
	  "color": {"type":"string","enum":["red","green"],"enumNames":["Red","Green"]},
	  "size":  {"type":"string","enum":["s","m"],"default":"m"},
	  "tags":  {"type":"array","items":{"type":"string","anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"},{"const":"c","title":"Gamma"}]},"minItems":1,"maxItems":2,"default":["a"]}
	},"required":["name","age","sure"]}`)
	cases := []struct {
		name        string
		widget      Widget
		title       string
		description string
		placeholder string
		start       Value
	}{
		{"name", TextInput, "Name (required)", "Your full name · between 2 and 30 characters", "", Value{Text: "Ada"}},
		{"email", TextInput, "email", "an email address", "name@example.com", Value{}},
		{"site", TextInput, "site", "an absolute link", "https://example.com/", Value{}},
		{"day", TextInput, "day", "a date, YYYY-MM-DD", "2026-07-28", Value{}},
		{"at", TextInput, "at", "a date and time (RFC 3339)", "2026-07-28T14:30:00Z", Value{}},
		{"age", TextInput, "age (required)", "a whole number between 18 and 130", "a whole number", Value{Text: "30"}},
		{"ratio", TextInput, "ratio", "a number at most 1.5", "a number", Value{}},
		{"ok", YesNo, "ok", "", "", Value{On: true}},
		{"maybe", SelectOne, "maybe", "", "", Value{}},
		{"sure", YesNo, "sure (required)", "", "", Value{}},
		{"color", SelectOne, "color", "", "", Value{}},
		{"size", SelectOne, "size", "", "", Value{Choice: "m"}},
		{"tags", SelectMany, "tags", "choose between 1 and 2 choices", "", Value{Set: []string{"a"}}},
	}
	for _, c := range cases {
		f := byName(fields, c.name)
		if f == nil {
			t.Errorf("%s: missing", c.name)
			continue
		}
		if f.Widget != c.widget || f.Title != c.title || f.Description != c.description || f.Placeholder != c.placeholder || !reflect.DeepEqual(f.Start, c.start) {
			t.Errorf("%s = {%s %q %q %q %+v}\nwant  {%s %q %q %q %+v}", c.name, f.Widget, f.Title, f.Description, f.Placeholder, f.Start,
				c.widget, c.title, c.description, c.placeholder, c.start)
		}
	}
	if got := byName(fields, "name").CharLimit; got != 30 {
		t.Errorf("name CharLimit = %d, want maxLength 30", got)
	}
	if got := byName(fields, "tags").Limit; got != 2 {
		t.Errorf("tags Limit = %d, want maxItems 2", got)
	}
	// An optional select without a default can be left unanswered; one
	// with a default cannot (the default would be sent anyway).
	if o := byName(fields, "color").Options; len(o) != 3 || o[0] != (Option{"(no answer)", ""}) || o[1] != (Option{"Red", "red"}) {
		t.Errorf("color options = %+v, want (no answer), Red, Green", o)
	}
	// An optional boolean without a default is a choice that can be left
	// unanswered: untouched, it is not sent.
	maybe := byName(fields, "maybe")
	if o := maybe.Options; len(o) != 3 || o[0] != (Option{"(no answer)", ""}) || o[1] != (Option{"Yes", "true"}) || o[2] != (Option{"No", "false"}) {
		t.Errorf("maybe options = %+v, want (no answer), Yes, No", o)
	}
	for in, want := range map[string]any{"": nil, "true": true, "false": false} {
		v, ok, err := maybe.Decode(Value{Choice: in})
		if err != nil || ok != (want != nil) || v != want {
			t.Errorf("maybe %q decodes to %#v %v %v, want %#v", in, v, ok, err, want)
		}
	}
	if o := byName(fields, "size").Options; len(o) != 2 {
		t.Errorf("size options = %+v, want s, m only", o)
	}
	if o := byName(fields, "tags").Options; len(o) != 3 || o[2] != (Option{"Gamma", "c"}) {
		t.Errorf("tags options = %+v, want the anyOf titles", o)
	}
}

func TestDescribeCleansServerText(t *testing.T) {
	_, fields := describe(t, `{"type":"object","properties":{
	  "x":{"type":"string","title":"Name\u001b[2J\u001b[Hsafe","description":"line1\nline2\u202e"},
	  "y":{"type":"string","oneOf":[{"const":"a","title":"A\u001b]8;;https://evil.example\u0007"}]}}}`)
	for _, f := range fields {
		all := f.Title + f.Description
		for _, o := range f.Options {
			all += o.Label
		}
		if strings.ContainsAny(all, "\x1b\x07\n\u202e") {
			t.Errorf("%s: escape or control character reached the terminal: %q", f.Name, all)
		}
	}
}

func TestDecodeAndCheck(t *testing.T) {
	_, fields := describe(t, `{"type":"object","properties":{
	  "age":{"type":"integer","minimum":18,"maximum":20},
	  "ratio":{"type":"number"},
	  "email":{"type":"string","format":"email"},
	  "day":{"type":"string","format":"date"},
	  "name":{"type":"string","maxLength":3},
	  "tags":{"type":"array","items":{"enum":["a","b","c"]},"maxItems":2}}}`)
	cases := []struct {
		field string
		in    Value
		want  string // "" when valid
	}{
		{"age", Value{Text: "19"}, ""},
		{"age", Value{Text: " 19 "}, ""},
		{"age", Value{Text: ""}, ""}, // empty: checked on submit, if required
		{"age", Value{Text: "17"}, "must be at least 18, got 17"},
		{"age", Value{Text: "19.5"}, "enter a whole number"},
		{"age", Value{Text: "abc"}, "enter a whole number"},
		{"ratio", Value{Text: "2.5e3"}, ""},
		{"ratio", Value{Text: "Inf"}, "enter a number"},
		{"email", Value{Text: "ada@example.com"}, ""},
		{"email", Value{Text: "ada"}, "must be an email address"},
		{"day", Value{Text: "2026-02-30"}, "must be a date"},
		{"name", Value{Text: "abcd"}, "at most 3 characters"},
		{"tags", Value{Set: []string{"a", "b", "c"}}, "at most 2 choices"},
	}
	for _, c := range cases {
		err := byName(fields, c.field).Check(c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v, want valid", c.field, c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: %v, want %q", c.field, c.in, err, c.want)
		}
	}
	if v, ok, _ := byName(fields, "age").Decode(Value{Text: "19"}); !ok || v != int64(19) {
		t.Errorf("age decodes to %#v, want int64 19", v)
	}
	if v, ok, _ := byName(fields, "ratio").Decode(Value{Text: "0.5"}); !ok || v != 0.5 {
		t.Errorf("ratio decodes to %#v, want 0.5", v)
	}
}

func TestCollect(t *testing.T) {
	s, fields := describe(t, deploySchema)
	content, problems := Collect(s, fields, []Value{{Choice: "production"}, {On: true}})
	if len(problems) > 0 || !reflect.DeepEqual(content, map[string]any{"environment": "production", "confirm": true}) {
		t.Errorf("content = %v, problems = %v", content, problems)
	}

	s, fields = describe(t, `{"type":"object","properties":{
	  "name":{"type":"string","title":"Full name"},
	  "age":{"type":"integer"},
	  "color":{"type":"string","enum":["red"]},
	  "tags":{"type":"array","items":{"enum":["a","b"]},"minItems":1}},
	  "required":["name","tags"]}`)
	_, problems = Collect(s, fields, []Value{{Text: ""}, {Text: "x"}, {Choice: ""}, {Set: nil}})
	if len(problems) != 1 || !strings.Contains(problems[0], "age: enter a whole number") {
		t.Errorf("problems = %q, want the unreadable number first", problems)
	}
	content, problems = Collect(s, fields, []Value{{Text: ""}, {Text: ""}, {Choice: ""}, {Set: nil}})
	want := []string{"Full name: is required", "tags: is required"}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems = %q, want %q", problems, want)
	}
	if _, ok := content["color"]; ok {
		t.Errorf("the (no answer) choice was sent: %v", content)
	}
}

// BenchmarkParse is the baseline: reading the deployer's requested schema.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := formschema.Parse(deploySchema); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDescribe maps the parsed schema to its form, the step this
// package adds before a form is drawn; compare it with BenchmarkParse.
func BenchmarkDescribe(b *testing.B) {
	s, err := formschema.Parse(deploySchema)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if len(Describe(s)) != 2 {
			b.Fatal("wrong field count")
		}
	}
}

func TestDescribeWarnsAboutSecrets(t *testing.T) {
	_, fields := describe(t, `{"type":"object","properties":{
	  "user":{"type":"string","title":"User name"},
	  "pw":{"type":"string","title":"Password"},
	  "card":{"type":"string","description":"Your credit card number"},
	  "apiKey":{"type":"string"}}}`)
	for _, f := range fields {
		if got := f.Warning != ""; got != (f.Name != "user") {
			t.Errorf("%s: warning %q", f.Name, f.Warning)
		}
	}
	if w := byName(fields, "pw").Warning; !strings.Contains(w, `Password looks like it asks for a secret ("pw")`) {
		t.Errorf("pw warning = %q", w)
	}
}

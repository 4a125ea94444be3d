package formschema

import (
	"encoding/json"
	"strings"
	"testing"
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

func TestParseKeepsDeclaredOrder(t *testing.T) {
	s, err := Parse(json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"boolean"},"m":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Fields {
		got = append(got, f.Name)
	}
	if strings.Join(got, ",") != "z,a,m" {
		t.Errorf("order = %v, want z,a,m", got)
	}
}

func TestParseMapPutsRequiredFirst(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal([]byte(deploySchema), &m); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(m)
	if err != nil {
		t.Fatal(err)
	}
	if s.Fields[0].Name != "environment" || s.Fields[1].Name != "confirm" {
		t.Errorf("order = %s, %s", s.Fields[0].Name, s.Fields[1].Name)
	}
	env := s.Field("environment")
	if env.Kind != SingleEnum || len(env.Options) != 2 || env.Options[1].Title != "Production" || !env.Required || env.Default != "staging" {
		t.Errorf("environment = %+v", env)
	}
}

func TestParseEveryAllowedKind(t *testing.T) {
	s, err := Parse(`{"type":"object","properties":{
	  "name":{"type":"string","minLength":1,"maxLength":20},
	  "email":{"type":"string","format":"email"},
	  "age":{"type":"integer","minimum":18,"maximum":130,"default":30},
	  "ratio":{"type":"number"},
	  "ok":{"type":"boolean","default":false},
	  "color":{"type":"string","enum":["red","green"],"enumNames":["Red","Green"]},
	  "tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2,"default":["a"]},
	  "titled":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}
	}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Kind{"name": String, "email": String, "age": Integer, "ratio": Number, "ok": Boolean, "color": SingleEnum, "tags": MultiSelect, "titled": MultiSelect}
	for name, kind := range want {
		if f := s.Field(name); f == nil || f.Kind != kind {
			t.Errorf("field %s = %+v, want kind %s", name, f, kind)
		}
	}
	if s.Field("color").Options[0].Title != "Red" {
		t.Errorf("enumNames not used as titles")
	}
}

func TestParseRefusesOutsideTheSubset(t *testing.T) {
	cases := map[string]string{
		`{"type":"array"}`: `must have type "object"`,
		`{"type":"object","properties":{"addr":{"type":"object","properties":{"city":{"type":"string"}}}}}`: `field "addr": nested objects`,
		`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object"}}}}`:                `field "list": array items must be string enums`,
		`{"type":"object","properties":{"x":{"type":"string","format":"ipv4"}}}`:                            `field "x": format "ipv4" is not allowed`,
		`{"type":"object","properties":{"x":{}}}`:                                                           `field "x": type is missing`,
		`{"type":"object","properties":{"x":{"type":"null"}}}`:                                              `field "x": type "null" is not allowed`,
		`{"type":"object","properties":{"x":{"type":"string","oneOf":[{"const":"a"}]}}}`:                    `field "x": oneOf entry 0 ("a") needs a title`,
		`{"type":"object","properties":{"x":{"type":"integer","minimum":5,"maximum":1}}}`:                   `field "x": maximum 1 is less than minimum 5`,
		`{"type":"object","properties":{"x":{"type":"boolean","default":"yes"}}}`:                           `field "x": default must be true or false`,
		`{"type":"object","properties":{"x":{"type":"string"}},"required":["y"]}`:                           `field "y" is required but not among the properties`,
		`{"type":"object","properties":{"x":{"$ref":"#/defs/a"}}}`:                                          `field "x": $ref is not allowed`,
		`{"type":"object","properties":{"x":{"type":"string","enum":[1,2]}}}`:                               `field "x": enum value 1 is not a string`,
	}
	for schema, want := range cases {
		_, err := Parse(schema)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want error containing %q", schema, err, want)
		}
	}
}

func TestValidateAndDefaults(t *testing.T) {
	s, err := Parse(deploySchema)
	if err != nil {
		t.Fatal(err)
	}
	filled := s.ApplyDefaults(map[string]any{"confirm": true})
	if filled["environment"] != "staging" {
		t.Errorf("default not applied: %v", filled)
	}
	if err := s.Validate(filled); err != nil {
		t.Errorf("valid answer refused: %v", err)
	}
	err = s.Validate(map[string]any{"environment": "moon", "extra": 1})
	if err == nil {
		t.Fatal("invalid answer accepted")
	}
	for _, want := range []string{`field "environment": must be one of "staging", "production", got the string "moon"`, `field "confirm": is required`, `field "extra": is not in the requested schema`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestValidateBoundsAndFormats(t *testing.T) {
	s, err := Parse(`{"type":"object","properties":{
	  "name":{"type":"string","minLength":2,"maxLength":3},
	  "email":{"type":"string","format":"email"},
	  "site":{"type":"string","format":"uri"},
	  "day":{"type":"string","format":"date"},
	  "at":{"type":"string","format":"date-time"},
	  "age":{"type":"integer","minimum":18,"maximum":20},
	  "tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":1}}}`)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		field string
		value any
		want  string
	}{
		{"name", "a", "at least 2 characters"},
		{"name", "abcd", "at most 3 characters"},
		{"email", "not-mail", "must be an email address"},
		{"email", "pаypal@pay.example", "must be an email address"},
		{"email", "ann@bücher.example", "must be an email address"},
		{"site", "relative/path", "must be an absolute URI"},
		{"site", "https://x.example/a b", "must be an absolute URI"},
		{"site", "https://x.example/<script>", "must be an absolute URI"},
		{"site", `https://x.example/"q"`, "must be an absolute URI"},
		{"site", "https://x.example/é", "must be an absolute URI"},
		{"site", "https://x.example/%zz", "must be an absolute URI"},
		{"site", "https://x.example/%4", "must be an absolute URI"},
		{"day", "2026-13-01", "must be a date"},
		{"at", "yesterday", "must be a date-time"},
		{"age", 17.0, "at least 18"},
		{"age", 21.0, "at most 20"},
		{"age", 18.5, "whole number"},
		{"age", "18", "must be a number"},
		{"tags", []any{"a", "b"}, "at most 1 choices"},
		{"tags", []any{"z"}, `"z" is not one of`},
	}
	for _, c := range cases {
		err := s.Validate(map[string]any{c.field: c.value})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `field "`+c.field+`"`) {
			t.Errorf("%s=%v: %v, want %q", c.field, c.value, err, c.want)
		}
	}
	good := map[string]any{"name": "ab", "email": "a@b.example", "site": "https://x.example", "day": "2026-12-02", "at": "2026-12-02T10:00:00Z", "age": 19.0, "tags": []any{"b"}}
	if err := s.Validate(good); err != nil {
		t.Errorf("good answer refused: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(deploySchema)
	f.Add(`{"type":"object","properties":{"t":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}}}`)
	f.Add(`{"properties":{"a":{"type":"string","enum":["x"],"enumNames":[]}}}`)
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			return
		}
		// A schema that parses can fill defaults and validate them.
		if err := s.Validate(s.ApplyDefaults(nil)); err != nil {
			for _, p := range err.(*ValidationError).Problems {
				if !strings.Contains(p.Message, "is required") {
					t.Fatalf("defaults of an accepted schema fail validation: %v", err)
				}
			}
		}
	})
}

// An attacker's answers that a lenient check passes but the schema does not
// allow: null where a default stands, the same choice twice towards minItems.
func TestValidateOddAnswers(t *testing.T) {
	s, err := Parse(`{"type":"object","properties":{
	  "dryRun":{"type":"boolean","default":true},
	  "level":{"type":"integer","minimum":1,"maximum":5,"default":3},
	  "env":{"type":"string","enum":["staging","production"],"default":"staging"},
	  "tags":{"type":"array","items":{"enum":["a","b","c"]},"minItems":2}}}`)
	if err != nil {
		t.Fatal(err)
	}
	filled := s.ApplyDefaults(map[string]any{"dryRun": nil, "level": nil, "env": nil})
	want := map[string]any{"dryRun": true, "level": 3.0, "env": "staging"}
	for k, v := range want {
		if filled[k] != v {
			t.Errorf("null %s filled as %v, want the default %v", k, filled[k], v)
		}
	}
	if err := s.Validate(map[string]any{"tags": []any{"a", "a"}}); err == nil || !strings.Contains(err.Error(), `"a" is chosen twice`) {
		t.Errorf("the same choice twice towards minItems 2: %v", err)
	}
	if err := s.Validate(map[string]any{"tags": []any{"a", "b"}}); err != nil {
		t.Errorf("two choices refused: %v", err)
	}
	for _, bad := range []any{[]any{"a", nil}, []any{"a", 1.0}, "a", map[string]any{"a": true}} {
		if err := s.Validate(map[string]any{"tags": bad}); err == nil {
			t.Errorf("tags %v accepted", bad)
		}
	}
}

func TestURIFormatTakesEveryURICharacter(t *testing.T) {
	s, err := Parse(`{"type":"object","properties":{"site":{"type":"string","format":"uri"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://x.example", "https://u@x.example:8443/a-b._~/%41?q=1&r=(2)*+,;=!$'#frag", "urn:isbn:0451450523", "mailto:a@b.example", "http://[::1]:80/"} {
		if err := s.Validate(map[string]any{"site": u}); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
}

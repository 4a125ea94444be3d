package userjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/encoding/userjson"
)

func ExampleParse() {
	m, err := userjson.Parse("--args", `{"count": 12345678901234567890}`, userjson.AsWritten)
	fmt.Println(m["count"], err)
	_, err = userjson.Parse("--args", `[1, 2]`, userjson.AsWritten)
	fmt.Println(err)
	// Output:
	// 12345678901234567890 <nil>
	// --args is not a JSON object: it is an array
}

func TestParse(t *testing.T) {
	for text, want := range map[string]string{
		``:                      "content is not a JSON object: it is empty",
		`   `:                   "content is not a JSON object: it is empty",
		`null`:                  "content is not a JSON object: it is null",
		`[1]`:                   "content is not a JSON object: it is an array",
		`"x"`:                   "content is not a JSON object: it is a string",
		`true`:                  "content is not a JSON object: it is a boolean",
		`3`:                     "content is not a JSON object: it is a number",
		`{"a":`:                 "content is not a JSON object: unexpected EOF",
		`nope`:                  "content is not a JSON object: invalid character 'o' in literal null (expecting 'u')",
		`{} {}`:                 "content has text after the JSON object",
		`{"a":1} x`:             "content has text after the JSON object",
		`{"a":1}}`:              "content has text after the JSON object",
		`{"a":1}` + "\n \t":     "",
		`{"a":1,"a":2}`:         `content: ambiguous JSON object: key "a" appears twice in the object at $`,
		`{"a":[{"b":1,"b":1}]}`: `content: ambiguous JSON object: key "b" appears twice in the object at $.a[0]`,
		`{"a":1,"A":2}`:         "",
	} {
		_, err := userjson.Parse("content", text, userjson.Float64)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Parse(%q): %q, want %q", text, got, want)
		}
	}
	m, err := userjson.Parse("content", `{"n": 2, "f": 0.5}`, userjson.Float64)
	if err != nil || m["n"] != 2.0 || m["f"] != 0.5 {
		t.Errorf("float64 numbers: %v, %v", m, err)
	}
	m, err = userjson.Parse("content", `{"n": 2}`, userjson.AsWritten)
	if n, ok := m["n"].(json.Number); err != nil || !ok || n != "2" {
		t.Errorf("numbers as written: %#v, %v", m, err)
	}
}

func TestValue(t *testing.T) {
	for text, want := range map[string]string{
		``:                     "the value is not JSON: it is empty",
		`[1,`:                  "the value is not JSON: unexpected EOF",
		`[1]]`:                 "the value has text after the JSON value",
		`{"a":1}}`:             "the value has text after the JSON value",
		`"x" "y"`:              "the value has text after the JSON value",
		`[{"a":1,"a":2}]`:      `the value: ambiguous JSON object: key "a" appears twice in the object at $[0]`,
		`[1, {"a": null}]`:     "",
		`"x"`:                  "",
		`12345678901234567890`: "",
	} {
		v, err := userjson.Value("the value", text, userjson.AsWritten)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Value(%q): %q, want %q", text, got, want)
		}
		if err != nil && strings.Contains(want, "ambiguous") != errors.Is(err, strictjson.ErrAmbiguous) {
			t.Errorf("Value(%q): %v does not wrap strictjson.ErrAmbiguous", text, err)
		}
		if err == nil && text == `12345678901234567890` && v != json.Number(text) {
			t.Errorf("Value(%q) = %#v: the number as written", text, v)
		}
	}
}

func TestDecode(t *testing.T) {
	type reply struct {
		Text string `json:"text"`
	}
	for text, want := range map[string]string{
		`{"text":"hi"}`:           "",
		`{"text":"hi"}}`:          "reply has text after the JSON object",
		`[{"text":"hi"}]`:         "reply is not a JSON object: it is an array",
		`{"text":`:                "reply is not a JSON object: unexpected EOF",
		`{"text":"a","text":"b"}`: `reply: ambiguous JSON object: key "text" appears twice in the object at $`,
		`{"text":"a","TEXT":"b"}`: `reply: ambiguous JSON object: keys "text" and "TEXT" differ only in letter case in the object at $`,
		`{"txt":"hi"}`:            `reply: json: unknown field "txt"`,
		`{"text":1}`:              "reply: json: cannot unmarshal number into Go struct field reply.text of type string",
	} {
		var r reply
		err := userjson.Decode("reply", text, &r)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Decode(%q): %q, want %q", text, got, want)
		}
		var fe *userjson.FieldError
		if errors.As(err, &fe) != strings.HasPrefix(want, "reply: json:") {
			t.Errorf("Decode(%q): %v: a FieldError only for a member that does not fit", text, err)
		}
	}
}

// FuzzParse: whatever the text, Parse returns an object or an error naming
// the text, and an object it returns encodes back to JSON that parses.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":null}]}`, `[1]`, `{} x`, `nope`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := userjson.Parse("x", text, userjson.AsWritten)
		if err != nil {
			if m != nil || !strings.HasPrefix(err.Error(), "x ") && !strings.HasPrefix(err.Error(), "x: ") {
				t.Fatalf("%q: %v, %v", text, m, err)
			}
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if _, err := userjson.Parse("x", string(b), userjson.AsWritten); err != nil {
			t.Fatalf("%q: round trip %s: %v", text, b, err)
		}
		// An object Parse takes, Value takes too, and both are valid JSON.
		if _, err := userjson.Value("x", text, userjson.AsWritten); err != nil || !json.Valid([]byte(text)) {
			t.Fatalf("%q: Parse takes it, Value says %v", text, err)
		}
	})
}

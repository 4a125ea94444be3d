package expect

import (
	"strings"
	"testing"
)

func TestParsePattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		match   []string
		nomatch []string
	}{
		{"plain text", []string{"plain text"}, []string{"plain", "plain text "}},
		{"task {{id}} started", []string{"task NXX66JRSHRRKGDIJDMZK35AY7U started"}, []string{"task  started", "task ab started"}},
		{"at {{timestamp}}", []string{"at 2026-12-03T16:20:09.735279495Z", "at 2026-12-03 10:00:00+01:00", "at Thu, 03 Dec 2026 10:00:00 GMT"}, []string{"at yesterday"}},
		{"{{uuid}}", []string{"550e8400-e29b-41d4-a716-446655440000"}, []string{"550e8400"}},
		{"took {{duration}}", []string{"took 250ms", "took 1.5s", "took 2m30s"}, []string{"took long"}},
		{"{{{{literal}}", []string{"{{literal}}"}, []string{"{literal}}"}},
		{"{{{uuid}}}", []string{"{550e8400-e29b-41d4-a716-446655440000}"}, []string{"550e8400-e29b-41d4-a716-446655440000"}},
		{"a {{any}} b", []string{"a  b", "a x\ny b"}, []string{"a b"}},
		{"n={{number}}", []string{"n=3", "n=-1.5e3"}, []string{"n=x"}},
		{"", []string{""}, []string{" "}},
	} {
		p, err := ParsePattern(tc.pattern)
		if err != nil {
			t.Fatalf("ParsePattern(%q): %v", tc.pattern, err)
		}
		for _, s := range tc.match {
			if !p.Match(s) {
				t.Errorf("%q does not match %q", tc.pattern, s)
			}
		}
		for _, s := range tc.nomatch {
			if p.Match(s) {
				t.Errorf("%q matches %q", tc.pattern, s)
			}
		}
	}
}

func TestParsePatternErrors(t *testing.T) {
	for _, s := range []string{"{{nope}}", "Hello {{name}}", "{{uuid", "{{", "a {{ uuid }}"} {
		_, err := ParsePattern(s)
		if err == nil || !strings.Contains(err.Error(), "write {{{{ for a literal {{") {
			t.Errorf("ParsePattern(%q) = %v, want an error that says how to write {{", s, err)
		}
	}
}

func TestGeneralize(t *testing.T) {
	for in, want := range map[string]string{
		"Rolling out auth 2.4.1 to production.":                        "Rolling out auth 2.4.1 to production.",
		"Task NXX66JRSHRRKGDIJDMZK35AY7U created":                      "Task {{id}} created",
		"id 550e8400-e29b-41d4-a716-446655440000.":                     "id {{uuid}}.",
		"at 2026-12-03T16:20:09.735279495Z, on 2026-12-04 at 10:00:01": "at {{timestamp}}, on {{date}} at {{time}}",
		"done in 1.25s (12ms per item)":                                "done in {{duration}} ({{duration}} per item)",
		"nonce 9f86d081884c7d659a2feaa0c55ad015":                       "nonce {{hex}}",
		"auth-service-production-2024 and the 1990s":                   "auth-service-production-2024 and the 1990s",
		"Hello {{name}}": "Hello {{{{name}}",
		"id {550e8400-e29b-41d4-a716-446655440000}": "id {{{uuid}}}",
		"{{{2026-12-03":                     "{{{{{{{date}}",
		"10 of 10 instances, version 2.5.0": "10 of 10 instances, version 2.5.0",
		"token aB3x_9kLmN0pQrStUvWxYz12":    "token {{id}}",
	} {
		got := Generalize(in)
		if got != want {
			t.Errorf("Generalize(%q) = %q, want %q", in, got, want)
			continue
		}
		p, err := ParsePattern(got)
		if err != nil || !p.Match(in) {
			t.Errorf("Generalize(%q) = %q, which does not match it back (%v)", in, got, err)
		}
	}
}

func TestMatch(t *testing.T) {
	want := MustDecode(`{"content":[{"type":"text","text":"Task {{id}} at {{timestamp}}"}],"count":"{{number}}","ok":true}`)
	same := MustDecode(`{"content":[{"type":"text","text":"Task ABCDEF0123456789XYZW at 2026-01-02T03:04:05Z"}],"count":3,"ok":true,"added":1}`)
	if d := Match(want, same); len(d) != 0 {
		t.Fatalf("Match = %v, want no difference (an added member is none)", d)
	}
	other := MustDecode(`{"content":[{"type":"text","text":"Task gone"},{"type":"text","text":"x"}],"ok":false}`)
	var got []string
	for _, d := range Match(want, other) {
		got = append(got, d.String())
	}
	wantDiffs := []string{
		`$.content: expected [{"type":"text","text":"Task {{id}} at {{timestamp}}"}], got [{"type":"text","text":"Task gone"},{"type":"text","text":"x"}]`,
		`$.count: missing (expected "{{number}}")`,
		`$.ok: expected true, got false`,
	}
	if strings.Join(got, "\n") != strings.Join(wantDiffs, "\n") {
		t.Errorf("Match:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDiffs, "\n"))
	}
	if !Matches(MustDecode(`1.0`), MustDecode(`1`)) || Matches(MustDecode(`1e999999999`), MustDecode(`1e999999998`)) {
		t.Error("numbers compare by value, within bounds")
	}
}

func TestProjectShowsOnlyDifferences(t *testing.T) {
	want := MustDecode(`{"a":"{{uuid}}","b":"x","c":[1,2]}`)
	got := MustDecode(`{"z":0,"c":[1,3],"b":"x","a":"550e8400-e29b-41d4-a716-446655440000"}`)
	if p := Compact(Project(want, got)); p != `{"a":"{{uuid}}","b":"x","c":[1,3]}` {
		t.Errorf("Project = %s", p)
	}
}

func TestUpdateKeepsWhatMatches(t *testing.T) {
	want := MustDecode(`{"id":"{{uuid}}","text":"old text","shape":"{{string}}","gone":1,"list":["{{string}}"]}`)
	got := MustDecode(`{"id":"550e8400-e29b-41d4-a716-446655440000","text":"new text at 2026-01-02","shape":42,"list":["a","b"],"new":true}`)
	up := Update(want, got)
	if c := Compact(up); c != `{"id":"{{uuid}}","text":"new text at {{date}}","shape":"{{number}}","list":["{{string}}","{{string}}"]}` {
		t.Errorf("Update = %s", c)
	}
	if !Matches(up, got) {
		t.Error("the updated value does not match what it was updated from")
	}
	if Update(up, got) != up {
		t.Error("Update of a matching value is not the value itself")
	}
}

func TestExpect(t *testing.T) {
	v := MustDecode(`{"_meta":{"x":1},"content":[{"type":"text","text":"Task NXX66JRSHRRKGDIJDMZK35AY7U"}],"structuredContent":{"taskId":"abc","n":3,"flag":true,"note":"hi"},"isError":false}`)
	exact := Compact(Expect(v, ExpectOptions{}))
	if exact != `{"content":[{"type":"text","text":"Task {{id}}"}],"structuredContent":{"taskId":"{{string}}","n":3,"flag":true,"note":"hi"},"isError":false}` {
		t.Errorf("exact: %s", exact)
	}
	shape := Compact(Expect(v, ExpectOptions{Mode: Shape, Ignore: []Path{{"structuredContent", "note"}}}))
	if shape != `{"content":[{"type":"text","text":"{{string}}"}],"structuredContent":{"taskId":"{{string}}","n":"{{number}}","flag":"{{boolean}}"},"isError":false}` {
		t.Errorf("shape: %s", shape)
	}
	if Compact(v) != `{"_meta":{"x":1},"content":[{"type":"text","text":"Task NXX66JRSHRRKGDIJDMZK35AY7U"}],"structuredContent":{"taskId":"abc","n":3,"flag":true,"note":"hi"},"isError":false}` {
		t.Error("Expect changed its input")
	}
}

func TestPaths(t *testing.T) {
	for in, want := range map[string]string{
		"$":                     "$",
		"$.a.b":                 "$.a.b",
		"content[0].text":       "$.content[0].text",
		"content.0.text":        "$.content[0].text",
		"content.*.annotations": "$.content.*.annotations",
		"content[*]":            "$.content.*",
		"structuredContent.x-y": "$.structuredContent.x-y",
	} {
		p, err := ParsePath(in, true)
		if err != nil || p.String() != want {
			t.Errorf("ParsePath(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"", "$x", "a..b", "a[x]"} {
		if _, err := ParsePath(bad, true); err == nil {
			t.Errorf("ParsePath(%q) took it", bad)
		}
	}
	if _, err := ParsePath("a.*", false); err == nil {
		t.Error("a wildcard where none is allowed was taken")
	}
	v := MustDecode(`{"content":[{"text":"a","annotations":1},{"text":"b","annotations":2}]}`)
	p, _ := ParsePath("content.*.annotations", true)
	if !Ignore(v, p) || Compact(v) != `{"content":[{"text":"a"},{"text":"b"}]}` {
		t.Errorf("Ignore: %s", Compact(v))
	}
	p, _ = ParsePath("content.1", true)
	if !Ignore(v, p) || Compact(v) != `{"content":[{"text":"a"},"{{any}}"]}` {
		t.Errorf("Ignore of an element: %s", Compact(v))
	}
}

func TestDecodeKeepsOrderAndRefusesRepeats(t *testing.T) {
	v, err := Decode([]byte(` {"b":1,"a":{"d":[true,null,"x"],"c":1.50}} `))
	if err != nil || Compact(v) != `{"b":1,"a":{"d":[true,null,"x"],"c":1.50}}` {
		t.Errorf("Decode = %s, %v", Compact(v), err)
	}
	for _, bad := range []string{`{"a":1,"a":2}`, `{} x`, ``, `[1,`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) took it", bad)
		}
	}
	if Indent(MustDecode(`{"a":[1]}`), "  ") != "{\n  \"a\": [\n    1\n  ]\n}" {
		t.Error("Indent")
	}
	if Compact("<&>") != `"<&>"` {
		t.Error("Compact escapes HTML characters")
	}
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"", "plain", "{{uuid}}", "{{{{", "a {{id}} b {{timestamp}}", "{{", "{{nope}}", "{{{uuid}}"} {
		f.Add(s, "x")
	}
	f.Add("", "{2026-12-03T10:00:00Z}")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		p, err := ParsePattern(pattern)
		if err != nil {
			return
		}
		p.Match(text)
		// A text written as a pattern by Escape or Generalize matches it.
		for _, w := range []string{Escape(text), Generalize(text)} {
			q, err := ParsePattern(w)
			if err != nil {
				t.Fatalf("ParsePattern(%q) (from %q): %v", w, text, err)
			}
			if !q.Match(text) {
				t.Fatalf("%q does not match %q", w, text)
			}
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,"{{uuid}}",{"b":null}]}`, `[]`, `"x"`, `{"a":1,"a":2}`, `1e5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		c := Compact(v)
		w, err := Decode([]byte(c))
		if err != nil || Compact(w) != c {
			t.Fatalf("Compact(Decode(%q)) = %q does not read back (%v)", data, c, err)
		}
		if !Matches(Expect(v, ExpectOptions{}), v) || !Matches(Expect(v, ExpectOptions{Mode: Shape}), v) {
			t.Fatalf("the expectation of %s does not match it", c)
		}
		if !Matches(Update(Expect(v, ExpectOptions{Mode: Shape}), v), v) {
			t.Fatalf("an update from %s does not match it", c)
		}
	})
}

func TestCompactShowsInvisibleCharacters(t *testing.T) {
	if got := Compact("a\u202eb\u200bc\x1b"); got != `"a\u202eb\u200bc\u001b"` {
		t.Errorf("Compact = %s", got)
	}
}

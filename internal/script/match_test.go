package script

import (
	"strings"
	"testing"
)

// A JSON check that fails shows where and a diff of what was expected and
// what came, written as expected where it matches.
func TestJSONFailureShowsDiff(t *testing.T) {
	src := "call_tool args name:Ann count:3\n" +
		"assert_json '{\"structuredContent\": {\"echo\": {\"count\": \"{{number}}\", \"name\": \"Bo\"}, \"len\": 3}}'\n"
	_, out := runText(t, "j.mcp", src, RunOptions{})
	want := `  ✗ assert_json '{"structuredContent": {"echo": {"count": "{{number}}", "name": "Bo"}, "len": 3}}' (line 2)
      the result differs from the expected value at $.structuredContent.echo.name
      expected: $.structuredContent.echo.name: "Bo"
      actual:   $.structuredContent.echo.name: "Ann"
      --- expected (line 2)
      +++ actual
      @@ -2,7 +2,7 @@
         "structuredContent": {
           "echo": {
             "count": "{{number}}",
      -      "name": "Bo"
      +      "name": "Ann"
           },
           "len": 3
         }
j.mcp: 1 passed, 1 failed
`
	if !strings.Contains(out, want) {
		t.Errorf("output lacks\n%s\n---- output:\n%s", want, out)
	}
}

// A text check of several lines shows a line diff.
func TestTextFailureShowsDiff(t *testing.T) {
	src := "assert_match \"one\\ntwo 2\\nTHREE\" \"one\\ntwo {{number}}\\nthree\"\n"
	_, out := runText(t, "m.mcp", src, RunOptions{})
	want := `      --- expected (line 1)
      +++ actual
      @@ -1,3 +1,3 @@
       one
       two {{number}}
      -three
      +THREE
`
	if !strings.Contains(out, want) {
		t.Errorf("output lacks\n%s\n---- output:\n%s", want, out)
	}
}

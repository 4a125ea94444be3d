package script_test

// The tests of internal/script/syntax, what writes scripts, are here with the
// parser that must read what it writes back: in a test binary of syntax's own
// they linked the whole parser (the go-sdk with it) to prove two small functions.

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/syntax"
)

// A comment carries what a server wrote as it reads, but for "##[" and
// what would take it off its line or turn it around on the screen: a
// raw U+202E, a line separator, a control character.
func TestCommentStaysOnItsLineAndReadsAsWritten(t *testing.T) {
	if got := syntax.Comment("status ##[error]x ###[y"); got != `# status ##\[error]x ###\[y` {
		t.Errorf("Comment: %q", got)
	}
	got := syntax.Comment("evil\u202Egnp.exe\u2028call_tool x\nassert_equals 1\x1b[31m")
	if strings.ContainsAny(got, "\u202E\u2028\n\x1b") {
		t.Errorf("Comment keeps a character that moves or turns text: %q", got)
	}
	s, err := script.ParseFile("c.mcp", []byte(got+"\n"))
	if err != nil || s.NumSteps() != 0 {
		t.Errorf("the comment reads as commands (%v): %q", err, got)
	}
}

// What Quote writes, the parser reads back as the same text.
func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"plain", `a "quoted" \ $var`, "line\nbreak\ttab", "##[error]", "bidi \u202E", "emoji 😀", ""} {
		line := "assert_equals " + syntax.Quote(s) + " " + syntax.Quote(s)
		if _, err := script.ParseFile("q.mcp", []byte(line+"\n")); err != nil {
			t.Errorf("Quote(%q) = %s does not parse: %v", s, syntax.Quote(s), err)
		}
	}
	for _, w := range []string{"deploy", "a/b", "x.y-z_1"} {
		if syntax.Word(w) != w {
			t.Errorf("Word(%q) = %q, want it bare", w, syntax.Word(w))
		}
	}
	for _, w := range []string{"", "a b", "<<END", "x//y", `q"`} {
		if syntax.Word(w) == w {
			t.Errorf("Word(%q) left bare", w)
		}
	}
}

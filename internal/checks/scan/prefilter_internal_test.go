package scan

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/askback/askback/internal/text/lazyre"
)

// maxExact bounds the strings exactStrings lists.
const maxExact = 256

// exactStrings lists, in lower case, every string re matches (case
// folded), or nil when they are many or without end.
func exactStrings(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == maxExact {
					return nil
				}
				out = append(out, strings.ToLower(string(r)))
			}
		}
		return out
	case syntax.OpCapture:
		return exactStrings(re.Sub[0])
	case syntax.OpQuest:
		if sub := exactStrings(re.Sub[0]); sub != nil {
			return append(sub, "")
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s := exactStrings(sub)
			if s == nil || len(out)+len(s) > maxExact {
				return nil
			}
			out = append(out, s...)
		}
		return out
	case syntax.OpConcat:
		return exactConcat(re.Sub)
	}
	return nil
}

// exactConcat lists what subs match one after the other, or nil.
func exactConcat(subs []*syntax.Regexp) []string {
	out := []string{""}
	for _, sub := range subs {
		s := exactStrings(sub)
		if s == nil || len(out)*len(s) > maxExact {
			return nil
		}
		var next []string
		for _, a := range out {
			for _, b := range s {
				next = append(next, a+b)
			}
		}
		out = next
	}
	return out
}

// holdsOne reports whether every match of re, case folded to lower case,
// holds one of words: what a literal test before re may ask.
func holdsOne(re *syntax.Regexp, words []string) bool {
	if s := exactStrings(re); s != nil {
		for _, m := range s {
			if !hasAny(m, words...) {
				return false
			}
		}
		return true
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return holdsOne(re.Sub[0], words)
	case syntax.OpRepeat:
		return re.Min >= 1 && holdsOne(re.Sub[0], words)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !holdsOne(sub, words) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		// A match holds a match of each part, and of each run of parts
		// whose matches can be listed.
		for i := range re.Sub {
			if holdsOne(re.Sub[i], words) {
				return true
			}
			for j := i + 2; j <= len(re.Sub); j++ {
				s := exactConcat(re.Sub[i:j])
				if s == nil {
					break
				}
				if holdsOne(&syntax.Regexp{Op: syntax.OpAlternate, Sub: literals(s)}, words) {
					return true
				}
			}
		}
	}
	return false
}

// literals are the strings ss as expressions that match them.
func literals(ss []string) []*syntax.Regexp {
	var out []*syntax.Regexp
	for _, s := range ss {
		out = append(out, &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune(s)})
	}
	return out
}

func parse(t *testing.T, expr string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// Every match of secretFile holds one of secretFileLiterals, of the
// other expressions with a literal test before them one of their words,
// and of a phrase one word of each of its further lists: the literal
// tests before them rule out only sentences that cannot match (but for
// the long s, which the tests let through).
func TestLiteralTestsHoldEveryMatch(t *testing.T) {
	if !holdsOne(parse(t, secretFile.String()), secretFileLiterals) {
		t.Errorf("a match of secretFile may hold none of %q", secretFileLiterals)
	}
	for _, c := range []struct {
		re    *lazyre.Regexp
		words []string
	}{
		{invisibleElement, invisibleWords}, {roleMarker, roleMarkerWords},
		{quotedTool, toolWords}, {toolQuoted, toolWords}, {identifierTool, toolWords}, {calledName, callWords}, {visitVerb, visitWords},
	} {
		if !holdsOne(parse(t, c.re.String()), c.words) {
			t.Errorf("a match of %s may hold none of %q", c.re, c.words)
		}
	}
	for _, phrases := range [][]phrase{overridePhrases(), concealPhrases(), precondition(), otherTools()} {
		for _, ph := range phrases {
			for _, l := range ph.also {
				if !holdsOne(parse(t, ph.re.String()), l) {
					t.Errorf("a match of %s may hold none of %q", ph.re, l)
				}
			}
		}
	}
}

// The test above tells a list a match needs from one it does not.
func TestHoldsOne(t *testing.T) {
	for _, c := range []struct {
		expr  string
		words []string
		want  bool
	}{
		{`(?i)\.ssh\b`, []string{".ssh"}, true},
		{`(?i)(?:~/)?(?:\.ssh|/etc/(?:passwd|shadow))`, []string{".ssh", "/etc/"}, true},
		{`(?i)(?:~/)?(?:\.ssh|/etc/(?:passwd|shadow))`, []string{".ssh", "/etc/passwd"}, false},
		{`(?i)(?:^|[\s(/])\.env(?:\.[a-z]+)?\b`, []string{".env"}, true},
		{`(?i)(?:^|[\s(/])\.env(?:\.[a-z]+)?\b`, []string{" .env"}, false},
		{`(?i)\bbefore\s+any\s+(?:tools?|actions?)\b`, []string{"tool", "action"}, true},
		{`(?i)\bbefore\s+any\s+(?:tools?|actions?)\b`, []string{"tool"}, false},
		{`(?i)a(?:b)?c`, []string{"abc"}, false},
		{`(?i)x[^.]{0,3}y`, []string{"y"}, true},
		{`(?i)x*y?`, []string{"x"}, false},
	} {
		if got := holdsOne(parse(t, c.expr), c.words); got != c.want {
			t.Errorf("holdsOne(%s, %q) = %v", c.expr, c.words, got)
		}
	}
}

// firstCapture is what the first group of re holds, or nil.
func firstCapture(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpCapture {
		return re.Sub[0]
	}
	for _, sub := range re.Sub {
		if c := firstCapture(sub); c != nil {
			return c
		}
	}
	return nil
}

// isClass reports whether re is the character class [lo-hi], case
// sensitive.
func isClass(re *syntax.Regexp, lo, hi rune) bool {
	return re.Op == syntax.OpCharClass && len(re.Rune) == 2 && re.Rune[0] == lo && re.Rune[1] == hi
}

// Every match of the expressions for a tool's name holds what
// namedAsTools asks of a sentence before it runs them: a quote, _ or -,
// or a lower-case ASCII letter followed by an upper-case one (hasCamel).
func TestNameTestsHoldEveryMatch(t *testing.T) {
	joiners := []string{"_", "-"}
	quoteMarks := strings.Split(quotes, "")
	if !holdsOne(parse(t, quotedTool.String()), quoteMarks) {
		t.Errorf("a match of quotedTool may hold no quote")
	}
	if !holdsOne(parse(t, toolQuoted.String()), append(quoteMarks, joiners...)) {
		t.Errorf("a match of toolQuoted may hold neither a quote nor _ or -")
	}
	for _, re := range []*lazyre.Regexp{calledName, identifierTool} {
		name := firstCapture(parse(t, re.String()))
		if name == nil || name.Op != syntax.OpAlternate || len(name.Sub) != 2 || !holdsOne(name.Sub[0], joiners) {
			t.Fatalf("%s: the name is not words joined by _ or -, or camelCase", re)
		}
		camel := name.Sub[1]
		if camel.Op != syntax.OpConcat || len(camel.Sub) < 2 || camel.Sub[0].Op != syntax.OpPlus ||
			!isClass(camel.Sub[0].Sub[0], 'a', 'z') || !isClass(camel.Sub[1], 'A', 'Z') {
			t.Errorf("%s: the second kind of name, %s, does not begin [a-z]+[A-Z]", re, camel)
		}
	}
}

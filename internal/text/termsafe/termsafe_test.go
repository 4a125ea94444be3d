package termsafe_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/askback/askback/internal/text/termsafe"
)

// attacks are what a hostile server puts into its text.
var attacks = map[string]string{
	"CSI clear screen":    "a\x1b[2J\x1b[Hb",
	"OSC 52 clipboard":    "x\x1b]52;c;cm0gLXJmIH4K\x07y",
	"OSC 8 hyperlink":     "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
	"C1 CSI":              "a\u009b31mred",
	"raw C1 byte":         "a\x9b31mred",
	"DEL":                 "a\x7fb",
	"RLO":                 "file\u202egpj.exe",
	"bidi isolates":       "\u2066a\u2067b\u2068c\u2069",
	"zero width":          "pay\u200bpal\ufeff",
	"tag characters":      "a\U000E0041b",
	"line separator":      "a\u2028b\u2029c",
	"bell and NUL":        "a\x07b\x00c",
	"backspace overwrite": "good\b\b\b\bevil",
	"lone CR":             "safe\rEVIL",
}

func TestLineAndBlockLeaveNothingRaw(t *testing.T) {
	for name, s := range attacks {
		for _, out := range []string{termsafe.Line(s), termsafe.Block(s)} {
			if raw := rawIn(out); raw != "" {
				t.Errorf("%s: %q keeps %s", name, out, raw)
			}
		}
		if !termsafe.Has(s) {
			t.Errorf("%s: Has(%q) = false", name, s)
		}
	}
}

// Unsafe agrees with the Unicode tables everywhere, fast paths included.
func TestUnsafeMatchesTheTables(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
			unicode.Is(unicode.Bidi_Control, r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
		if got := termsafe.Unsafe(r); got != want {
			t.Fatalf("Unsafe(%U) = %v, want %v", r, got, want)
		}
	}
}

func TestShownEscaped(t *testing.T) {
	for _, c := range []struct{ in, line, block string }{
		{"plain text – ünïcode ✓", "plain text – ünïcode ✓", "plain text – ünïcode ✓"},
		{"a\x1b[31mred\x07\r\nb\u202ec\tz\u009b", `a\x1b[31mred\x07 b\u202ec z\x9b`, "a\\x1b[31mred\\x07\nb\\u202ec\tz\\x9b"},
		{"one\ntwo\x1b", `one two\x1b`, "one\ntwo\\x1b"},
		{"safe\rEVIL", `safe\x0dEVIL`, `safe\x0dEVIL`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
		{"tag \U000E0041", `tag \U000e0041`, `tag \U000e0041`},
		{"a\x7fb", `a\x7fb`, `a\x7fb`},
	} {
		if got := termsafe.Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := termsafe.Block(c.in); got != c.block {
			t.Errorf("Block(%q) = %q, want %q", c.in, got, c.block)
		}
	}
}

func TestJSONKeepsTheValue(t *testing.T) {
	for name, s := range attacks {
		doc, err := json.Marshal(map[string]any{"text": s, "list": []string{s, "ok"}})
		if err != nil {
			t.Fatal(err)
		}
		safe := termsafe.JSON(doc)
		if raw := rawIn(string(safe)); raw != "" {
			t.Errorf("%s: %s keeps %s", name, safe, raw)
		}
		var before, after any
		if err := json.Unmarshal(doc, &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(safe, &after); err != nil {
			t.Fatalf("%s: %s is no longer JSON: %v", name, safe, err)
		}
		b1, _ := json.Marshal(before)
		b2, _ := json.Marshal(after)
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s: the value changed: %s became %s", name, b1, b2)
		}
	}
}

func TestWriterMatchesBlockWhereverWritesSplit(t *testing.T) {
	s := "é\r\nü\x1b[0m\u202e€\r"
	want := termsafe.Block(s)
	for k := 0; k <= len(s); k++ {
		var out bytes.Buffer
		w := termsafe.NewWriter(&out)
		w.Write([]byte(s[:k]))
		w.Write([]byte(s[k:]))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("split at %d: %q, want %q", k, out.String(), want)
		}
	}
}

func TestJSONWriterMatchesJSONWhereverWritesSplit(t *testing.T) {
	doc, _ := json.Marshal(map[string]string{"k": "é\u202e€\u009b\x7f"})
	want := string(termsafe.JSON(doc))
	for k := 0; k <= len(doc); k++ {
		var out bytes.Buffer
		w := termsafe.NewJSONWriter(&out)
		w.Write(doc[:k])
		w.Write(doc[k:])
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("split at %d: %q, want %q", k, out.String(), want)
		}
	}
}

func FuzzLineAndBlock(f *testing.F) {
	for _, s := range attacks {
		f.Add(s)
	}
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		line, block := termsafe.Line(s), termsafe.Block(s)
		if raw := rawIn(line); raw != "" || strings.ContainsAny(line, "\n\t") {
			t.Fatalf("Line(%q) = %q keeps %s", s, line, raw)
		}
		if raw := rawIn(block); raw != "" {
			t.Fatalf("Block(%q) = %q keeps %s", s, block, raw)
		}
		if !termsafe.Has(s) && block != s {
			t.Fatalf("Block changed plain %q to %q", s, block)
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range attacks {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, _ := json.Marshal([]any{s, map[string]string{s: s}})
		safe := termsafe.JSON(doc)
		if raw := rawIn(string(safe)); raw != "" {
			t.Fatalf("JSON(%s) = %s keeps %s", doc, safe, raw)
		}
		var a, b any
		if err := json.Unmarshal(safe, &b); err != nil {
			t.Fatalf("JSON(%s) = %s: %v", doc, safe, err)
		}
		_ = json.Unmarshal(doc, &a)
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		if !bytes.Equal(x, y) {
			t.Fatalf("JSON(%s) = %s changed the value", doc, safe)
		}
	})
}

func FuzzWriter(f *testing.F) {
	f.Add("é\r\nü\x1b[0m", 3)
	f.Fuzz(func(t *testing.T, s string, k int) {
		if k < 0 || k > len(s) {
			return
		}
		var out bytes.Buffer
		w := termsafe.NewWriter(&out)
		w.Write([]byte(s[:k]))
		w.Write([]byte(s[k:]))
		w.Flush()
		if strings.Contains(s, ":") || strings.Contains(s, "##") {
			return // what reads as a workflow command is defused (FuzzWriterCommands)
		}
		if out.String() != termsafe.Block(s) {
			t.Fatalf("%q split at %d: %q, want %q", s, k, out.String(), termsafe.Block(s))
		}
	})
}

// rawIn names the first thing in s that must not reach a terminal, or "".
func rawIn(s string) string {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return "a byte that is not UTF-8"
			}
		}
		if r != '\n' && r != '\t' && termsafe.Unsafe(r) {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"\x1b[2J", 10, `\x1b[2J`},
		{"abcdef", 3, "abc… (3 more bytes)"},
		{"ab\u00e9cd", 3, "ab… (4 more bytes)"}, // é is not cut in two
		{"\x1b\x1b\x1b", 2, `\x1b\x1b… (1 more bytes)`},
	} {
		if got := termsafe.Clip(c.in, c.max); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestServerName(t *testing.T) {
	for _, c := range []struct{ name, version, want string }{
		{"deployer", "1.2.0", "deployer 1.2.0"},
		{"deployer", "", "deployer"},
		{"", "", "(unnamed server)"},
		{"", "0.1", "(unnamed server) 0.1"},
		{"evil\x1b[2J", "1\u202e", `evil\x1b[2J 1\u202e`},
	} {
		if got := termsafe.ServerName(c.name, c.version); got != c.want {
			t.Errorf("termsafe.ServerName(%q, %q) = %q, want %q", c.name, c.version, got, c.want)
		}
	}
}

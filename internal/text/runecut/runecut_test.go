package runecut

import (
	"testing"
	"unicode/utf8"
)

func TestCutsWhereARuneStarts(t *testing.T) {
	for _, c := range []struct {
		s            string
		n            int
		prefix, suff string
	}{
		{"abc", 5, "abc", "abc"},
		{"abc", 3, "abc", "abc"},
		{"abcdef", 2, "ab", "ef"},
		{"aé", 2, "a", "é"},  // é is two bytes: the prefix stops before it
		{"éa", 2, "é", "a"},  // and the suffix starts after it
		{"日本語", 4, "日", "語"}, // three bytes each
		{"abc", 0, "", ""},
		{"abc", -1, "", ""},
	} {
		if got := Prefix(c.s, c.n); got != c.prefix {
			t.Errorf("Prefix(%q, %d) = %q, want %q", c.s, c.n, got, c.prefix)
		}
		if got := Suffix(c.s, c.n); got != c.suff {
			t.Errorf("Suffix(%q, %d) = %q, want %q", c.s, c.n, got, c.suff)
		}
	}
}

func FuzzPrefixSuffix(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) {
			return
		}
		p, x := Prefix(s, n), Suffix(s, n)
		if len(p) > max(n, 0) && p != s || !utf8.ValidString(p) || s[:len(p)] != p {
			t.Fatalf("Prefix(%q, %d) = %q", s, n, p)
		}
		if len(x) > max(n, 0) && x != s || !utf8.ValidString(x) || s[len(s)-len(x):] != x {
			t.Fatalf("Suffix(%q, %d) = %q", s, n, x)
		}
	})
}

// Clip keeps a text that fits, and cuts one that does not where a rune
// starts, saying how many bytes it left out.
func TestClipSaysWhatItLeftOut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 5, "short"},
		{"abcdef", 3, "abc… (3 more bytes)"},
		{"aé", 2, "a… (2 more bytes)"}, // é is two bytes: not cut in two
		{"x", 0, "… (1 more bytes)"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

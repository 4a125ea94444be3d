package textdiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	b := "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n"
	want := `--- a
+++ b
@@ -2,3 +2,3 @@
 two
-three
+THREE
 four
@@ -10 +10,2 @@
 ten
+eleven
`
	if got := Unified("a", "b", a, b, 1); got != want {
		t.Errorf("Unified:\n%s\nwant:\n%s", got, want)
	}
	if Unified("a", "b", a, a, 3) != "" {
		t.Error("equal texts have a diff")
	}
	if got := Unified("a", "b", "x", "x\n", 3); !strings.Contains(got, `\ No newline at end of file`) {
		t.Errorf("a missing last newline is not shown:\n%s", got)
	}
	if got := Unified("a", "b", "", "x\n", 3); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("from empty:\n%s", got)
	}
}

// apply rebuilds both texts from the ops of a diff.
func apply(x, y []string, ops []op) (string, string) {
	var a, b strings.Builder
	for _, o := range ops {
		switch o.kind {
		case ' ':
			a.WriteString(x[o.i])
			b.WriteString(y[o.j])
		case '-':
			a.WriteString(x[o.i])
		case '+':
			b.WriteString(y[o.j])
		}
	}
	return a.String(), b.String()
}

func TestDiffLinesRebuildsBothSides(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 500; n++ {
		var xa, ya []string
		for range r.IntN(30) {
			xa = append(xa, string(rune('a'+r.IntN(4)))+"\n")
		}
		for range r.IntN(30) {
			ya = append(ya, string(rune('a'+r.IntN(4)))+"\n")
		}
		ops := diffLines(xa, ya)
		a, b := apply(xa, ya, ops)
		if a != strings.Join(xa, "") || b != strings.Join(ya, "") {
			t.Fatalf("the ops of %q → %q rebuild %q → %q", xa, ya, a, b)
		}
		edits := 0
		for _, o := range ops {
			if o.kind != ' ' {
				edits++
			}
		}
		if want := len(xa) + len(ya) - 2*lcs(xa, ya); edits != want {
			t.Fatalf("%q → %q: %d edits, the shortest has %d", xa, ya, edits, want)
		}
	}
}

func lcs(x, y []string) int {
	dp := make([][]int, len(x)+1)
	for i := range dp {
		dp[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestLargeDifferenceIsBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		a.WriteString("a" + string(rune('0'+i%10)) + "\n")
		b.WriteString("b" + string(rune('0'+i%10)) + "\n")
	}
	got := Unified("a", "b", a.String(), b.String(), 3)
	removed, added := 0, 0
	for _, l := range strings.Split(got, "\n")[2:] {
		if strings.HasPrefix(l, "-") {
			removed++
		}
		if strings.HasPrefix(l, "+") {
			added++
		}
	}
	if removed != 5000 || added != 5000 {
		t.Errorf("a difference beyond the bound is not shown whole")
	}
}

func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := splitLines(a), splitLines(b)
		ga, gb := apply(x, y, diffLines(x, y))
		if ga != strings.Join(x, "") || gb != strings.Join(y, "") {
			t.Fatalf("diff of %q and %q does not rebuild them", a, b)
		}
		Unified("a", "b", a, b, 3)
	})
}

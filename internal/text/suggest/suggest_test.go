package suggest

import (
	"fmt"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	cases := []struct {
		word  string
		cands []string
		want  string
		ok    bool
	}{
		{"call_tol", []string{"call_tool", "get_prompt"}, "call_tool", true},
		{"deplyo", []string{"deploy", "rollout"}, "deploy", true},
		{"Deploy", []string{"deploy"}, "deploy", true},
		{"xyz", []string{"deploy", "rollout"}, "", false},
		{"x", nil, "", false},
		{"servce", []string{"service"}, "service", true},
	}
	for _, c := range cases {
		got, ok := Closest(c.word, c.cands)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("Closest(%q, %q) = %q, %v; want %q, %v", c.word, c.cands, got, ok, c.want, c.ok)
		}
	}
}

// A server's long tool names cost at most maxLen × maxLen each.
func TestClosestBounded(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	if _, ok := Closest(long, []string{long + "b"}); !ok {
		t.Error("two names that share their first 64 bytes are one typo apart at most")
	}
}

func ExampleClosest() {
	if name, ok := Closest("deplyo", []string{"deploy", "rollout"}); ok {
		fmt.Printf("did you mean %s?\n", name)
	}
	// Output: did you mean deploy?
}

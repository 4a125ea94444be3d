package mdtext

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	got := Text("# Title\n[click](https://evil.example) ![x](y) <img src=x> @team | a*b*_c_ `code` \x1b[2J\u202e")
	for _, bad := range []string{"\n", "](", "<img", "@team", " | ", "*b*", "`code`", "\x1b", "\u202e"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q survives in %q", bad, got)
		}
	}
	if !strings.HasPrefix(got, `\# Title<br>`) {
		t.Errorf("got %q", got)
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"tools.deploy": "`tools.deploy`",
		"a`b":          "``a`b``",
		"`x`":          "`` `x` ``",
		`tools["a|b"]`: "`tools[\"a\\|b\"]`",
		"x\ny\x1b":     "`x y\\x1b`",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

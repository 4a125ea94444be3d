package mdtext

import (
	"html"
	"regexp"
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

// What a renderer's autolinks read is the text between elements once the
// escapes and entities are decoded: there, no e-mail address (a mailto:
// link), no xmpp: or mailto: address and no mention may be whole.
func TestTextMakesNoAddressOrMention(t *testing.T) {
	linkable := regexp.MustCompile(`(?i)[a-z0-9._%+-]@|@[a-z0-9_-]|(mailto|xmpp):[^ ]*@`)
	unescape := regexp.MustCompile(`\\([[:punct:]])`)
	for _, in := range []string{
		"write to admin@example.com",
		"xmpp:ops@chat.example.org",
		"mailto:root@localhost",
		"cc @octocat and @org/team",
		"a.b+c@d-e.example",
		"@@x@@",
	} {
		got := Text(in)
		for _, run := range regexp.MustCompile(`<[^>]*>`).Split(got, -1) {
			text := html.UnescapeString(unescape.ReplaceAllString(run, "$1"))
			if linkable.MatchString(text) {
				t.Errorf("Text(%q) = %q: the text %q may become a link or a mention", in, got, text)
			}
		}
		if !strings.Contains(html.UnescapeString(unescape.ReplaceAllString(strings.ReplaceAll(got, "<wbr>", ""), "$1")), in) {
			t.Errorf("Text(%q) = %q does not read as it was", in, got)
		}
	}
}

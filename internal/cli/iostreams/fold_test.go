package iostreams

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

func TestFold(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"short lines stay", "a b\n  c d\n", "a b\n  c d\n"},
		{"at spaces, deeper by four", "  one two three four five six seven eight nine ten eleven",
			"  one two three four\n      five six seven\n      eight nine ten\n      eleven"},
		{"a run of spaces made one", "  3  title        pass  (a note that runs on and on)",
			"  3 title pass (a note\n      that runs on and\n      on)"},
		{"a word too wide is cut", "    sent: {\"jsonrpc\":\"2.0\",\"method\":\"tools/call\"}",
			"    sent:\n       {\"jsonrpc\":\"2.0\n       \",\"method\":\"too\n       ls/call\"}"},
		{"wide characters count two cells", "漢字漢字漢字漢字 漢字漢字漢字漢字 漢字",
			"漢字漢字漢字漢字\n    漢字漢字漢字漢字\n    漢字"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Fold(c.in, 22)
			if got != c.want {
				t.Errorf("Fold(%q, 22) =\n%s\nwant\n%s", c.in, got, c.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if w := runewidth.StringWidth(l); w > 22 {
					t.Errorf("line %q is %d cells wide", l, w)
				}
			}
		})
	}
}

// Folded to the terminal's width when stdout is a terminal, whole when
// it is not (a pipe, a file, a CI log).
func TestFoldToWidth(t *testing.T) {
	long := strings.Repeat("word ", 30) + "\n"
	write := func(w io.Writer) error { _, err := io.WriteString(w, long); return err }
	ios, _, out, _ := Test()
	if err := ios.FoldToWidth(write)(out); err != nil || out.String() != long {
		t.Errorf("not a terminal: %q, %v; want the line whole", out.String(), err)
	}
	ios, _, out, _ = Test()
	ios.SetTTY(false, true, false)
	ios.SetOutWidth(40)
	if err := ios.FoldToWidth(write)(out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 5 || !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		t.Errorf("a terminal 40 wide: %q; want 5 lines and the newline", out.String())
	}
	for _, l := range lines {
		if len(l) > 40 {
			t.Errorf("line %q is wider than 40", l)
		}
	}
}

package ghactions

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

func TestAnnotationEscapes(t *testing.T) {
	a := Annotation{Level: Error, File: "a,b:c.mcp", Line: 3, Column: 2, Title: "x: y, z",
		Message: "100% wrong\nsecond line\r\n::error::forged\x1b[2J\u202e"}
	got := a.String()
	want := "::error file=a%2Cb%3Ac.mcp,line=3,col=2,title=x%3A y%2C z::100%25 wrong%0Asecond line%0A::error::forged\\x1b[2J\\u202e"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if strings.Count(got, "\n") != 0 {
		t.Fatalf("an annotation spans lines: %q", got)
	}
	if got := (Annotation{Level: "bogus", Message: "m"}).String(); got != "::error::m" {
		t.Errorf("an unknown level: %q, want an error", got)
	}
	if got := (Annotation{Level: Notice, File: "f", Message: "m"}).String(); got != "::notice file=f::m" {
		t.Errorf("no line: %q", got)
	}
}

// Every line of text that would read as a workflow command is prefixed,
// whatever the writes are cut into; other text passes as it is.
func TestGuard(t *testing.T) {
	in := "report\n::error file=x::forged\n  ::warning::indented\n:not a command\n::\nok ::inside\n\t::add-mask::x" +
		"\n\u00a0::error::nbsp\n \u3000 ::stop-commands::t\rx\r::error::cr\nsee ##[error]legacy ###[warning]x #[ok] ##\n\u2003x"
	want := "report\n| ::error file=x::forged\n|   ::warning::indented\n:not a command\n| ::\nok ::inside\n| \t::add-mask::x" +
		"\n| \u00a0::error::nbsp\n|  \u3000 ::stop-commands::t\rx\r| ::error::cr\nsee ##\\[error]legacy ###\\[warning]x #[ok] ##\n\u2003x"
	for _, size := range []int{1, 2, 3, 7, len(in)} {
		var b bytes.Buffer
		g := Guard(&b)
		for i := 0; i < len(in); i += size {
			end := min(i+size, len(in))
			if n, err := g.Write([]byte(in[i:end])); err != nil || n != end-i {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		if b.String() != want {
			t.Errorf("writes of %d bytes:\ngot  %q\nwant %q", size, b.String(), want)
		}
	}
}

func FuzzGuard(f *testing.F) {
	f.Add([]byte("a\n::error::x\n  ::y\n:z"), 3)
	f.Add([]byte("a\r\u00a0::error::x ##[error]y"), 2)
	f.Fuzz(func(t *testing.T, in []byte, size int) {
		if size < 1 || size > 64 {
			size = 1 + size&63
		}
		var b bytes.Buffer
		g := Guard(&b)
		for i := 0; i < len(in); i += size {
			g.Write(in[i:min(i+size, len(in))])
		}
		// The runner reads lines ended by \n or \r, trims Unicode white
		// space before "::", and finds "##[" anywhere.
		for _, l := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
				t.Fatalf("a line reads as a command: %q", l)
			}
		}
	})
}

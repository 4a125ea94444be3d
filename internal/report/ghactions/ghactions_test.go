package ghactions

import (
	"strings"
	"testing"
)

func TestAnnotationEscapes(t *testing.T) {
	a := Annotation{Level: Error, File: "a,b:c.mcp", Line: 3, Column: 2, Title: "x: y, z",
		Message: "100% wrong\nsecond line\r\n::error::forged\x1b[2J\u202e ##[error]x ##vso[task.complete] ##teamcity[x]"}
	got := a.String()
	want := "::error file=a%2Cb%3Ac.mcp,line=3,col=2,title=x%3A y%2C z::100%25 wrong%0Asecond line%0A::error::forged\\x1b[2J\\u202e ##\\[error]x ##vso\\[task.complete] ##teamcity\\[x]"
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

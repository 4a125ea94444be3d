package sarif_test

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/report/sarif"
)

func TestPositions(t *testing.T) {
	// Every line break JSON allows between tokens: LF, CR LF, CR.
	data := []byte("ab\ncd\r\nef\rgh\n\"é🚀\xffx\"")
	at := func(s string) int { return strings.Index(string(data), s) }
	cases := []struct {
		offset int
		want   sarif.Position
	}{
		{at("x"), sarif.Position{5, 5}}, // é and the emoji one code point each, the byte not UTF-8 one
		{0, sarif.Position{1, 1}},
		{at("b"), sarif.Position{1, 2}},
		{at("\n"), sarif.Position{1, 3}},
		{at("c"), sarif.Position{2, 1}},
		{at("e"), sarif.Position{3, 1}}, // CR LF is one line break
		{at("g"), sarif.Position{4, 1}}, // so is CR alone
		{at("é"), sarif.Position{5, 2}},
		{at("🚀"), sarif.Position{5, 3}},
		{len(data), sarif.Position{5, 7}},
		{len(data) + 10, sarif.Position{5, 7}},
		{-1, sarif.Position{1, 1}},
	}
	var offsets []int
	for _, c := range cases {
		offsets = append(offsets, c.offset)
	}
	got := sarif.Positions(data, offsets)
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("offset %d: %+v, want %+v", c.offset, got[i], c.want)
		}
	}
}

package sarif

import (
	"slices"
	"unicode/utf8"
)

// ColumnKind is how the columns of a log's regions are counted: in
// Unicode code points (a character outside the Basic Multilingual Plane,
// an emoji, is one column, not SARIF's default two UTF-16 code units),
// as every run this package writes says.
const ColumnKind = "unicodeCodePoints"

// Region is a place in a text file: its start and, when known, its end,
// lines and columns from 1 (columns as ColumnKind counts them; the end
// column is the one after the region's last character). The zero Region
// is the whole file.
type Region struct {
	Line, Column       int
	EndLine, EndColumn int
}

// In is loc at region r of its file.
func (loc Location) In(r Region) Location {
	loc.Line, loc.Column, loc.EndLine, loc.EndColumn = r.Line, r.Column, r.EndLine, r.EndColumn
	return loc
}

// Position is a line and a column of a text, from 1.
type Position struct {
	Line, Column int
}

// Positions returns the line and column of each byte offset into data, in
// one pass over it, however many: lines end at a line feed, a carriage
// return and line feed, or a carriage return alone; columns count Unicode
// code points (ColumnKind), each byte that is not UTF-8 one. An offset
// past the end is the end.
func Positions(data []byte, offsets []int) []Position {
	order := make([]int, len(offsets))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return offsets[a] - offsets[b] })
	out := make([]Position, len(offsets))
	at, pos := 0, Position{Line: 1, Column: 1}
	for _, i := range order {
		target := min(max(offsets[i], 0), len(data))
		for at < target {
			c := data[at]
			switch {
			case c == '\n' || (c == '\r' && (at+1 == len(data) || data[at+1] != '\n')):
				pos.Line, pos.Column = pos.Line+1, 1
				at++
				continue
			case c < utf8.RuneSelf:
				at++
			default:
				_, size := utf8.DecodeRune(data[at:])
				at += size
			}
			pos.Column++
		}
		out[i] = pos
	}
	return out
}

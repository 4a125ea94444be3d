package iostreams

import (
	"bytes"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"
)

// OutWidth is the width of stdout's terminal in cells, and 0 when stdout
// is no terminal (a pipe, a file, a CI log): what SetOutWidth said, else
// the real terminal's, else 80.
func (s *IOStreams) OutWidth() int {
	if !s.outTTY {
		return 0
	}
	if s.outWidth > 0 {
		return s.outWidth
	}
	out := s.rawOut
	if out == nil {
		out = s.Out
	}
	if f, ok := out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultWidth
}

// SetOutWidth fakes the width of stdout's terminal, for tests (stdout is
// a terminal only as SetTTY says).
func (s *IOStreams) SetOutWidth(cells int) { s.outWidth = cells }

// FoldToWidth returns write with the lines it writes folded to the width
// of stdout's terminal when stdout is one (see Fold); when it is not, write
// itself: a pipe, a file or a CI log keeps each line whole, for grep.
func (s *IOStreams) FoldToWidth(write func(io.Writer) error) func(io.Writer) error {
	width := s.OutWidth()
	if width == 0 {
		return write
	}
	return func(w io.Writer) error {
		var buf bytes.Buffer
		err := write(&buf)
		if _, werr := io.WriteString(w, Fold(buf.String(), width)); err == nil {
			err = werr
		}
		return err
	}
}

// Fold breaks each line of text wider than width cells at its spaces into
// lines that fit, each continued line indented four cells deeper than the
// line it continues (so that a report's structure still shows), a run of
// spaces in a folded line (a column's padding) made one; a word
// wider than what is left is cut where it must be. Widths are the cells a
// terminal shows (wide and combining characters counted as such).
func Fold(text string, width int) string {
	if width < 20 {
		width = 20 // narrower than that, nothing reads: fold as if 20
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		foldLine(&b, line, width)
	}
	return b.String()
}

// foldLine writes one line of Fold.
func foldLine(b *strings.Builder, line string, width int) {
	if runewidth.StringWidth(line) <= width {
		b.WriteString(line)
		return
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := min(indent+4, width/3)
	words := strings.Split(line[indent:], " ")
	b.WriteString(line[:indent])
	col, spaces := indent, 0 // the column, and the spaces before the next word
	start := true            // nothing written on this line after its indentation
	for i, word := range words {
		if i > 0 {
			spaces = 1 // a run of spaces (a table's padding) is one once folded
		}
		if word == "" {
			continue
		}
		ww := runewidth.StringWidth(word)
		if !start && col+spaces+ww > width {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", hang))
			col = hang
		} else if !start {
			b.WriteString(strings.Repeat(" ", spaces))
			col += spaces
		}
		spaces = 0
		for col+ww > width {
			// A word wider than what is left of the line: cut it.
			head := runewidth.Truncate(word, width-col, "")
			if head == "" {
				_, n := utf8.DecodeRuneInString(word)
				head = word[:n]
			}
			b.WriteString(head)
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", hang))
			col = hang
			word = word[len(head):]
			ww = runewidth.StringWidth(word)
		}
		b.WriteString(word)
		col += ww
		start = false
	}
}

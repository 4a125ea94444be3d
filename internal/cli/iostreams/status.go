package iostreams

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/askback/askback/internal/text/termsafe"
	"github.com/mattn/go-runewidth"
	"golang.org/x/term"
)

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// defaultWidth is the width of a terminal whose size cannot be read.
const defaultWidth = 80

// StatusLine is one line of progress on a terminal's stderr, redrawn in
// place as the work goes on (a bench run, an audit of many tools, many
// scripts) and erased when it ends. It exists only when stderr is a
// terminal: StartStatus returns nil otherwise, and every method of a nil
// StatusLine does nothing, so a command's progress shows on a terminal and
// never in a file or a pipe, and never on stdout.
//
// While it is shown, ErrOut (and Out, when stdout is the terminal too)
// erases it before a write and draws it again after a line it ends, so the
// command's own output (the report on stdout, warnings on stderr) is never
// mixed with it.
type StatusLine struct {
	mu     sync.Mutex
	w      io.Writer    // the terminal's stderr, as it was before Neutralize
	width  func() int   // the terminal's width in cells
	text   string       // the line to show
	shown  bool         // the line is on the screen
	midway bool         // the cursor is not at the start of a line: a write left it there
	done   bool         // Done was called
	paused bool         // Pause was called: a person is being asked
	outs   []*io.Writer // the streams wrapped, restored by Done
	saved  []io.Writer
}

// StartStatus returns a status line on stderr when stderr is a terminal,
// and makes Out and ErrOut make way for it until Done; nil otherwise.
// Call it once the streams are set up (after Neutralize).
func (s *IOStreams) StartStatus() *StatusLine {
	if !s.errTTY {
		return nil
	}
	l := &StatusLine{w: s.TerminalErr(), width: s.terminalWidth}
	streams := []*io.Writer{&s.ErrOut}
	if s.outTTY {
		// Stdout on the terminal too: its lines go where the status is.
		streams = append(streams, &s.Out)
	}
	for _, p := range streams {
		if *p == nil {
			continue
		}
		l.outs = append(l.outs, p)
		l.saved = append(l.saved, *p)
		*p = &statusAware{l: l, w: *p}
	}
	return l
}

// terminalWidth is the width of stderr's terminal: what SetTerminalWidth
// said, else the real terminal's, else 80.
func (s *IOStreams) terminalWidth() int {
	if s.errWidth > 0 {
		return s.errWidth
	}
	if f, ok := s.rawErrOrErr().(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return defaultWidth
}

func (s *IOStreams) rawErrOrErr() io.Writer {
	if s.rawErr != nil {
		return s.rawErr
	}
	return s.ErrOut
}

// SetTerminalWidth fakes the width of stderr's terminal, for tests.
func (s *IOStreams) SetTerminalWidth(cells int) { s.errWidth = cells }

// Set shows text as the status line, in place of what it showed. Text a
// server sent is neutralised here (see internal/text/termsafe) and the line is
// cut to the terminal's width, so that it stays one line and can be
// redrawn.
func (l *StatusLine) Set(text string) {
	l.whileShown(func() {
		l.text = fit(termsafe.Line(text), l.width())
		l.draw()
	})
}

// Done erases the status line and gives Out and ErrOut back as they were.
func (l *StatusLine) Done() {
	l.whileShown(func() {
		l.done = true
		l.erase()
		for i, p := range l.outs {
			*p = l.saved[i]
		}
	})
}

// whileShown runs f holding the line's lock, unless there is no line or
// it is done.
func (l *StatusLine) whileShown(f func()) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		f()
	}
}

// Pause erases the status line and keeps it off the screen until Resume:
// while a person answers a form drawn on the terminal.
func (l *StatusLine) Pause() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.erase()
	l.paused = true
}

// Resume shows the status line again after Pause. The cursor is taken to
// be at the start of a line: what the person typed ended with Enter.
func (l *StatusLine) Resume() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused, l.midway = false, false
	if !l.done {
		l.draw()
	}
}

// draw shows the line, when the cursor is at the start of a line (a write
// that ended midway, a prompt, is not erased) and no person is asked.
func (l *StatusLine) draw() {
	if l.midway || l.paused || l.text == "" {
		return
	}
	_, _ = io.WriteString(l.w, clearLine+l.text)
	l.shown = true
}

func (l *StatusLine) erase() {
	if l.shown {
		_, _ = io.WriteString(l.w, clearLine)
		l.shown = false
	}
}

// fit cuts text to one line of a terminal width cells wide, the last cell
// left free so that the cursor does not wrap.
func fit(text string, width int) string {
	if width < 2 {
		return ""
	}
	return runewidth.Truncate(text, width-1, "…")
}

// statusAware is Out or ErrOut while a status line is shown: it erases
// the line before a write and draws it again after one that ends a line.
type statusAware struct {
	l *StatusLine
	w io.Writer
}

func (a *statusAware) Write(p []byte) (int, error) {
	l := a.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.erase()
	n, err := a.w.Write(p)
	if len(p) > 0 {
		l.midway = !bytes.HasSuffix(p, []byte("\n"))
	}
	if !l.done {
		l.draw()
	}
	return n, err
}

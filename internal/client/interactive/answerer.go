package interactive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxAttempts bounds how often a form is shown again because its answer
// still has problems.
const maxAttempts = 20

// Options configure an [Answerer].
type Options struct {
	// In is what the person types. Required.
	In io.Reader
	// Out is where questions and forms are drawn: the terminal. Required.
	Out io.Writer
	// Accessible asks every field as a plain line prompt, for screen
	// readers and for input that is not a terminal.
	Accessible bool
	// NoColor draws without colors (NO_COLOR).
	NoColor bool
	// Opener opens a link once the person agreed. Nil: links are shown
	// but not opened, and accepting means the person opens it themselves.
	Opener Opener
	// Hide, if set, hides the user's credentials in what a server sent
	// before it is shown (and in a form's pre-filled defaults): a server
	// that echoes a token in a question does not get it on the screen.
	Hide func(string) string
	// Note, if set, is told once, in one line, that the input ended and
	// that no more questions are shown (for the command's stderr). Nil
	// writes the line to Out.
	Note func(string)
	// Interrupt, if set, is what Ctrl-C typed at a full-screen form does:
	// it interrupts the command, as the signal does at a line prompt (a
	// full-screen form reads the terminal's keys raw, so that Ctrl-C comes
	// to it as a key, not as a signal). Nil: Ctrl-C cancels the question,
	// as Esc does.
	Interrupt func()
	// Server is where the server that asks runs, which a link to this
	// machine or a private network is warned about by; the zero Server
	// is one whose place is not known (elsewhere).
	Server urlcheck.Server
}

// Answerer asks a person at the terminal. It implements answer.Answerer.
// Questions are asked one at a time.
type Answerer struct {
	opts Options
	mu   sync.Mutex
	in   io.Reader
	tty  *terminalInput // the terminal shared by the forms, when In is one
	// shown is opts.Out as the questions write to it: it drops what a
	// prompt writes once the input has ended.
	shown *untilEnd
	ended sync.Once // the note that the input ended, said once
}

// New returns an Answerer that asks through opts.In and opts.Out.
func New(opts Options) *Answerer {
	a := &Answerer{opts: opts, in: opts.In}
	a.shown = &untilEnd{w: opts.Out, ended: a.atEOF}
	if opts.Accessible && opts.In != nil {
		// The accessible prompts read a line at a time, each with a fresh
		// scanner; never let one scanner swallow the next answers.
		a.in = &lineReader{r: bufio.NewReader(opts.In)}
	} else {
		a.tty = newTerminalInput(opts.In)
	}
	return a
}

// turn waits for the person's attention, one request at a time, and
// returns what gives it back; answer.ErrNoAnswer when there is no request
// (asked is false), nobody to ask (no input or output) or no input left
// (nothing is shown then), the context's error when it ended while
// waiting.
func (a *Answerer) turn(ctx context.Context, asked bool) (unlock func(), err error) {
	if a == nil || a.in == nil || a.opts.Out == nil || !asked {
		return nil, answer.ErrNoAnswer
	}
	a.mu.Lock()
	if err := ctx.Err(); err != nil {
		a.mu.Unlock()
		return nil, err
	}
	if a.atEOF() {
		a.mu.Unlock()
		a.inputEnded()
		return nil, answer.ErrNoAnswer
	}
	return a.mu.Unlock, nil
}

// inputEnded says, once, that the input ended (or could not be read: the
// note then names the error): the prompt it cut short
// gets its line ended, and the note tells that no question is shown any
// more and that each is declined (the session declines a question nobody
// answers).
func (a *Answerer) inputEnded() {
	a.ended.Do(func() {
		note := "the input ended: no more questions are shown; this one and any after it are declined"
		if err := a.readFailed(); err != nil {
			// The answer could not be read: no answer, as at the end of
			// the input, and the person is told why.
			note = "reading the answer failed: " + termsafe.Line(err.Error()) + "; no more questions are shown; this one and any after it are declined"
		}
		if a.shown.midLine() {
			fmt.Fprintln(a.opts.Out)
		}
		if a.opts.Note != nil {
			a.opts.Note(note)
			return
		}
		fmt.Fprintln(a.opts.Out, note)
	})
}

// interrupted ends the line of the prompt an interrupt cut short, so that
// what the command says next starts a line of its own.
func (a *Answerer) interrupted() {
	a.shown.endLine()
}

// Answer shows q to the person and returns what they chose. It returns
// answer.ErrNoAnswer when it cannot ask (no input or output, or a form
// whose schema could not be read).
func (a *Answerer) Answer(ctx context.Context, q *answer.Question) (*mcp.ElicitResult, error) {
	unlock, err := a.turn(ctx, q != nil && q.Params != nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	switch q.Mode() {
	case "url":
		return a.askURL(ctx, q)
	case "form":
		if q.Form == nil {
			return nil, answer.ErrNoAnswer
		}
		return a.askForm(ctx, q)
	}
	return nil, answer.ErrNoAnswer
}

// asker returns the name of the asking server for headings.
func asker(q *answer.Question) string {
	if q.Server != "" {
		return termsafe.Line(q.Server)
	}
	return "The server"
}

// lineReader hands out its input one line per Read, so that readers that
// buffer (the accessible prompts each make a bufio.Scanner) never take
// more than the line they asked for. It remembers reaching the end, and a
// prompt that reads on once it has been told stops there: Read panics
// with errInputEnded, which the form's runner recovers (a prompt that asks
// again after a wrong answer would otherwise ask for ever).
//
// A read that fails (anything but the end of the input: a directory, a
// connection reset) ends the input too, and the line it cut short is
// dropped: what could not be read is no answer. The forms library's line
// prompts take a failed read for an empty line (the default, and Submit),
// which would send an answer nobody gave.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	eof atomic.Bool // read by what writes the prompts, which an abandoned prompt may do
	// failed is the read error that ended the input, when it was not its
	// end; set before eof.
	failed atomic.Pointer[error]
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		if l.eof.Load() {
			panic(errInputEnded)
		}
		line, err := l.r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			l.failed.Store(&err)
			l.eof.Store(true)
			return 0, err
		}
		if len(line) == 0 && err != nil {
			l.eof.Store(true)
			return 0, err
		}
		l.buf = line
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// errInputEnded stops a line prompt that reads on after the input ended.
var errInputEnded = errors.New("the input ended")

// atEOF reports whether the input has ended, or failed.
func (a *Answerer) atEOF() bool {
	lr, ok := a.in.(*lineReader)
	return ok && lr.eof.Load()
}

// readFailed returns the read error that ended the input, or nil when it
// has not ended or ended as input does.
func (a *Answerer) readFailed() error {
	if lr, ok := a.in.(*lineReader); ok {
		if err := lr.failed.Load(); err != nil {
			return *err
		}
	}
	return nil
}

// untilEnd writes to w until the input has ended, and drops what is
// written after: a line prompt that met the end of the input goes on to
// its next field's prompt, or asks again, before it reads (and is
// stopped); the person, whose input has ended, would see questions that
// are never asked.
type untilEnd struct {
	w     io.Writer
	ended func() bool
	mu    sync.Mutex
	open  bool // the last byte written was not a newline
}

func (u *untilEnd) Write(p []byte) (int, error) {
	if u.ended() {
		return len(p), nil
	}
	n, err := u.w.Write(p)
	if n > 0 {
		u.mu.Lock()
		u.open = p[n-1] != '\n'
		u.mu.Unlock()
	}
	return n, err
}

// endLine ends the line written last, if it is open, even once the input
// has ended (as it may have with an interrupt).
func (u *untilEnd) endLine() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.open {
		u.open = false
		_, _ = io.WriteString(u.w, "\n")
	}
}

// midLine reports whether what was written last ended within a line (a
// prompt waiting for its answer).
func (u *untilEnd) midLine() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.open
}

func result(action string, content map[string]any) *mcp.ElicitResult {
	r := &mcp.ElicitResult{Action: action}
	if action == "accept" {
		r.Content = content
	}
	return r
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// Package iostreams carries the standard streams a command reads and
// writes, so that every command can be run in tests with buffers and a
// faked terminal.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/termsafe"
	"golang.org/x/term"
)

// IOStreams are a command's input, output and error output.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
	// errWidth fakes the width of stderr's terminal (SetTerminalWidth).
	errWidth int
	// outWidth fakes the width of stdout's terminal (SetOutWidth).
	outWidth int

	// rawOut and rawErr are Out and ErrOut before Neutralize wrapped them;
	// guards are the wrappers, flushed at the end.
	rawOut, rawErr io.Writer
	guards         []*termsafe.Writer
	jsonOut        bool
	wrote          *countingWriter
	// hide holds the secrets HideSecrets was given, shared by the
	// hiding writers in front of the guards.
	hide *hider
	// interrupt ends the command as the interrupt signal does
	// (SetInterrupt).
	interrupt func()
}

// SetInterrupt sets what interrupts the command as the interrupt signal
// (Ctrl-C) does: the command's Main ends the command's context with it.
func (s *IOStreams) SetInterrupt(interrupt func()) { s.interrupt = interrupt }

// Interrupter returns what interrupts the command as Ctrl-C does, for a
// Ctrl-C typed where the terminal's keys are read raw (a full-screen form,
// where the terminal sends it as a key, not as a signal); nil when none
// was set.
func (s *IOStreams) Interrupter() func() { return s.interrupt }

// hider replaces secrets in what is written through it, in every
// spelling a server can echo them in (see credential.Hider).
type hider struct {
	mu      sync.Mutex
	secrets []string
	h       *credential.Hider
}

func (h *hider) set(secrets []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.secrets = append([]string(nil), secrets...)
	h.h = credential.NewHider(h.secrets)
}

func (h *hider) add(secrets []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.secrets = append(h.secrets, secrets...)
	h.h = credential.NewHider(h.secrets)
}

func (h *hider) get() *credential.Hider {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h
}

// hidingWriter writes through a hider to w.
type hidingWriter struct {
	h *hider
	w io.Writer
}

func (hw hidingWriter) Write(p []byte) (int, error) {
	h := hw.h.get()
	if h.Empty() {
		return hw.w.Write(p)
	}
	if _, err := io.WriteString(hw.w, h.Hide(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// HideSecrets makes what is written to Out and ErrOut (once Neutralize
// wrapped them) show each of secrets as [redacted]: the credentials of the
// command line, which error messages of libraries quote (a URL with its
// query) wherever they come from. A later call replaces the list.
func (s *IOStreams) HideSecrets(secrets []string) {
	if s.hide != nil {
		s.hide.set(secrets)
	}
}

// AddSecrets hides secrets too, from now on: the tokens a login brings
// (from the login store, or new) once they are known.
func (s *IOStreams) AddSecrets(secrets ...string) {
	if s.hide != nil {
		s.hide.add(secrets)
	}
}

// Hiding returns w with the secrets (HideSecrets, AddSecrets) hidden in
// what is written to it, as on Out and ErrOut: for the files a command
// writes (a trace, a recorded script, a JUnit report).
func (s *IOStreams) Hiding(w io.Writer) io.Writer {
	if s.hide == nil {
		s.hide = &hider{}
	}
	return hidingWriter{s.hide, w}
}

// Hide returns text with the secrets hidden, as Out and ErrOut would show
// it.
func (s *IOStreams) Hide(text string) string {
	if s.hide == nil {
		return text
	}
	return s.hide.get().Hide(text)
}

// countingWriter tells whether anything was written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Neutralize wraps Out and ErrOut so that nothing a server sent can drive
// the terminal, whatever path it takes: every control character but
// newline and tab, DEL, C1 controls, bidirectional overrides and isolates
// and invisible format characters are written escaped (see
// internal/text/termsafe). ErrOut carries text; Out carries text, or JSON when
// jsonOut is set (escaped as \u escapes, so it stays the same JSON). Code
// that draws its own terminal interface (forms, a live status line) writes
// to TerminalOut and TerminalErr instead, and cleans what it shows itself.
// A second call changes nothing.
func (s *IOStreams) Neutralize(jsonOut bool) {
	if s.rawOut != nil || s.rawErr != nil {
		return
	}
	s.rawOut, s.rawErr = s.Out, s.ErrOut
	s.jsonOut = jsonOut
	if s.hide == nil {
		s.hide = &hider{}
	}
	if s.Out != nil {
		s.wrote = &countingWriter{w: s.Out}
		g := termsafe.NewWriter(s.wrote)
		if jsonOut {
			g = termsafe.NewJSONWriter(s.wrote)
		}
		s.Out = hidingWriter{s.hide, g}
		s.guards = append(s.guards, g)
	}
	if s.ErrOut != nil {
		g := termsafe.NewWriter(s.ErrOut)
		s.ErrOut = hidingWriter{s.hide, g}
		s.guards = append(s.guards, g)
	}
}

// JSONOut reports whether Neutralize was told that stdout carries JSON.
func (s *IOStreams) JSONOut() bool { return s.jsonOut }

// WroteOut reports whether anything was written to Out since Neutralize.
func (s *IOStreams) WroteOut() bool { return s.wrote != nil && s.wrote.n > 0 }

// Flush writes out what the neutralising wrappers held back (the start of
// a character whose rest never came).
func (s *IOStreams) Flush() {
	for _, g := range s.guards {
		_ = g.Flush()
	}
}

// WorkflowCommands is where a command writes its own CI workflow commands
// (the annotations of --format github): stdout past the guard that
// defuses the ones in server text, with the secrets hidden. What went to
// Out before is written out first, so the order holds. Each command must
// be one line, its values escaped (internal/report/ghactions).
func (s *IOStreams) WorkflowCommands() io.Writer {
	if s.rawOut == nil {
		return s.Out
	}
	var out io.Writer = s.rawOut
	if s.wrote != nil {
		out = s.wrote
	}
	return flushFirst{s, hidingWriter{s.hide, out}}
}

// flushFirst writes to w once the guards wrote what they held.
type flushFirst struct {
	s *IOStreams
	w io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	f.s.Flush()
	return f.w.Write(p)
}

// TerminalOut is Out as it was before Neutralize: for code that draws on
// the terminal with escape sequences of its own.
func (s *IOStreams) TerminalOut() io.Writer {
	if s.rawOut != nil {
		return s.rawOut
	}
	return s.Out
}

// TerminalErr is ErrOut as it was before Neutralize: for code that draws
// on the terminal with escape sequences of its own.
func (s *IOStreams) TerminalErr() io.Writer {
	if s.rawErr != nil {
		return s.rawErr
	}
	return s.ErrOut
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		inTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		outTTY: term.IsTerminal(int(os.Stdout.Fd())),
		errTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Test returns streams backed by buffers: input, output, error output.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// SetTTY fakes whether the streams are terminals.
func (s *IOStreams) SetTTY(in, out, errOut bool) { s.inTTY, s.outTTY, s.errTTY = in, out, errOut }

// IsInteractive reports whether a person can answer: input and output are
// terminals.
func (s *IOStreams) IsInteractive() bool { return s.inTTY && s.outTTY }

// IsStderrTTY reports whether error output is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

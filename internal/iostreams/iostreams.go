// Package iostreams carries the standard streams a command reads and
// writes, so that every command can be run in tests with buffers and a
// faked terminal.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are a command's input, output and error output.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
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

// IsStdoutTTY reports whether output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

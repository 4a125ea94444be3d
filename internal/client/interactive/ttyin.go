package interactive

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// terminalInput shares the person's terminal among the forms of a session.
//
// Each form runs its own terminal program, and a program that ends can
// leave a read of the terminal behind that takes the next key typed (the
// first key of the next question would be lost). So the terminal is read by
// one goroutine only, started with the first form, and each form reads from
// a [formInput] that stops reading when the form ends.
type terminalInput struct {
	f    *os.File
	once sync.Once
	ch   chan []byte // what the reader goroutine read, in order; closed at the end of input

	mu   sync.Mutex
	rest []byte // bytes read but not yet handed to a form
}

// newTerminalInput returns the shared input for r when r is a terminal, and
// nil otherwise.
func newTerminalInput(r io.Reader) *terminalInput {
	f, ok := r.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &terminalInput{f: f, ch: make(chan []byte, 16)}
}

func (t *terminalInput) start() {
	t.once.Do(func() {
		go func() {
			defer close(t.ch)
			buf := make([]byte, 1024)
			for {
				n, err := t.f.Read(buf)
				if n > 0 {
					t.ch <- append([]byte(nil), buf[:n]...)
				}
				if err != nil {
					return
				}
			}
		}()
	})
}

// open gives the terminal to one form. The returned function takes it back.
func (t *terminalInput) open() (*formInput, func()) {
	t.start()
	in := &formInput{t: t, done: make(chan struct{})}
	return in, func() { close(in.done) }
}

// formInput is one form's view of the terminal. After the form ends, reads
// return io.EOF without taking anything.
//
// It has the terminal's file descriptor (Fd), so the form's program puts the
// terminal into raw mode and back itself, but no Name: that keeps the
// program from reading the descriptor directly (which is what leaves a read
// behind) and makes it read through Read.
type formInput struct {
	t    *terminalInput
	done chan struct{}
}

// Fd is the terminal's file descriptor.
func (r *formInput) Fd() uintptr { return r.t.f.Fd() }

// Write discards p: nothing is written to input.
func (r *formInput) Write(p []byte) (int, error) { return len(p), nil }

// Close does nothing: the terminal stays open for the next form.
func (r *formInput) Close() error { return nil }

func (r *formInput) Read(p []byte) (int, error) {
	t := r.t
	select {
	case <-r.done:
		return 0, io.EOF
	default:
	}
	t.mu.Lock()
	if len(t.rest) > 0 {
		n := copy(p, t.rest)
		t.rest = t.rest[n:]
		t.mu.Unlock()
		return n, nil
	}
	t.mu.Unlock()
	select {
	case <-r.done:
		return 0, io.EOF
	case b, ok := <-t.ch:
		if !ok {
			return 0, io.EOF
		}
		n := copy(p, b)
		if n < len(b) {
			t.mu.Lock()
			t.rest = append(t.rest, b[n:]...)
			t.mu.Unlock()
		}
		return n, nil
	}
}

// Input returns the person's input for readers other than the questions (a
// script's input_var): it reads where the questions read, so that neither
// takes what was typed for the other. On a terminal each Read takes what
// was typed, as a form does; with line prompts, one line. Nil without
// input.
func (a *Answerer) Input() io.Reader {
	switch {
	case a == nil || a.opts.In == nil:
		return nil
	case a.tty != nil:
		return sharedTerminal{a.tty}
	}
	return a.in
}

// sharedTerminal reads the terminal through the reader the forms share.
type sharedTerminal struct{ t *terminalInput }

func (r sharedTerminal) Read(p []byte) (int, error) {
	in, done := r.t.open()
	defer done()
	return in.Read(p)
}

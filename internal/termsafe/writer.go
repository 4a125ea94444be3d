package termsafe

import (
	"bytes"
	"io"
	"sync"
)

// Writer neutralises a text stream as [Block] does and writes it to the
// stream it wraps. A write that ends inside a UTF-8 sequence (or on "\r")
// keeps those bytes for the next write; Flush writes them out.
//
// A Writer is safe for concurrent use; each Write is written whole.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
	buf     bytes.Buffer
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write neutralises p and writes it. It reports len(p) when the wrapped
// stream took everything.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(append(t.pending, p...))
	t.buf.Reset()
	n := escape(&t.buf, s, true, true)
	t.pending = append(t.pending[:0], s[n:]...)
	if t.buf.Len() > 0 {
		if _, err := t.w.Write(t.buf.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what an earlier Write held back, neutralised.
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 {
		return nil
	}
	t.buf.Reset()
	escape(&t.buf, string(t.pending), true, false)
	t.pending = t.pending[:0]
	_, err := t.w.Write(t.buf.Bytes())
	return err
}

// Unwrap returns the stream the Writer writes to, for the code that draws
// its own terminal interface (and cleans what it shows itself).
func (t *Writer) Unwrap() io.Writer { return t.w }

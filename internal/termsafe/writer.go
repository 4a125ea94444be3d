package termsafe

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"
)

// Writer neutralises a stream and writes it to the stream it wraps: a text
// stream as [Block] does, or a stream of JSON as [JSON] does. A write that
// ends inside a UTF-8 sequence (or, for text, on "\r") keeps those bytes
// for the next write; Flush writes them out.
//
// A Writer is safe for concurrent use; each Write is written whole.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	json    bool
	pending []byte
	buf     bytes.Buffer
}

// NewWriter returns a Writer for text that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// NewJSONWriter returns a Writer for a stream of JSON documents that writes
// to w: what [JSON] escapes is written as \u escapes, so the documents
// mean what they meant.
func NewJSONWriter(w io.Writer) *Writer { return &Writer{w: w, json: true} }

// Write neutralises p and writes it. It reports len(p) when the wrapped
// stream took everything.
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(append(t.pending, p...))
	t.buf.Reset()
	var n int
	if t.json {
		n = completeRunes(s)
		t.buf.Write(JSON([]byte(s[:n])))
	} else {
		n = escape(&t.buf, s, true, true)
	}
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
	if t.json {
		t.buf.Write(JSON(t.pending))
	} else {
		escape(&t.buf, string(t.pending), true, false)
	}
	t.pending = t.pending[:0]
	_, err := t.w.Write(t.buf.Bytes())
	return err
}

// Unwrap returns the stream the Writer writes to, for the code that draws
// its own terminal interface (and cleans what it shows itself).
func (t *Writer) Unwrap() io.Writer { return t.w }

// completeRunes returns the length of s without an incomplete UTF-8
// sequence at its end.
func completeRunes(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if utf8.FullRuneInString(s[i:]) {
				return len(s)
			}
			return i
		}
	}
	return len(s)
}

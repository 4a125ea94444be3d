package termsafe

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"
)

// Writer neutralises a stream and writes it to the stream it wraps: a text
// stream as [Block] does, or a stream of JSON as [JSON] does. No line it
// writes reads as a CI runner's workflow command ([WorkflowCommand]): a
// line that would is prefixed with "| ", and "##[" is written "##\[" (in
// JSON, where no line starts with "::", "##\u005b"). A write that ends
// inside a UTF-8 sequence (or, for text, on "\r", or with white space and
// a colon that start a line) keeps those bytes for the next write; Flush
// writes them out.
//
// A Writer is safe for concurrent use; each Write is written whole.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	json    bool
	pending []byte
	buf     bytes.Buffer
	out     bytes.Buffer
	cmds    cmdGuard
}

// NewWriter returns a Writer for text that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, cmds: cmdGuard{start: true}} }

// NewJSONWriter returns a Writer for a stream of JSON documents that writes
// to w: what [JSON] escapes is written as \u escapes, so the documents
// mean what they meant.
func NewJSONWriter(w io.Writer) *Writer {
	return &Writer{w: w, json: true, cmds: cmdGuard{start: true, json: true}}
}

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
	out := t.buf.Bytes()
	if !t.cmds.passes(out) {
		t.out.Reset()
		t.cmds.write(&t.out, out)
		out = t.out.Bytes()
	}
	if len(out) > 0 {
		if _, err := t.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what an earlier Write held back, neutralised.
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Reset()
	if t.json {
		t.buf.Write(JSON(t.pending))
	} else {
		escape(&t.buf, string(t.pending), true, false)
	}
	t.pending = t.pending[:0]
	t.out.Reset()
	t.cmds.write(&t.out, t.buf.Bytes())
	t.cmds.flush(&t.out)
	if t.out.Len() == 0 {
		return nil
	}
	_, err := t.w.Write(t.out.Bytes())
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

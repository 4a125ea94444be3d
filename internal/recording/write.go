package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/text/credential"
)

// Default bounds of a Writer.
const (
	// DefaultMaxBytes bounds a recording's size; past it the recording
	// ends with an EventLimit line.
	DefaultMaxBytes = 1 << 30
	// MaxMessage bounds one recorded message (the tester's bound on an
	// answer); a larger one is written as an EventLimit line noting its
	// size.
	MaxMessage = 16 << 20
	// maxRaw bounds what an EventNotJSON line keeps of its frame.
	maxRaw = 512
	// maxRoom bounds the room for one line a Writer keeps between entries.
	maxRoom = 64 << 10
)

// WriterOptions configure a Writer.
type WriterOptions struct {
	// MaxBytes bounds the recording; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Secrets are hidden wherever they appear (see credential.Hider); more
	// can be added with AddSecrets.
	Secrets []string
	// ShowState writes requestState values as they are, instead of a note
	// of their length.
	ShowState bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Writer writes a recording, one line per entry, each with one write. It
// is safe for concurrent use: entries are numbered in time in the order
// they are written.
type Writer struct {
	opts  WriterOptions
	start time.Time

	mu      sync.Mutex
	w       io.Writer
	secrets []string
	hider   *credential.Hider
	// names reads the keys of the messages recorded (HideMessage).
	names *credential.Names
	// guessed are the secrets only guessed from their form (AddGuessed),
	// content the values a client's message has shown to be content
	// (KeepAsContent), never hidden as guessed.
	guessed, content map[string]bool
	written          int64
	// line is the room the last entry was written in, kept for the next
	// one up to maxRoom bytes.
	line    []byte
	stopped bool // at the limit, or closed
	err     error
}

// ErrStopped is returned by a Writer that reached its limit or was closed:
// nothing more is recorded.
var ErrStopped = errors.New("recording stopped")

// NewWriter writes the header line to w and returns a Writer of the
// entries that follow. Header.Format and Header.Started are filled in when
// empty.
func NewWriter(w io.Writer, h Header, opts WriterOptions) (*Writer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if h.Format == "" {
		h.Format = Format
	}
	if h.Started.IsZero() {
		h.Started = opts.Now().UTC()
	}
	rw := &Writer{opts: opts, start: h.Started, w: w, names: credential.NewNames()}
	rw.AddSecrets(opts.Secrets...)
	h.Server = rw.hider.Hide(h.Server)
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("recording header: %w", err)
	}
	if err := rw.write(append(b, '\n')); err != nil {
		return nil, err
	}
	return rw, nil
}

// Create creates (or replaces) the file at path, readable and writable by
// its owner only, and writes a recording to it. Close the Writer, then the
// file.
//
// What is at path must be a regular file of the caller's, or nothing: a
// symbolic link there is not followed (in a shared folder such as /tmp,
// another user's link would have the recording replace a file of the
// caller's elsewhere), and a FIFO or device is refused without waiting for
// a reader. An existing file is emptied only once it is known to be such a
// file.
func Create(path string, h Header, opts WriterOptions) (*Writer, *os.File, error) {
	f, err := outfile.Create(path, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("create recording: %w", err)
	}
	w, err := NewWriter(f, h, opts)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return w, f, nil
}

// AddSecrets hides secrets in every entry written from now on, such as a
// credential a client sent in a header.
func (w *Writer) AddSecrets(secrets ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	added := false
	for _, s := range secrets {
		if len(s) < credential.MinSecret || contains(w.secrets, s) {
			continue
		}
		w.secrets = append(w.secrets, s)
		added = true
	}
	if added || w.hider == nil {
		w.hider = credential.NewHider(w.secrets)
	}
}

// AddGuessed hides values only guessed to be secrets (a generated-looking
// header of the client's own) in every entry written from now on, unless
// a client's message has shown them to be content (KeepAsContent).
func (w *Writer) AddGuessed(values ...string) {
	w.mu.Lock()
	var add []string
	for _, v := range values {
		if !w.content[v] && !contains(w.secrets, v) {
			if w.guessed == nil {
				w.guessed = map[string]bool{}
			}
			w.guessed[v] = true
			add = append(add, v)
		}
	}
	w.mu.Unlock()
	w.AddSecrets(add...)
}

// KeepAsContent stops hiding values that were only guessed to be secrets
// (AddGuessed), from the entry written next on: a client's message holds
// them as its own content (a request id or task id copied into a header).
// A secret known by its header's name or its form stays hidden.
func (w *Writer) KeepAsContent(values ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := false
	for _, v := range values {
		if w.content == nil {
			w.content = map[string]bool{}
		}
		w.content[v] = true
		if w.guessed[v] {
			delete(w.guessed, v)
			w.secrets = slices.DeleteFunc(w.secrets, func(s string) bool { return s == v })
			changed = true
		}
	}
	if changed {
		w.hider = credential.NewHider(w.secrets)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Message records one JSON-RPC message that crossed the proxy in the
// direction dir, with the HTTP facts of its exchange (nil over stdio). A
// batch (a JSON array) is recorded as its messages, one line each; a
// frame that is not JSON is recorded as an EventNotJSON line, and one
// that is JSON but no JSON-RPC message (a JSON log line) as an
// EventNotRPC line that holds it.
func (w *Writer) Message(dir string, msg []byte, h *HTTP) error {
	if len(msg) > MaxMessage {
		return w.Event(Entry{Dir: dir, Event: EventLimit, HTTP: h,
			Note: fmt.Sprintf("a message of %d bytes, over the %d-byte limit of one recorded message, was forwarded unrecorded", len(msg), MaxMessage)})
	}
	msg = bytes.TrimSpace(msg)
	if !json.Valid(msg) {
		return w.Event(Entry{Dir: dir, Event: EventNotJSON, HTTP: h, Raw: head(msg), Note: fmt.Sprintf("%d bytes that are not JSON", len(msg))})
	}
	if batch, ok := Batch(msg); ok {
		for _, m := range batch {
			if err := w.message(dir, m, h); err != nil {
				return err
			}
		}
		return nil
	}
	return w.message(dir, msg, h)
}

// message records msg, valid JSON and no batch.
func (w *Writer) message(dir string, msg []byte, h *HTTP) error {
	e := Entry{Dir: dir, HTTP: h}
	if !plainRPC(msg) {
		if _, err := DecodeMessage(msg); err != nil {
			e.Event, e.Note = EventNotRPC, NotRPCNote(len(msg), err)
		}
	}
	if !w.opts.ShowState {
		msg = HideState(msg)
	}
	// What a client says for itself (arguments, answers) is hidden where
	// it names or looks like a secret, and so is every echo of it.
	msg, secrets := w.names.HideMessage(msg)
	if len(secrets) > 0 {
		w.AddSecrets(secrets...)
	}
	e.Message = msg
	return w.entry(e)
}

// Batch returns the messages of msg when it is a JSON-RPC batch: a JSON
// array of at least one element.
func Batch(msg []byte) ([]json.RawMessage, bool) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '[' {
		return nil, false
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil || len(batch) == 0 {
		return nil, false
	}
	return batch, true
}

// NotRPCNote is the note of an EventNotRPC frame of n bytes, which err
// says why it is no JSON-RPC message.
func NotRPCNote(n int, err error) string {
	return fmt.Sprintf("%d bytes of JSON, no JSON-RPC message: %v", n, err)
}

// Event records an entry that carries no message; e.Event must be set.
// e.At is set by the Writer.
func (w *Writer) Event(e Entry) error {
	if e.Event == "" {
		return errors.New("recording: an event needs its kind")
	}
	e.Message = nil
	return w.entry(e)
}

// Close ends the recording with an EventEnd line saying why (such as
// "the client closed its side"). Later writes return ErrStopped. Close
// does not close the underlying writer.
func (w *Writer) Close(note string) error {
	err := w.entry(Entry{Event: EventEnd, Note: note})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if errors.Is(err, ErrStopped) {
		return w.err
	}
	return err
}

// Err returns the first error met writing.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *Writer) entry(e Entry) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return ErrStopped
	}
	e.At = float64(w.opts.Now().Sub(w.start).Microseconds()) / 1000
	if e.At < 0 {
		e.At = 0
	}
	hideEntry(w.hider, &e)
	b, ok := appendEntry(w.line[:0], &e)
	if !ok {
		var err error
		if b, err = json.Marshal(e); err != nil {
			return w.fail(fmt.Errorf("recording entry: %w", err))
		}
	}
	b = append(b, '\n')
	if cap(b) <= maxRoom {
		w.line = b[:0] // for the next entry: the writer keeps no slice it was given
	}
	if w.written+int64(len(b)) > w.opts.MaxBytes {
		w.stopped = true
		stop, _ := json.Marshal(Entry{At: e.At, Event: EventLimit,
			Note: fmt.Sprintf("the recording reached its limit of %d bytes; nothing after this was recorded", w.opts.MaxBytes)})
		w.writeLocked(append(stop, '\n'))
		return ErrStopped
	}
	return w.writeLocked(b)
}

func (w *Writer) write(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(b)
}

func (w *Writer) writeLocked(b []byte) error {
	if w.err != nil {
		return w.err
	}
	n, err := w.w.Write(b)
	w.written += int64(n)
	if err != nil {
		return w.fail(fmt.Errorf("write recording: %w", err))
	}
	return nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}

// hideEntry hides the writer's secrets in every text of e. A message that
// is no longer JSON once hidden (a secret written as a bare number) is kept
// as a note instead.
func hideEntry(h *credential.Hider, e *Entry) {
	if h.Empty() {
		return
	}
	if e.Message != nil {
		hidden := h.Hide(string(e.Message))
		if hidden != string(e.Message) {
			if json.Valid([]byte(hidden)) {
				e.Message = json.RawMessage(hidden)
			} else {
				e.Message = nil
				e.Event = EventNotJSON
				e.Note = fmt.Sprintf("a message of %d bytes that held a credential outside a string; not recorded", len(hidden))
			}
		}
	}
	e.Raw = h.Hide(e.Raw)
	e.Note = h.Hide(e.Note)
	if e.HTTP != nil {
		c := *e.HTTP
		c.Path = h.Hide(c.Path)
		c.EventID = h.Hide(c.EventID)
		c.LastEventID = h.Hide(c.LastEventID)
		e.HTTP = &c
	}
}

func head(b []byte) string {
	if len(b) > maxRaw {
		b = b[:maxRaw]
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/askback/askback/internal/encoding/strictjson"
)

// maxLine bounds one line of a recording: the largest message, escaped,
// with room for its entry's other fields.
const maxLine = 2*MaxMessage + 64<<10

// Error is a line of a recording that is not what a Writer writes, or that
// a reader of recordings (a conversation, a stand-in) cannot take.
type Error struct {
	// File is the recording's file, when it is known (InFile sets it).
	File string
	Line int // 1-based
	Err  error
}

// Error reads "FILE:LINE: …" when the file is known, else "line LINE: …".
func (e *Error) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// InFile names the recording file path in err, an error of reading or
// serving it, so that every command that reads recordings says it alike:
// an error of a line (an *Error) reads "PATH:LINE: …", any other
// "PATH: …". nil stays nil.
func InFile(path string, err error) error {
	if err == nil {
		return nil
	}
	var re *Error
	if errors.As(err, &re) {
		return &Error{File: path, Line: re.Line, Err: re.Err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// CutShort is the warning of a recording file whose last line, line, was
// cut short (a proxy stopped while it wrote it), in the words of every
// command that reads recordings: "PATH:LINE: the last line is cut short
// …: " and what the command does with the whole entries before it.
func CutShort(path string, line int, what string) string {
	return fmt.Sprintf("%s:%d: the last line is cut short (the proxy was stopped while it wrote it): %s", path, line, what)
}

// Open opens the recording file at path for reading. Its error names the
// file ("recording PATH: no such file or directory", "recording PATH: is
// a directory").
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("recording %s: is a directory", path)
	}
	return f, nil
}

// ReadFile reads the recording file at path (Open, then Read); its errors
// name the file (InFile).
func ReadFile(path string, opts ReadOptions) (*Recording, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, err := Read(f, opts)
	if err != nil {
		return nil, InFile(path, err)
	}
	return rec, nil
}

// Recording is a whole recording, read.
type Recording struct {
	Header  Header
	Entries []Entry
	// Truncated is set when the last line was cut short (a proxy killed
	// while it wrote): the entries are those before it.
	Truncated bool
}

// ReadOptions bound what Read takes.
type ReadOptions struct {
	// MaxEntries bounds the entries read; 0 means 1,000,000.
	MaxEntries int
}

// defaultMaxEntries bounds the entries read when no bound is given.
const defaultMaxEntries = 1_000_000

// Reader reads a recording line by line.
type Reader struct {
	r         *bufio.Reader
	line      int
	header    Header
	last      float64
	truncated bool
}

// NewReader reads the header line of a recording from r and returns a
// Reader of its entries.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{r: bufio.NewReaderSize(r, 64<<10)}
	b, complete, err := rd.next()
	if err == io.EOF {
		return nil, &Error{Line: 1, Err: errors.New("the recording is empty")}
	}
	if err != nil {
		return nil, err
	}
	if !complete && !json.Valid(b) {
		return nil, &Error{Line: 1, Err: errors.New("the header line is cut short")}
	}
	if err := decodeLine(b, &rd.header); err != nil {
		if !bytes.Contains(b, []byte(`"format"`)) {
			return nil, &Error{Line: 1, Err: fmt.Errorf("not a recording of mcp-tester proxy (no %q header): %w", Format, err)}
		}
		return nil, &Error{Line: 1, Err: fmt.Errorf("header: %w", err)}
	}
	h := rd.header
	switch {
	case h.Format == Format:
	case strings.HasPrefix(h.Format, "askback-recording/"):
		return nil, &Error{Line: 1, Err: fmt.Errorf("format %q is not one this mcp-tester reads (it reads %q)", h.Format, Format)}
	default:
		return nil, &Error{Line: 1, Err: fmt.Errorf("not a recording of mcp-tester proxy: format %q", h.Format)}
	}
	switch h.Transport {
	case TransportStdio, TransportHTTP, TransportSSE:
	default:
		return nil, &Error{Line: 1, Err: fmt.Errorf("unknown transport %q (want %q, %q or %q)", h.Transport, TransportStdio, TransportHTTP, TransportSSE)}
	}
	if h.Started.IsZero() {
		return nil, &Error{Line: 1, Err: errors.New(`the header has no "started" time`)}
	}
	return rd, nil
}

// Header returns the recording's header.
func (rd *Reader) Header() Header { return rd.header }

// Line is the line Next read last (the header is line 1).
func (rd *Reader) Line() int { return rd.line }

// Truncated reports whether Next met a last line cut short.
func (rd *Reader) Truncated() bool { return rd.truncated }

// Next returns the next entry, or io.EOF after the last one. A last line
// cut short ends the recording (Truncated reports it); any other line that
// is not an entry is an *Error naming it.
func (rd *Reader) Next() (Entry, error) {
	b, complete, err := rd.next()
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	if err := decodeLine(b, &e); err != nil {
		if !complete {
			rd.truncated = true
			return Entry{}, io.EOF
		}
		return Entry{}, &Error{Line: rd.line, Err: err}
	}
	if err := rd.check(&e); err != nil {
		return Entry{}, &Error{Line: rd.line, Err: err}
	}
	return e, nil
}

func (rd *Reader) check(e *Entry) error {
	if e.At < rd.last {
		return fmt.Errorf("t_ms %v is earlier than the line before (%v): lines are written in time order", e.At, rd.last)
	}
	rd.last = e.At
	switch e.Dir {
	case "", ClientToServer, ServerToClient:
	default:
		return fmt.Errorf("unknown direction %q (want %q or %q)", e.Dir, ClientToServer, ServerToClient)
	}
	switch e.Event {
	case "":
		if e.Dir == "" {
			return errors.New("a message needs its direction")
		}
		if len(e.Message) == 0 {
			return errors.New(`neither a message ("msg") nor an event`)
		}
		// A batch, or JSON that is no JSON-RPC message (an earlier proxy
		// recorded a stdio server's JSON log line so), is read as the
		// proxy now writes it: Walk hands the batch's messages, and the
		// frame as an EventNotRPC, which readers skip with a warning.
	case EventNotRPC:
		// It holds the frame, or nothing when the writer could not keep it.
	case EventHTTP, EventNotJSON, EventServerGone, EventClientGone, EventLimit, EventEnd:
		if len(e.Message) != 0 {
			return fmt.Errorf("a %q event carries a message", e.Event)
		}
	default:
		return fmt.Errorf("unknown event %q", e.Event)
	}
	return nil
}

// next returns the next line without its newline, and whether it ended
// with one.
func (rd *Reader) next() ([]byte, bool, error) {
	var line []byte
	for {
		chunk, err := rd.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, false, &Error{Line: rd.line + 1, Err: fmt.Errorf("longer than %d bytes", maxLine)}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(line) == 0 {
				return nil, false, io.EOF
			}
			rd.line++
			return line, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		rd.line++
		return line[:len(line)-1], true, nil
	}
}

// decodeLine decodes one line strictly: one JSON object, no key twice or
// in another letter case, no unknown field, nothing after it.
func decodeLine(b []byte, v any) error {
	return strictjson.DecodeKnown(b, v)
}

// Read reads a whole recording. A recording cut short after its header
// reads as the entries before the cut, with Truncated set.
func Read(r io.Reader, opts ReadOptions) (*Recording, error) {
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = defaultMaxEntries
	}
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Header: rd.Header()}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec.Entries) == opts.MaxEntries {
			return nil, &Error{Line: rd.line, Err: fmt.Errorf("more than %d entries", opts.MaxEntries)}
		}
		rec.Entries = append(rec.Entries, e)
	}
	rec.Truncated = rd.Truncated()
	return rec, nil
}

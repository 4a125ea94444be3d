// Package eventstream reads a text/event-stream (server-sent events) as it
// arrives: the one reader of event streams in the module. The tester's
// wire hears the messages of a session's streams through it
// (internal/client/wire), mcp-tester proxy records the streams it forwards with it
// (internal/server/proxy), and tasks/taskclient finds a tool call's answer in the
// stream it came in.
package eventstream

import "bytes"

// Event is one event of a text/event-stream.
type Event struct {
	// Type is the event's "event" field: "" (a message) unless it has one.
	Type string
	// ID is the event's own "id" field, "" when it has none.
	ID string
	// Data is the event's "data" lines, joined with newlines. It is only
	// valid during the call to the Reader's handler.
	Data []byte
	// Over reports an event whose data outgrew the Reader's bound: Data is
	// empty.
	Over bool
}

// Reader reads a text/event-stream as it arrives, in pieces of any size,
// and hands each event to its handler once the blank line that ends it is
// read. Lines end in LF, CR or CRLF (a CRLF split between two pieces is
// one line end); comments and fields other than event, id and data are
// skipped. One event is bounded in bytes of data: a longer one reaches the
// handler with Over set and no data. A last event not ended by a blank
// line is handed over only by End.
type Reader struct {
	on    func(Event)
	limit int    // the bound of one event's data
	line  []byte // the current line, incomplete
	data  bytes.Buffer
	event string
	id    string
	over  bool // the current event outgrew limit
	cr    bool // the last byte was a CR (a CRLF's LF is not a second line end)
	any   bool // the current event has a field
}

// NewReader returns a Reader that hands each event to on, an event's data
// bounded to limit bytes.
func NewReader(limit int, on func(Event)) *Reader {
	return &Reader{on: on, limit: limit}
}

// Write reads p, a piece of the stream. It never fails.
func (s *Reader) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.cr && p[0] == '\n' {
			// The LF of a CRLF: the line ended at the CR.
			s.cr = false
			p = p[1:]
			continue
		}
		s.cr = false
		end := bytes.IndexByte(p, '\n')
		search := p
		if end >= 0 {
			search = p[:end]
		}
		if cr := bytes.IndexByte(search, '\r'); cr >= 0 {
			end = cr
		}
		if end < 0 {
			s.add(p)
			break
		}
		s.add(p[:end])
		s.cr = p[end] == '\r'
		s.endLine()
		p = p[end+1:]
	}
	return n, nil
}

// Pending returns the bytes held of the event being read: its data so far
// and its line not yet ended.
func (s *Reader) Pending() int { return len(s.line) + s.data.Len() }

// Drop forgets what is held of the event being read and keeps nothing more
// of it: it reaches the handler with Over set, as an event over the bound
// does. A reader that cannot afford to hold the event calls it.
func (s *Reader) Drop() {
	s.over = true
	s.data = bytes.Buffer{}
	if len(s.line) > maxOverLine {
		s.line = append([]byte(nil), s.line[:maxOverLine]...)
	}
}

// maxOverLine is what is kept of a line of an event that is over its bound:
// enough to read a field's name (an id after the data).
const maxOverLine = 1 << 10

// keepCap is the most capacity the reader's buffers keep between events: a
// stream that carried one large event does not hold its size until it ends.
const keepCap = 64 << 10

// add appends b to the current line, keeping at most limit+1 bytes of it
// (an event that long is over its bound), and once the event is over, no
// more than maxOverLine.
func (s *Reader) add(b []byte) {
	limit := s.limit + 1
	if s.over {
		limit = max(maxOverLine, min(len(s.line), limit))
	}
	if room := limit - len(s.line); len(b) > room {
		b = b[:max(room, 0)]
		s.over = true
	}
	s.line = append(s.line, b...)
}

// endLine ends the current line: a blank line dispatches the event, a
// comment (":…") is skipped, any other is a field.
func (s *Reader) endLine() {
	line := s.line
	s.line = s.line[:0]
	if cap(s.line) > keepCap {
		s.line = nil // line stays valid for this call
	}
	if len(line) == 0 {
		s.dispatch()
		return
	}
	if line[0] == ':' {
		return
	}
	s.field(line)
}

// field takes in a field line: an event's name, its id (unless the id
// holds a NUL) or a line of its data; other fields are ignored.
func (s *Reader) field(line []byte) {
	s.any = true
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		s.event = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.id = string(value)
		}
	case "data":
		s.addData(value)
	}
}

// addData adds a line to the event's data, unless the event is over its
// bound already; a line that takes it over drops the event.
func (s *Reader) addData(value []byte) {
	if s.over {
		return
	}
	if s.data.Len()+len(value)+1 > s.limit {
		s.Drop()
		return
	}
	if s.data.Len() > 0 {
		s.data.WriteByte('\n')
	}
	s.data.Write(value)
}

// End ends the stream: an event it left unended (no blank line after it)
// is handed over, as a client reading the stream to its end takes it (the
// go-sdk does). A line cut short is part of that event.
func (s *Reader) End() {
	if len(s.line) > 0 {
		s.endLine()
	}
	s.dispatch()
}

func (s *Reader) dispatch() {
	if s.any || s.over {
		e := Event{Type: s.event, ID: s.id, Over: s.over}
		if !s.over {
			e.Data = s.data.Bytes()
		}
		s.on(e)
	}
	s.data.Reset()
	if s.data.Cap() > keepCap {
		s.data = bytes.Buffer{}
	}
	s.event, s.id = "", ""
	s.over, s.any = false, false
}

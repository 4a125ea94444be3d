package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/askback/askback/internal/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxMessage bounds the bytes kept to read one message (a JSON body, or one
// event of a stream). A larger message still passes, unobserved.
const MaxMessage = 16 << 20

// RoundTripper returns base (http.DefaultTransport when nil) with the
// JSON-RPC messages of every request and response body told to obs. The
// requests and responses themselves pass unchanged: a request body is read
// from a copy (GetBody) or read once and replayed, a response body is
// observed as the caller reads it.
func RoundTripper(base http.RoundTripper, obs Observer) http.RoundTripper {
	return watchingRoundTripper(base, listeners{obs: obs})
}

func watchingRoundTripper(base http.RoundTripper, to listeners) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{base: base, obs: to}
}

type roundTripper struct {
	base http.RoundTripper
	obs  listeners
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		body, replay, err := requestBody(req)
		if err != nil {
			return nil, err
		}
		if replay != nil {
			r := *req
			r.Body = replay
			req = &r
		}
		observeJSON(body, true, t.obs)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		j := &jsonBody{obs: t.obs}
		resp.Body = &observedBody{ReadCloser: resp.Body, feed: j.feed, end: j.end}
	case "text/event-stream":
		s := &eventStream{obs: t.obs}
		resp.Body = &observedBody{ReadCloser: resp.Body, feed: s.feed}
	}
	return resp, nil
}

// requestBody returns the request's body for observing and, when it had to
// be read from the request itself, a body to send in its place. A body
// larger than MaxMessage is not observed.
func requestBody(req *http.Request) (observed []byte, replay io.ReadCloser, err error) {
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err == nil {
			defer rc.Close()
			b, err := io.ReadAll(io.LimitReader(rc, MaxMessage+1))
			if err == nil && len(b) <= MaxMessage {
				return b, nil, nil
			}
			return nil, nil, nil
		}
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, MaxMessage+1))
	if err != nil {
		req.Body.Close()
		return nil, nil, err
	}
	replay = &readCloser{Reader: io.MultiReader(bytes.NewReader(b), req.Body), close: req.Body.Close}
	if len(b) > MaxMessage {
		return nil, replay, nil
	}
	return b, replay, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r *readCloser) Close() error { return r.close() }

// observeJSON tells obs the message, or the messages of the batch, in b.
// Anything that is not JSON-RPC (an OAuth document, an error page) is
// ignored. The bytes are read once by the scan for the watcher, and decoded
// only for an observer.
func observeJSON(b []byte, sent bool, obs listeners) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) != nil {
			return
		}
		for _, m := range batch {
			observeJSON(m, sent, obs)
		}
		return
	}
	if obs.watch != nil {
		if m := jsonscan.Scan(b); m.Kind != jsonscan.NotRPC {
			obs.watch(sent, m)
		}
	}
	if obs.obs != nil {
		if msg, err := jsonrpc.DecodeMessage(b); err == nil {
			obs.obs(sent, msg)
		}
	}
}

// observedBody hands what its reader reads to feed, and calls end once at
// the end of the body.
type observedBody struct {
	io.ReadCloser
	feed  func([]byte)
	end   func()
	ended bool
}

func (b *observedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.feed(p[:n])
	}
	if err == io.EOF && !b.ended {
		b.ended = true
		if b.end != nil {
			b.end()
		}
	}
	return n, err
}

// jsonBody collects a JSON response body and observes it when complete.
type jsonBody struct {
	obs  listeners
	buf  bytes.Buffer
	over bool
}

func (j *jsonBody) feed(p []byte) {
	if j.over || j.buf.Len()+len(p) > MaxMessage {
		j.over = true
		j.buf.Reset()
		return
	}
	j.buf.Write(p)
}

func (j *jsonBody) end() {
	if !j.over {
		observeJSON(j.buf.Bytes(), false, j.obs)
	}
}

// eventStream observes the data of each message event of a stream (the
// event type empty or "message") as one JSON-RPC message. Other events
// (the legacy SSE transport's "endpoint") and comments are skipped; an
// event larger than MaxMessage is dropped.
type eventStream struct {
	obs listeners
	r   *EventReader
}

func (s *eventStream) feed(p []byte) {
	if s.r == nil {
		s.r = NewEventReader(func(e Event) {
			if !e.Over && (e.Type == "" || e.Type == "message") && len(e.Data) > 0 {
				observeJSON(e.Data, false, s.obs)
			}
		})
	}
	s.r.Write(p)
}

// Event is one event of a text/event-stream.
type Event struct {
	// Type is the event's "event" field: "" (a message) unless it has one.
	Type string
	// ID is the event's own "id" field, "" when it has none.
	ID string
	// Data is the event's "data" lines, joined with newlines. It is only
	// valid during the call to the EventReader's handler.
	Data []byte
	// Over reports an event whose data outgrew MaxMessage: Data is empty.
	Over bool
}

// EventReader reads a text/event-stream as it arrives, in pieces of any
// size, and hands each event to its handler once the blank line that ends
// it is read: what the tester's trace and checks observe of a stream, and
// what mcp-tester proxy records. Lines end in LF, CR or CRLF (a CRLF split
// between two pieces is one line end); comments and fields other than
// event, id and data are skipped. One event is bounded to MaxMessage bytes
// of data: a longer one reaches the handler with Over set and no data.
// A last event not ended by a blank line is never handed over.
type EventReader struct {
	on    func(Event)
	line  []byte // the current line, incomplete
	data  bytes.Buffer
	event string
	id    string
	over  bool // the current event outgrew MaxMessage
	cr    bool // the last byte was a CR (a CRLF's LF is not a second line end)
	any   bool // the current event has a field
}

// NewEventReader returns an EventReader that hands each event to on.
func NewEventReader(on func(Event)) *EventReader {
	return &EventReader{on: on}
}

// Write reads p, a piece of the stream. It never fails.
func (s *EventReader) Write(p []byte) (int, error) {
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
func (s *EventReader) Pending() int { return len(s.line) + s.data.Len() }

// Drop forgets what is held of the event being read and keeps nothing more
// of it: it reaches the handler with Over set, as an event over MaxMessage
// does. A reader that cannot afford to hold the event calls it.
func (s *EventReader) Drop() {
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

// add appends b to the current line, keeping at most MaxMessage+1 bytes of
// it (an event that long is over its bound), and once the event is over,
// no more than maxOverLine.
func (s *EventReader) add(b []byte) {
	limit := MaxMessage + 1
	if s.over {
		limit = max(maxOverLine, min(len(s.line), limit))
	}
	if room := limit - len(s.line); len(b) > room {
		b = b[:max(room, 0)]
		s.over = true
	}
	s.line = append(s.line, b...)
}

func (s *EventReader) endLine() {
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
		if s.over {
			return
		}
		if s.data.Len()+len(value)+1 > MaxMessage {
			s.Drop()
			return
		}
		if s.data.Len() > 0 {
			s.data.WriteByte('\n')
		}
		s.data.Write(value)
	}
}

func (s *EventReader) dispatch() {
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

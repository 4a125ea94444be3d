package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/askback/askback/internal/encoding/eventstream"
	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/recording"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxMessage bounds the bytes kept to read one message (a JSON body, or one
// event of a stream). A larger message still passes, unobserved.
const MaxMessage = 16 << 20

// watchingRoundTripper returns base (http.DefaultTransport when nil) with
// the JSON-RPC messages of every request and response body told to to.
// The requests and responses themselves pass unchanged: a request body is
// read from a copy (GetBody) or read once and replayed, a response body is
// observed as the caller reads it.
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
	var call *awaited // the request the POST carries, if it is one
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
		observeJSON(body, true, t.obs, nil)
		if t.obs.unanswered != nil && req.Method == http.MethodPost {
			call = awaitedIn(body, t.obs.unanswered)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.StatusCode/100 != 2 {
		call = nil // an error page, not the answer's body
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		j := &jsonBody{obs: t.obs, call: call}
		resp.Body = &observedBody{ReadCloser: resp.Body, feed: j.feed, end: j.end}
	case "text/event-stream":
		if call != nil {
			call.stream = true
		}
		s := &eventStream{obs: t.obs, call: call}
		resp.Body = &observedBody{ReadCloser: resp.Body, feed: s.feed, end: s.end}
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

// awaited is a request POSTed, and what the HTTP answer to it carried of
// answers: the answer to it, or the first answer to another id.
type awaited struct {
	id         jsonrpc.ID
	unanswered Unanswered
	answered   bool
	other      jsonrpc.ID
	stream     bool // the answer is an event stream
	// unsure: an event had an id (the client may resume the stream), or
	// was too large to read (it may have been the answer).
	unsure bool
}

// awaitedIn returns the request with an id in the request body b, nil when
// b holds no such request (a notification, a response, a batch).
func awaitedIn(b []byte, u Unanswered) *awaited {
	m := jsonscan.Scan(bytes.TrimSpace(b))
	if m.Kind != jsonscan.Request || !m.ID.IsValid() {
		return nil
	}
	return &awaited{id: m.ID, unanswered: u}
}

// heard notes a message of the answer.
func (a *awaited) heard(m jsonscan.Message) {
	switch {
	case m.Kind != jsonscan.Response || !m.ID.IsValid():
	case m.ID == a.id:
		a.answered = true
	case !a.other.IsValid():
		a.other = m.ID
	}
}

// end is the end of the answer: the error to end its body with, nil for
// io.EOF.
func (a *awaited) end() error {
	if a == nil || a.answered || !a.other.IsValid() || a.unsure {
		return nil
	}
	err := a.unanswered(a.id, a.other, a.stream)
	if a.stream {
		return nil // the go-sdk ends the request at the stream's end
	}
	return err
}

// observeJSON tells obs the message, or the messages of the batch, in b,
// and call (when not nil) each message received. Anything that is not
// JSON-RPC (an OAuth document, an error page) is ignored. The bytes are
// read once by the scan for the watcher and call, and decoded only for an
// observer.
func observeJSON(b []byte, sent bool, obs listeners, call *awaited) {
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
			observeJSON(m, sent, obs, call)
		}
		return
	}
	if !sent && obs.forms != nil && bytes.Contains(b, formSchemaKey) {
		obs.forms(b)
	}
	if obs.watch != nil || call != nil {
		if m := jsonscan.Scan(b); m.Kind != jsonscan.NotRPC {
			if obs.watch != nil {
				obs.watch(sent, m)
			}
			if call != nil {
				call.heard(m)
			}
		}
	}
	if obs.obs != nil {
		msg, err := jsonrpc.DecodeMessage(b)
		if err != nil {
			// An error tied to no request (id null or absent), which
			// the go-sdk refuses and the reader of recordings reads.
			if m, rerr := recording.DecodeMessage(b); rerr == nil {
				if r, ok := m.(*jsonrpc.Response); ok && !r.ID.IsValid() {
					msg, err = m, nil
				}
			}
		}
		if err == nil {
			obs.obs(sent, msg)
		}
	}
}

// observedBody hands what its reader reads to feed, and calls end once at
// the end of the body: an error end returns is the body's in place of
// io.EOF, for every later read too.
type observedBody struct {
	io.ReadCloser
	feed   func([]byte)
	end    func() error
	ended  bool
	endErr error
}

func (b *observedBody) Read(p []byte) (int, error) {
	if b.endErr != nil {
		return 0, b.endErr
	}
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.feed(p[:n])
	}
	if err == io.EOF && !b.ended {
		b.ended = true
		if b.end != nil {
			if b.endErr = b.end(); b.endErr != nil {
				err = b.endErr
			}
		}
	}
	return n, err
}

// jsonBody collects a JSON response body and observes it when complete.
type jsonBody struct {
	obs  listeners
	call *awaited // the request POSTed, if the body answers one
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

func (j *jsonBody) end() error {
	if j.over {
		return nil
	}
	observeJSON(j.buf.Bytes(), false, j.obs, j.call)
	return j.call.end()
}

// eventStream observes the data of each message event of a stream (the
// event type empty or "message") as one JSON-RPC message. Other events
// (the legacy SSE transport's "endpoint") and comments are skipped; an
// event larger than MaxMessage is dropped.
type eventStream struct {
	obs  listeners
	call *awaited // the request POSTed, if the stream answers one
	r    *eventstream.Reader
}

func (s *eventStream) feed(p []byte) {
	if s.r == nil {
		s.r = eventstream.NewReader(MaxMessage, func(e eventstream.Event) {
			if (e.ID != "" || e.Over) && s.call != nil {
				s.call.unsure = true
			}
			if !e.Over && (e.Type == "" || e.Type == "message") && len(e.Data) > 0 {
				observeJSON(e.Data, false, s.obs, s.call)
			}
		})
	}
	s.r.Write(p)
}

// end is the end of the stream: an event left unended is taken, as the
// go-sdk takes it.
func (s *eventStream) end() error {
	if s.r != nil {
		s.r.End()
	}
	return s.call.end()
}

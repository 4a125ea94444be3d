package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askback/askback/internal/client/wire"
	"github.com/askback/askback/internal/encoding/eventstream"
	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/internal/server/reqbody"
	"github.com/askback/askback/internal/text/credential"
)

// DefaultMaxStreams bounds the exchanges a Handler forwards at once (each
// POST, GET stream and DELETE in flight); one more is answered 503.
const DefaultMaxStreams = 64

// maxSessions bounds the session labels a Handler keeps; later sessions
// share one label.
const maxSessions = 10_000

// maxFirstEvent bounds what a Handler holds of a stream to read its first
// event, which may be the endpoint event of the 2024-11-05 transport.
const maxFirstEvent = 64 << 10

// streamBuf is the size of the buffer an event stream is read through.
const streamBuf = 32 << 10

// What a Handler holds of the server's messages to record them: any
// exchange up to smallHold bytes of one message, and at most maxLarge
// exchanges at once up to MaxMessage. Another large message is forwarded
// unrecorded (a limit event says so), so that a server sending large answers
// on every stream at once holds maxLarge × MaxMessage, not MaxStreams ×
// MaxMessage.
const (
	smallHold = 1 << 20
	maxLarge  = 4
)

// HTTPOptions configure a Handler.
type HTTPOptions struct {
	// Server is the server's URL; every request is forwarded to its
	// origin, with the path and query the client asked for.
	Server *url.URL
	// Rec is the recording.
	Rec *recording.Writer
	// Transport carries the requests to the server; nil means a clone of
	// http.DefaultTransport without compression.
	Transport http.RoundTripper
	// MaxStreams bounds the exchanges forwarded at once; 0 means
	// DefaultMaxStreams.
	MaxStreams int
	// AnyHost, when false, refuses requests whose Host is not a loopback
	// name or address, as a server on loopback should (a web page that
	// rebinds its name to 127.0.0.1 must not speak to the server through
	// the proxy, which would present its requests as the server's own).
	AnyHost bool
	// SSE says the server speaks the HTTP+SSE transport of 2024-11-05:
	// the first event of a GET stream, its endpoint event, is held until it
	// is whole, to name the proxy when it names the server's origin. (A
	// Streamable HTTP stream is never held: its comments keep it alive.)
	SSE bool
	// Log gets the proxy's notes.
	Log io.Writer
}

// Handler forwards HTTP to an MCP server and records what passes.
//
// It forwards each request unchanged but for the hop-by-hop headers, Host
// (the server's) and Accept-Encoding (bodies pass uncompressed, to be
// recorded), and each answer unchanged (event streams event by event, as
// they come), except where the server names its own address, which would
// send the client around the proxy:
//   - protected resource metadata (/.well-known/oauth-protected-resource…):
//     its "resource", when on the server's origin, names the proxy's
//     origin instead (same path), so that a client that checks it against
//     the address it connected to logs in through the proxy;
//   - the resource_metadata URL of a WWW-Authenticate challenge, and a
//     redirect's Location, on the server's origin, name the proxy's;
//   - with HTTPOptions.SSE, the endpoint event of the 2024-11-05
//     transport, when it is an absolute URL on the server's origin, names
//     the proxy's (a relative one passes as it is).
//
// A server that cannot be reached is answered for: 502 with a JSON-RPC
// error naming the proxy.
type Handler struct {
	o         HTTPOptions
	rec       *recorder
	transport http.RoundTripper
	origins   *http.CrossOriginProtection
	slots     chan struct{}
	large     chan struct{} // places to hold a message over smallHold
	posts     atomic.Int64
	gets      atomic.Int64
	stopping  atomic.Bool
	// bufs keeps the buffers event streams are read through, for the
	// streams that come after: every POST may be answered as one.
	bufs sync.Pool

	kindMu sync.Mutex
	kinds  map[headerLine]headerKind // see headerKind
	names  map[string]bool           // see credentialName

	mu       sync.Mutex
	sessions map[string]string // session id → label
	gone     string            // why the server was last found gone, "" once it answered again
}

// NewHandler returns a Handler forwarding to o.Server.
func NewHandler(o HTTPOptions) *Handler {
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	t := o.Transport
	if t == nil {
		dt := http.DefaultTransport.(*http.Transport).Clone()
		dt.DisableCompression = true
		t = dt
	}
	return &Handler{o: o, rec: &recorder{w: o.Rec, log: o.Log}, transport: t, origins: http.NewCrossOriginProtection(),
		slots: make(chan struct{}, o.MaxStreams), large: make(chan struct{}, maxLarge), sessions: map[string]string{},
		kinds: map[headerLine]headerKind{}, names: map[string]bool{}}
}

// ServerGone says why the server was found gone when it was last tried,
// or "" when it answered.
func (h *Handler) ServerGone() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gone
}

// Stopping tells the Handler that the proxy is shutting down: the streams
// that end now end because of it, not because a client went away.
func (h *Handler) Stopping() { h.stopping.Store(true) }

// exchange is one request being forwarded and what is known of it.
type exchange struct {
	r       *http.Request
	facts   recording.HTTP // the facts every entry of the exchange carries
	id      json.RawMessage
	hasJSON bool // the request carried a JSON-RPC message
	// public is the proxy's origin as the client addressed it (its Host):
	// what the server's own URLs are rewritten to.
	public *url.URL
	// events counts the events of its stream; endpoint is the last
	// endpoint event (the 2024-11-05 transport), nil if none.
	events   int
	endpoint *eventstream.Event
	// large says the exchange holds one of the Handler's places for a
	// message over smallHold; dropped that the event being read was let go
	// unrecorded for want of one (its limit event is written).
	large, dropped bool
}

// takeLarge takes a place to hold a message over smallHold for x, if one is
// free.
func (h *Handler) takeLarge(x *exchange) bool {
	if x.large {
		return true
	}
	select {
	case h.large <- struct{}{}:
		x.large = true
		return true
	default:
		return false
	}
}

// giveLarge gives x's place back. The last one given back also gives the
// memory of the large messages back to the system: a burst of them is
// garbage the runtime would otherwise keep until its next collection, which
// an idle proxy may not make for minutes.
func (h *Handler) giveLarge(x *exchange) {
	if !x.large {
		return
	}
	x.large = false
	<-h.large
	if len(h.large) == 0 {
		debug.FreeOSMemory()
	}
}

// largeNote is the note of a message forwarded unrecorded for want of a
// place to hold it.
func largeNote(what string) string {
	return fmt.Sprintf("%s over %d MiB was forwarded unrecorded: the proxy holds at most %d such at once", what, smallHold>>20, maxLarge)
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.admit(w, r) {
		return
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		writeRPCError(w, http.StatusServiceUnavailable, nil, fmt.Sprintf("%s forwards at most %d exchanges at once", Name, h.o.MaxStreams))
		return
	}
	x := h.newExchange(r)
	body, ok := h.readRequest(w, r, x)
	if !ok {
		return
	}
	h.forward(w, r, x, body)
}

// admit refuses, with an answer that says why, a request addressed to a
// host that is not on loopback (unless AnyHost) or sent from another site.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) bool {
	if !h.o.AnyHost && !loopbackHost(r.Host) {
		writeRPCError(w, http.StatusForbidden, nil, fmt.Sprintf("%s listens on loopback and answers only requests addressed to a loopback host, not %q", Name, r.Host))
		return false
	}
	if err := h.origins.Check(r); err != nil {
		// A browser's request from another site (a page the person has
		// open posting to the proxy on loopback): refused, as the
		// go-sdk's handler and the project's endpoint refuse it.
		writeRPCError(w, http.StatusForbidden, nil, fmt.Sprintf("%s refuses a cross-origin request (Origin %q): %v", Name, r.Header.Get("Origin"), err))
		return false
	}
	return true
}

// newExchange is the exchange r begins, its stream numbered, the
// credentials of r made known to the recording before anything of it is
// written (those only guessed at, once its body is read: readRequest).
func (h *Handler) newExchange(r *http.Request) *exchange {
	x := &exchange{r: r, public: &url.URL{Scheme: "http", Host: r.Host}, facts: recording.HTTP{Method: r.Method, Path: r.URL.RequestURI(),
		ProtocolVersion: r.Header.Get("Mcp-Protocol-Version"), LastEventID: r.Header.Get("Last-Event-Id")}}
	switch r.Method {
	case http.MethodPost:
		x.facts.Stream = "post-" + strconv.FormatInt(h.posts.Add(1), 10)
	case http.MethodGet:
		x.facts.Stream = "get-" + strconv.FormatInt(h.gets.Add(1), 10)
	}
	h.o.Rec.AddSecrets(h.requestSecrets(r)...)
	x.facts.Session = h.sessionLabel(r.Header.Get("Mcp-Session-Id"), r.URL.Query())
	return x
}

// readRequest reads and records the body of r, if any; ok is false when
// the request ends here (the client went, or the body is refused with an
// answer that says why).
func (h *Handler) readRequest(w http.ResponseWriter, r *http.Request, x *exchange) (body []byte, ok bool) {
	if r.Body == nil || r.Body == http.NoBody {
		h.noteGuessed(r, nil)
		return nil, true
	}
	var b []byte
	var err error
	if read, ok := r.Body.(*reqbody.Body); ok {
		b = read.Bytes() // read by the HTTP layer within its budget: no copy
	} else {
		b, err = io.ReadAll(io.LimitReader(r.Body, MaxMessage+1))
	}
	if err != nil {
		return nil, false // the client went while sending
	}
	if len(b) > MaxMessage {
		h.rec.event(recording.Entry{Event: recording.EventLimit, Dir: recording.ClientToServer, HTTP: x.fact(false, ""),
			Note: fmt.Sprintf("a request body over %d bytes was refused (413)", MaxMessage)})
		writeRPCError(w, http.StatusRequestEntityTooLarge, nil, fmt.Sprintf("%s: a request body over %d MiB is refused", Name, MaxMessage>>20))
		return nil, false
	}
	body = b
	rpc := isRPC(body)
	if rpc && r.Method == http.MethodPost && !jsonMedia(r.Header.Get("Content-Type")) {
		// A message in a form or plain text is what a page of another
		// site can send without asking first: the go-sdk's handler
		// (and so the project's endpoint) refuses it, and so does the
		// proxy, whatever the server behind it would do.
		writeRPCError(w, http.StatusUnsupportedMediaType, nil, fmt.Sprintf("%s: a JSON-RPC message must be posted as application/json, not %q", Name, r.Header.Get("Content-Type")))
		return nil, false
	}
	// Known before the message is written, which may hold one inside a
	// longer text.
	h.noteGuessed(r, body)
	if rpc {
		x.hasJSON = true
		x.id = requestID(body)
		h.rec.messages(recording.ClientToServer, body, x.fact(false, ""))
	} else if len(bytes.TrimSpace(body)) > 0 {
		h.rec.check(h.o.Rec.Message(recording.ClientToServer, body, x.fact(false, "")))
	}
	return body, true
}

// forward sends the request on to the server and its answer back to the
// client, recording what passes.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, x *exchange, body []byte) {
	out, err := h.outbound(r, body)
	if err != nil {
		writeRPCError(w, http.StatusBadRequest, x.id, fmt.Sprintf("%s: %v", Name, err))
		return
	}
	resp, err := h.transport.RoundTrip(out)
	if err != nil {
		if r.Context().Err() != nil {
			h.clientGone(x, "the client went away before the server answered")
			return
		}
		why := "the server did not answer: " + err.Error()
		h.serverGone(x, why)
		writeRPCError(w, http.StatusBadGateway, x.id, fmt.Sprintf("%s: the server at %s did not answer", Name, credential.RedactURL(h.o.Server.String())))
		return
	}
	defer resp.Body.Close()
	h.answered()
	h.o.Rec.AddSecrets(h.responseSecrets(resp)...)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		x.facts.Session = h.sessionLabel(sid, nil)
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	x.facts.Status, x.facts.ContentType = resp.StatusCode, media

	h.rewriteHeaders(x, resp.Header)
	copyHeader(w.Header(), resp.Header)
	switch {
	case media == "text/event-stream":
		h.stream(w, resp, x)
	case isResourceMetadata(r.URL.Path) && resp.StatusCode == http.StatusOK:
		h.resourceMetadata(w, resp, x)
	default:
		h.body(w, resp, x)
	}
}

// fact returns the exchange's facts for one entry, with the event id of
// the message it carries.
func (x *exchange) fact(answer bool, eventID string) *recording.HTTP {
	f := x.facts
	if !answer {
		f.Status, f.ContentType = 0, ""
	}
	f.EventID = eventID
	return &f
}

// outbound is the request to the server: the client's, to the server's
// origin, with its hop-by-hop headers left out.
func (h *Handler) outbound(r *http.Request, body []byte) (*http.Request, error) {
	u := *h.o.Server
	u.Path, u.RawPath, u.RawQuery = r.URL.Path, r.URL.RawPath, r.URL.RawQuery
	u.User, u.Fragment = nil, ""
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	copyHeader(out.Header, r.Header)
	out.Header.Del("Accept-Encoding")
	out.Host = h.o.Server.Host
	if body != nil {
		out.ContentLength = int64(len(body))
	}
	return out, nil
}

// body forwards an answer that is not an event stream: held whole (up to
// MaxMessage, past smallHold only with one of the places for a large
// message), recorded, then written; a larger one passes unrecorded.
func (h *Handler) body(w http.ResponseWriter, resp *http.Response, x *exchange) {
	held, err := io.ReadAll(io.LimitReader(resp.Body, smallHold+1))
	unheld := "" // why the answer passes unrecorded
	if err == nil && len(held) > smallHold {
		if h.takeLarge(x) {
			defer h.giveLarge(x)
			var more []byte
			more, err = io.ReadAll(io.LimitReader(resp.Body, MaxMessage+1-int64(len(held))))
			held = append(held, more...)
			if len(held) > MaxMessage {
				unheld = fmt.Sprintf("an answer over %d bytes was forwarded unrecorded", MaxMessage)
			}
		} else {
			unheld = largeNote("an answer")
		}
	}
	if err != nil {
		if x.r.Context().Err() != nil {
			h.clientGone(x, "the client went away before the answer ended")
			return
		}
		h.serverGone(x, "the server's answer broke: "+err.Error())
		panic(http.ErrAbortHandler)
	}
	switch {
	case unheld != "":
		h.rec.event(recording.Entry{Event: recording.EventLimit, Dir: recording.ServerToClient, HTTP: x.fact(true, ""), Note: unheld})
	case isRPC(held):
		h.rec.messages(recording.ServerToClient, held, x.fact(true, ""))
	default:
		h.rec.event(recording.Entry{Event: recording.EventHTTP, HTTP: x.fact(true, ""), Note: describeAnswer(resp, held)})
	}
	w.WriteHeader(resp.StatusCode)
	if _, err := w.Write(held); err != nil {
		h.clientGone(x, "the client went away while the answer was written")
		return
	}
	if unheld != "" {
		if _, err := io.Copy(w, resp.Body); err != nil && x.r.Context().Err() != nil {
			h.clientGone(x, "the client went away while the answer was written")
		}
	}
}

// stream forwards an event stream as it comes, each piece written and
// flushed as soon as it is read, each event recorded before the piece that
// ends it is written.
func (h *Handler) stream(w http.ResponseWriter, resp *http.Response, x *exchange) {
	if x.r.Method != http.MethodPost {
		// A GET stream carries no request: say that it opened.
		h.rec.event(recording.Entry{Event: recording.EventHTTP, HTTP: x.fact(true, ""), Note: "event stream opened"})
	}
	rc := http.NewResponseController(w)
	w.WriteHeader(resp.StatusCode)
	// The headers go at once on a GET stream, which may say nothing for
	// long; on a POST's, with its first piece, or on their own if none
	// comes within headerWait.
	var late *headerFlush
	if x.r.Method == http.MethodPost {
		late = flushLater(rc)
		defer late.stop()
	} else {
		_ = rc.Flush()
	}
	events := eventstream.NewReader(wire.MaxMessage, func(e eventstream.Event) { h.streamEvent(x, e) })
	defer h.giveLarge(x)
	bp, _ := h.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, streamBuf)
		bp = &b
	}
	defer h.bufs.Put(bp)
	buf := *bp
	first := x.r.Method == http.MethodGet && h.o.SSE
	var pending []byte // the start of the stream, held until its first event ends
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			piece := buf[:n]
			if first {
				var done bool
				pending, piece, done = h.firstEvent(x, events, pending, piece)
				first = !done
			} else {
				events.Write(piece)
			}
			h.checkHold(x, events)
			if len(piece) > 0 {
				if late != nil {
					late.stop() // the headers go with the piece
					late = nil
				}
				if _, werr := w.Write(piece); werr != nil {
					h.clientGone(x, "the client closed the event stream "+x.facts.Stream)
					return
				}
				if ferr := rc.Flush(); ferr != nil {
					h.clientGone(x, "the client closed the event stream "+x.facts.Stream)
					return
				}
			}
		}
		if err == io.EOF {
			if len(pending) > 0 {
				_, _ = w.Write(pending)
			}
			late.flush() // a stream that ended empty is sent as one, as before
			return
		}
		if err != nil {
			if x.r.Context().Err() != nil {
				h.clientGone(x, "the client closed the event stream "+x.facts.Stream)
				return
			}
			h.serverGone(x, "the server's event stream "+x.facts.Stream+" broke: "+err.Error())
			// The client sees the stream break, as it would without the
			// proxy, not a stream that ended in order: after the headers,
			// as the server sent them.
			late.flush()
			panic(http.ErrAbortHandler)
		}
	}
}

// headerWait is how long the headers of a POST's event stream wait for its
// first piece to go with.
const headerWait = 10 * time.Millisecond

// headerFlush sends an answer's headers on their own unless the first
// piece of its body comes within headerWait: they go with it, in one
// write instead of two.
type headerFlush struct {
	mu   sync.Mutex
	rc   *http.ResponseController
	t    *time.Timer
	done bool // the headers went, or go with what the handler writes next
}

// flushLater flushes rc's headers after headerWait, unless stopped first.
func flushLater(rc *http.ResponseController) *headerFlush {
	f := &headerFlush{rc: rc}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = time.AfterFunc(headerWait, f.flush)
	return f
}

// flush sends the headers, unless they went or go with a piece.
func (f *headerFlush) flush() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.done {
		f.done = true
		_ = f.rc.Flush()
	}
}

// stop keeps the headers for what the handler writes next: once it
// returns, f touches the response no more.
func (f *headerFlush) stop() {
	if f == nil {
		return
	}
	f.t.Stop()
	f.mu.Lock()
	f.done = true
	f.mu.Unlock()
}

// firstEvent feeds piece to events one byte at a time, holding what it
// fed, until the stream's first event ends; then it returns what to write:
// the held bytes (or, for the endpoint event of the 2024-11-05 transport
// naming the server's origin, the event naming the proxy's) and the rest of
// piece. Past maxFirstEvent it gives up and lets the bytes pass as they
// are.
func (h *Handler) firstEvent(x *exchange, events *eventstream.Reader, pending, piece []byte) (held, write []byte, done bool) {
	for i := range piece {
		before := x.events
		events.Write(piece[i : i+1])
		pending = append(pending, piece[i])
		if x.events == before && len(pending) <= maxFirstEvent {
			continue
		}
		out := pending
		if e := x.endpoint; e != nil {
			if u, ok := h.rewriteEndpoint(x, string(e.Data)); ok {
				out = encodeEvent(e.Type, e.ID, u)
			}
		}
		rest := piece[i+1:]
		events.Write(rest)
		return nil, append(out, rest...), true
	}
	return pending, nil, false
}

// checkHold lets the event being read go unrecorded when it grows past
// smallHold and no place to hold a large message is free.
func (h *Handler) checkHold(x *exchange, events *eventstream.Reader) {
	if x.large || x.dropped || events.Pending() <= smallHold || h.takeLarge(x) {
		return
	}
	events.Drop()
	x.dropped = true
	h.rec.event(recording.Entry{Event: recording.EventLimit, Dir: recording.ServerToClient, HTTP: x.fact(true, ""), Note: largeNote("an event")})
}

// streamEvent records one event of a stream.
func (h *Handler) streamEvent(x *exchange, e eventstream.Event) {
	x.events++
	// The event held is whole: its place, if it took one, is free again.
	defer h.giveLarge(x)
	switch {
	case x.dropped && e.Over:
		x.dropped = false // its limit event is written
	case e.Over:
		h.rec.event(recording.Entry{Event: recording.EventLimit, Dir: recording.ServerToClient, HTTP: x.fact(true, e.ID),
			Note: fmt.Sprintf("an event over %d bytes was forwarded unrecorded", MaxMessage)})
	case e.Type == "endpoint":
		data := string(e.Data)
		if ref, err := h.o.Server.Parse(data); err == nil {
			h.o.Rec.AddSecrets(credential.Secrets(ref.String(), nil)...)
			h.o.Rec.AddSecrets(credential.Secrets(data, nil)...)
			x.facts.Session = h.endpointSession(ref.Query())
		}
		kept := e
		kept.Data = bytes.Clone(e.Data)
		x.endpoint = &kept
		h.rec.event(recording.Entry{Event: recording.EventHTTP, Dir: recording.ServerToClient, HTTP: x.fact(true, e.ID),
			Note: "endpoint event: " + data})
	case e.Type == "" || e.Type == "message":
		if len(bytes.TrimSpace(e.Data)) == 0 {
			return // a priming event: an id to resume from, no message
		}
		h.rec.messages(recording.ServerToClient, e.Data, x.fact(true, e.ID))
	default:
		h.rec.event(recording.Entry{Event: recording.EventHTTP, Dir: recording.ServerToClient, HTTP: x.fact(true, e.ID),
			Note: fmt.Sprintf("an event of type %q, %d bytes", e.Type, len(e.Data))})
	}
}

// encodeEvent writes an event as a stream carries it.
func encodeEvent(typ, id, data string) []byte {
	var b bytes.Buffer
	if typ != "" {
		fmt.Fprintf(&b, "event: %s\n", typ)
	}
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	for _, l := range strings.Split(data, "\n") {
		fmt.Fprintf(&b, "data: %s\n", l)
	}
	b.WriteString("\n")
	return b.Bytes()
}

// rewriteEndpoint returns the endpoint URL naming the proxy's origin when
// it names the server's.
func (h *Handler) rewriteEndpoint(x *exchange, data string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(data))
	if err != nil || !u.IsAbs() {
		return "", false
	}
	if !sameOrigin(u, h.o.Server) {
		fmt.Fprintf(h.o.Log, "%s: note: the server's endpoint event names another origin (%s): the client's messages to it bypass the proxy, unrecorded\n", Name, origin(u))
		return "", false
	}
	return toPublic(x, u), true
}

// toPublic returns u, on the server's origin, on the proxy's.
func toPublic(x *exchange, u *url.URL) string {
	c := *u
	c.Scheme, c.Host = x.public.Scheme, x.public.Host
	return c.String()
}

// rewriteHeaders makes the server's own URLs in the answer's headers name
// the proxy: a redirect's Location, the resource_metadata of a challenge.
func (h *Handler) rewriteHeaders(x *exchange, hd http.Header) {
	if loc := hd.Get("Location"); loc != "" {
		if u, err := url.Parse(loc); err == nil && u.IsAbs() && sameOrigin(u, h.o.Server) {
			hd.Set("Location", toPublic(x, u))
		}
	}
	if vs := hd.Values("Www-Authenticate"); len(vs) > 0 {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = h.rewriteChallenge(x, v)
		}
		hd["Www-Authenticate"] = out
	}
}

// rewriteChallenge rewrites the resource_metadata parameter of a
// WWW-Authenticate value (quoted or not) when it names the server's origin.
func (h *Handler) rewriteChallenge(x *exchange, v string) string {
	const param = "resource_metadata="
	var b strings.Builder
	for {
		i := indexFold(v, param)
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		i += len(param)
		b.WriteString(v[:i])
		v = v[i:]
		quoted := strings.HasPrefix(v, `"`)
		end := strings.IndexAny(v, ", \t")
		if quoted {
			end = strings.IndexByte(v[1:], '"')
			if end >= 0 {
				end += 2
			}
		}
		if end < 0 {
			end = len(v)
		}
		raw := v[:end]
		val := strings.Trim(raw, `"`)
		if u, err := url.Parse(val); err == nil && u.IsAbs() && sameOrigin(u, h.o.Server) {
			val = toPublic(x, u)
			if quoted {
				raw = `"` + val + `"`
			} else {
				raw = val
			}
		}
		b.WriteString(raw)
		v = v[end:]
	}
}

func indexFold(s, sub string) int {
	return strings.Index(strings.ToLower(s), strings.ToLower(sub))
}

// isResourceMetadata reports whether path is where a protected resource's
// metadata is read (RFC 9728: the well-known name, then the resource's
// path).
func isResourceMetadata(path string) bool {
	const wk = "/.well-known/oauth-protected-resource"
	return path == wk || strings.HasPrefix(path, wk+"/")
}

// resourceMetadata forwards protected resource metadata with its
// "resource" naming the proxy where it names the server's origin.
func (h *Handler) resourceMetadata(w http.ResponseWriter, resp *http.Response, x *exchange) {
	held, err := io.ReadAll(io.LimitReader(resp.Body, smallHold+1))
	if err != nil || len(held) > smallHold {
		h.body(w, &http.Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(io.MultiReader(bytes.NewReader(held), resp.Body))}, x)
		return
	}
	note := describeAnswer(resp, held)
	if out, from, to, ok := h.rewriteResource(x, held); ok {
		held = out
		w.Header().Set("Content-Length", strconv.Itoa(len(held)))
		note += fmt.Sprintf("; its resource %s is given as %s, the proxy's address", from, to)
	}
	h.rec.event(recording.Entry{Event: recording.EventHTTP, HTTP: x.fact(true, ""), Note: note})
	w.WriteHeader(resp.StatusCode)
	if _, err := w.Write(held); err != nil {
		h.clientGone(x, "the client went away while the answer was written")
	}
}

// rewriteResource replaces the string value of the top-level "resource"
// member of a JSON object when it is a URL on the server's origin; every
// other byte stays.
func (h *Handler) rewriteResource(x *exchange, doc []byte) (out []byte, from, to string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", "", false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, "", "", false
		}
		start := dec.InputOffset()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, "", "", false
		}
		if k != "resource" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, "", "", false
		}
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() || !sameOrigin(u, h.o.Server) {
			return nil, "", "", false
		}
		end := dec.InputOffset()
		// The value starts after the colon and any space.
		at := start + int64(bytes.IndexByte(doc[start:end], '"'))
		to = toPublic(x, u)
		q, _ := json.Marshal(to)
		out = append(append(append([]byte{}, doc[:at]...), q...), doc[end:]...)
		return out, s, to, true
	}
	return nil, "", "", false
}

// describeAnswer says in a few words what an answer without JSON-RPC was.
func describeAnswer(resp *http.Response, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		fmt.Fprintf(&b, ", %s", ct)
	}
	fmt.Fprintf(&b, ", %d bytes", len(body))
	if c := resp.Header.Values("Www-Authenticate"); len(c) > 0 {
		fmt.Fprintf(&b, "; WWW-Authenticate: %s", strings.Join(c, ", "))
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		fmt.Fprintf(&b, "; Location: %s", loc)
	}
	return b.String()
}

// clientGone records that the client left an exchange unfinished; the
// server's side of it is closed with it (the request's context ends).
func (h *Handler) clientGone(x *exchange, how string) {
	if h.stopping.Load() {
		return
	}
	h.rec.event(recording.Entry{Event: recording.EventClientGone, Dir: recording.ClientToServer, HTTP: x.fact(x.facts.Status != 0, ""),
		Note: how + "; the server's side of it was closed"})
}

// serverGone records that the server could not be reached or broke an
// answer off.
func (h *Handler) serverGone(x *exchange, why string) {
	h.mu.Lock()
	h.gone = why
	h.mu.Unlock()
	fmt.Fprintf(h.o.Log, "%s: %s\n", Name, why)
	h.rec.event(recording.Entry{Event: recording.EventServerGone, Dir: recording.ServerToClient, HTTP: x.fact(x.facts.Status != 0, ""), Note: why})
}

func (h *Handler) answered() {
	h.mu.Lock()
	h.gone = ""
	h.mu.Unlock()
}

// sessionLabel returns the label of the session id ("s1", "s2", … in
// the order they appear), or of a session named in the query (the
// 2024-11-05 transport's message URL); "" when there is none.
func (h *Handler) sessionLabel(id string, q url.Values) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id == "" {
		for _, vs := range q {
			for _, v := range vs {
				if l, ok := h.sessions[v]; ok {
					return l
				}
			}
		}
		return ""
	}
	return h.labelLocked(id)
}

func (h *Handler) labelLocked(id string) string {
	if l, ok := h.sessions[id]; ok {
		return l
	}
	if len(h.sessions) >= maxSessions {
		return "s-more"
	}
	l := "s" + strconv.Itoa(len(h.sessions)+1)
	h.sessions[id] = l
	return l
}

// endpointSession labels the session an endpoint URL's query names (a
// parameter named like a session), and returns its label.
func (h *Handler) endpointSession(q url.Values) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, vs := range q {
		if credential.Name(k) && len(vs) > 0 && vs[0] != "" {
			return h.labelLocked(vs[0])
		}
	}
	return ""
}

// requestSecrets are the credentials a request carries by the name of
// their header or their form: credential headers (Authorization, DPoP,
// Cookie, Mcp-Session-Id, API keys), tokens, each cookie's value, and
// tokens in its URL. The headers that mirror the message (Mcp-Method,
// Mcp-Name, Mcp-Param-…) give none: a task id in Mcp-Name, hidden, would
// be hidden in every message that names the task (see credential.Header).
// The values only guessed to be secrets are [guessedSecrets].
func (h *Handler) requestSecrets(r *http.Request) []string {
	var lines []string
	for k, vs := range r.Header {
		for _, v := range vs {
			if h.headerKind(k, v) == kindCredential {
				lines = append(lines, k+": "+v)
			}
		}
	}
	return credential.Secrets("http://proxy"+r.URL.RequestURI(), lines)
}

// headerKind is what the credential rules make of a header line of a
// request: a credential (its name, or its value's form, says so), a value
// only guessed to be one (credential.Header), or neither.
type headerKind uint8

const (
	kindCredential headerKind = iota + 1
	kindGuessed
	// 0: neither
)

// What a Handler remembers of the header lines it has read: up to
// maxKinds lines of at most maxKindLine bytes each. Clients send the same
// lines with every request; the rules need not read them again.
const (
	maxKinds    = 1024
	maxKindLine = 256
)

// credentialName is credential.Name, read once for the names of an
// answer's headers that come again.
func (h *Handler) credentialName(name string) bool {
	h.kindMu.Lock()
	c, ok := h.names[name]
	h.kindMu.Unlock()
	if ok {
		return c
	}
	c = credential.Name(name)
	if len(name) <= maxKindLine {
		h.kindMu.Lock()
		if len(h.names) < maxKinds {
			h.names[name] = c
		}
		h.kindMu.Unlock()
	}
	return c
}

// headerLine is a header's name and one of its values, as sent.
type headerLine struct{ name, value string }

// headerKind returns what the credential rules make of the header line
// name: value, read once for the lines that come again.
func (h *Handler) headerKind(name, value string) headerKind {
	line := headerLine{name, value}
	h.kindMu.Lock()
	k, ok := h.kinds[line]
	h.kindMu.Unlock()
	if ok {
		return k
	}
	v := strings.TrimSpace(value)
	switch {
	case credential.Name(name) || credential.Token(v):
		k = kindCredential
	case credential.Header(name, v):
		k = kindGuessed
	}
	if len(name)+len(value) <= maxKindLine {
		h.kindMu.Lock()
		if len(h.kinds) < maxKinds {
			h.kinds[line] = k
		}
		h.kindMu.Unlock()
	}
	return k
}

// noteGuessed tells the recording the values of r's other headers, none
// of HTTP's or MCP's own, that look generated (credential.Header: a
// tenant's token under a name of its own): hidden as guessed secrets but
// for those the message r carries (body) holds as a string of its own,
// which are the message's content (a request id or a task id copied from
// the message into a header) and are kept from then on, whatever an
// earlier request without them (a probe) made of them.
func (h *Handler) noteGuessed(r *http.Request, body []byte) {
	guessed, held := h.guessedSecrets(r, body)
	h.o.Rec.KeepAsContent(held...)
	h.o.Rec.AddGuessed(guessed...)
}

// guessedSecrets are the values of r's other headers that look generated
// (see noteGuessed), those the message r carries (body) does not hold and
// those it holds.
func (h *Handler) guessedSecrets(r *http.Request, body []byte) (guessed, held []string) {
	var lines, heldLines []string
	for k, vs := range r.Header {
		for _, v := range vs {
			if h.headerKind(k, v) != kindGuessed {
				continue // a credential known already, or none
			}
			v = strings.TrimSpace(v)
			if bytes.Contains(body, []byte(strconv.Quote(v))) {
				heldLines = append(heldLines, k+": "+v)
				continue
			}
			lines = append(lines, k+": "+v)
		}
	}
	return credential.Secrets("", lines), credential.Secrets("", heldLines)
}

// responseSecrets are the credentials an answer carries in its headers:
// a session id, cookies set.
// A challenge (WWW-Authenticate) holds no credential, however much its
// "Bearer" looks like one.
func (h *Handler) responseSecrets(resp *http.Response) []string {
	var lines []string
	for k, vs := range resp.Header {
		if h.credentialName(k) {
			for _, v := range vs {
				lines = append(lines, k+": "+v)
			}
		}
	}
	return credential.Secrets(resp.Header.Get("Location"), lines)
}

// hopByHop are the headers of one connection, not forwarded (RFC 9110
// section 7.6.1), with those a Connection header names.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// copyHeader copies src into dst, but for the hop-by-hop headers.
func copyHeader(dst, src http.Header) {
	conn := src.Values("Connection")
	for k, vs := range src {
		if hopHeader(http.CanonicalHeaderKey(k), conn) {
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
}

// hopHeader reports whether the header named k (canonical) belongs to one
// connection: one of hopByHop, or one a Connection header (its values
// conn) names.
func hopHeader(k string, conn []string) bool {
	if slices.Contains(hopByHop, k) {
		return true
	}
	for _, v := range conn {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f != "" && http.CanonicalHeaderKey(f) == k {
				return true
			}
		}
	}
	return false
}

// requestID returns the id of a single JSON-RPC request, nil otherwise.
func requestID(body []byte) json.RawMessage {
	if id, sure := quickRequestID(body); sure {
		return id
	}
	return decodedRequestID(body)
}

// decodedRequestID is requestID by decoding body.
func decodedRequestID(body []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return nil
	}
	return m.ID
}

// writeRPCError answers in the server's place: a JSON-RPC error naming the
// proxy, for the request's id when it had one.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32000, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// loopbackHost reports whether a Host header names a loopback address or
// localhost.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// ErrNotLoopback is returned by CheckListen for an address that is not on
// loopback.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckListen reports whether addr (host:port) is on loopback: 127.0.0.0/8,
// ::1 or localhost. An address that is no HOST:PORT at all is refused as
// listen.CheckAddr refuses it.
func CheckListen(addr string) error {
	if err := listen.CheckAddr(addr); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if !loopbackHost(host) {
		return ErrNotLoopback
	}
	return nil
}

// Serve serves h on ln until ctx ends, then stops: the streams still open
// are closed (h is told it is stopping, so that their end is not recorded
// as the clients').
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, h *Handler) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	h.Stopping()
	_ = srv.Close()
	<-errc
	return nil
}

// jsonMedia reports whether a Content-Type is application/json.
func jsonMedia(contentType string) bool {
	media, _, err := mime.ParseMediaType(contentType)
	return err == nil && media == "application/json"
}

// quickRequestID is requestID of a body whose keys are plain (see
// plainKey), read without decoding it; sure is false when they are not and
// only the decoder can say.
func quickRequestID(body []byte) (id json.RawMessage, sure bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, len(body) > 0 && body[0] == '[' // a batch is no request of its own
	}
	var method []byte
	ids, methods := 0, 0
	plain := jsonscan.Members(body, func(m jsonscan.Member) bool {
		if !plainKey(m.Key) {
			return false
		}
		switch {
		case bytes.EqualFold(m.Key, []byte("id")):
			id, ids = m.Value, ids+1
		case bytes.EqualFold(m.Key, []byte("method")):
			method, methods = m.Value, methods+1
		}
		return true
	})
	if !plain || ids > 1 || methods > 1 {
		return nil, false
	}
	// The method must decode to a string that is not empty: a string of
	// more than its quotes (null and no member leave it empty, any other
	// value fails the decoding).
	if methods == 0 || method[0] != '"' || len(method) == 2 || ids == 0 {
		return nil, true
	}
	return id, true
}

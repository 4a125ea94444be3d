package target

import (
	"cmp"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/credential"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBody bounds a response body that is not an event stream (a JSON
// answer, an error page), and each line and each event of one that is: the
// bound the go-sdk puts on one message of a stdio server, so that one
// message is bounded the same on every transport.
const MaxBody = mcp.DefaultMaxLineLength

// headerTransport sends the target's headers with every request, and only
// to the target's own origin: a request to anywhere else (a redirect, or
// the endpoint a legacy SSE stream names) is refused before anything is
// sent, so that neither the headers nor a login's token (added by the
// RoundTrippers below it) reach another server. It bounds the bodies of
// the answers that are not event streams to MaxBody, and each event (and
// each line) of those that are.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
	// origin is the target's URL; nil lets every request through.
	origin *url.URL
	// refused, when not nil, keeps the first refusal.
	refused *refusal
	// answers, when not nil, keeps what the server answered.
	answers *answers
	// urlName names the target's URL in the caller's terms, for
	// OtherOriginError.
	urlName string
	// inflight, when not nil, keeps the requests under way (see inflight).
	inflight *inflight
}

// refusal keeps the first error a guard refused something with.
type refusal struct {
	mu  sync.Mutex
	err error
}

// note keeps err when it is the first, and returns it.
func (r *refusal) note(err error) error {
	if r == nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	return err
}

func (r *refusal) get() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.origin != nil && !sameOrigin(h.origin, r.URL) {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, h.refused.note(&OtherOriginError{Target: h.origin.String(), To: r.URL.String(), URLName: h.urlName})
	}
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range h.headers {
			r.Header.Del(k)
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
	}
	done := func() {}
	if h.inflight != nil {
		tracked, end, err := h.inflight.start(r)
		if err != nil {
			if r.Body != nil {
				r.Body.Close()
			}
			return nil, err
		}
		r, done = tracked, end
	}
	resp, err := h.base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		done()
		return resp, err
	}
	resp.Body = &doneBody{ReadCloser: resp.Body, done: done}
	resp = h.answers.noteHTTP(r, resp)
	if isEventStream(resp.Header.Get("Content-Type")) {
		// A stream lasts as long as the session may: its events are
		// bounded, one by one, not its length.
		resp.Body = &boundedEvents{rc: resp.Body, max: MaxBody, refused: h.refused}
		return resp, nil
	}
	resp.Body = &boundedBody{rc: resp.Body, max: MaxBody, refused: h.refused}
	return resp, nil
}

// OtherOriginError is a request the server sent the tester on to another
// origin than the one it was told to talk to.
type OtherOriginError struct {
	Target string // the URL given
	To     string // where the server sent the tester
	// URLName names the way to give the target's URL in the caller's
	// terms ([Target.Name]); "" names it as Target's field.
	URLName string
}

func (e *OtherOriginError) Error() string {
	return fmt.Sprintf("the server sent the tester on to %s (a redirect, or the endpoint of an SSE stream), away from %s: not followed, so that headers and logins go to no other server; to talk to that server, name it with %s",
		credential.RedactURL(e.To), origin(credential.RedactURL(e.Target)), cmp.Or(e.URLName, OptionURL.String()))
}

// origin returns the scheme and host of a URL.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}

// sameOrigin reports whether u is on target's origin: the same host and
// port, and the same scheme, or https where the target says http (an
// upgrade to TLS on the same host).
func sameOrigin(target, u *url.URL) bool {
	ts, us := strings.ToLower(target.Scheme), strings.ToLower(u.Scheme)
	if !strings.EqualFold(target.Hostname(), u.Hostname()) {
		return false
	}
	switch {
	case ts == us:
		return portOf(target) == portOf(u)
	case ts == "http" && us == "https":
		return u.Port() == "" || u.Port() == "443"
	}
	return false
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

func isEventStream(contentType string) bool {
	t, _, _ := mime.ParseMediaType(contentType)
	return t == "text/event-stream"
}

// boundedBody fails a body that grows past max instead of letting a
// reader hold it all.
type boundedBody struct {
	rc      io.ReadCloser
	max     int64
	n       int64
	refused *refusal
}

// ErrBodyTooLarge is what reading an answer larger than MaxBody returns.
var ErrBodyTooLarge = fmt.Errorf("the server's answer is larger than %d MiB; refused", MaxBody>>20)

// ErrEventTooLarge is what reading an event (or a line) of an event stream
// larger than MaxBody returns: on the stream of a request's answer or on the
// one a server opens for messages of its own.
var ErrEventTooLarge = fmt.Errorf("an event the server sent on an event stream is larger than %d MiB; refused", MaxBody>>20)

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.n > b.max {
		return 0, ErrBodyTooLarge
	}
	if left := b.max + 1 - b.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return n - int(b.n-b.max), b.refused.note(ErrBodyTooLarge)
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// boundedEvents fails an event stream one of whose events, or one of whose
// lines, grows past max, instead of letting the reader above it (the
// go-sdk's, which keeps an event until the blank line that ends it) hold it
// all: a server that sends one endless data line, or data lines with no
// blank line between them, would grow the tester without end. Comment
// lines (":" first) count too, as the go-sdk keeps them with the event
// until its blank line. Lines end with CRLF, LF or CR, as the event stream
// format says.
type boundedEvents struct {
	rc      io.ReadCloser
	max     int64
	refused *refusal
	line    int64 // bytes of the line being read
	event   int64 // bytes of the event being read
	cr      bool  // the last byte was a CR (a LF after it ends no other line)
	err     error // the refusal, once made
}

func (b *boundedEvents) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	for i, c := range p[:n] {
		switch {
		case c == '\n' && b.cr:
			b.cr = false
		case c == '\r' || c == '\n':
			if b.line == 0 {
				b.event = 0 // a blank line ends the event
			}
			b.line, b.cr = 0, c == '\r'
		default:
			b.cr = false
			b.line++
			b.event++
			if b.event > b.max {
				b.err = b.refused.note(ErrEventTooLarge)
				return i, b.err
			}
		}
	}
	return n, err
}

func (b *boundedEvents) Close() error { return b.rc.Close() }

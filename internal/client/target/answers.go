package target

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
	"strconv"
	"strings"
	"sync"

	"github.com/askback/askback/internal/text/lazyre"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headLen is how many bytes of an answer are kept to say what came back
// when it was not JSON-RPC.
const headLen = 64

// answers keeps what a Conn's server answered, as far as the tester read
// it, so that a connection that failed on an answer can say what came
// back: the last HTTP answer (not an acknowledgement), or, on stdio, the
// first message that could not be read.
type answers struct {
	mu    sync.Mutex
	last  *httpAnswer
	stdio error
	// untied is the first error tied to no request a command server
	// wrote (see Untied), once the go-sdk refused it.
	untied *Untied
	// wrong is the answer found wrong: the connection ended on it, and
	// every later request fails for it.
	wrong *WrongAnswerError
	// gen counts the HTTP answers kept as last.
	gen int
}

// httpAnswer is one HTTP answer: its status, content type and first bytes.
type httpAnswer struct {
	status int
	ctype  string
	head   []byte
	keep   int   // how many first bytes head keeps
	n      int64 // bytes read so far
	ended  bool  // read to its end
	// retryAfter is the Retry-After of an answer that says the server
	// is not there now (transient).
	retryAfter string
	// events reads an event stream's events for an error tied to no
	// request; nil for a body that is no event stream.
	events *events
	ev     lines
}

// untied is the error tied to no request the answer was, or carried
// last (an event stream), or nil.
func (a *httpAnswer) untied() *Untied {
	if a.events != nil {
		return a.events.untied
	}
	if a.ended && int64(len(a.head)) == a.n {
		return readUntied(a.head)
	}
	return nil
}

// unavailableLen is how many bytes of an answer that says the server is
// not there now (transient) are kept: a server's 503 says why in a
// sentence or two (too many sessions, and what to do).
const unavailableLen = 512

// Unavailable says what the server said when its last HTTP answer was one
// that says it is not there now (429, 502, 503, 504: see transient): the
// status, the first line of its body and its Retry-After, everything from
// the server escaped; "" otherwise. A refused initialize then tells why,
// not only "Service Unavailable".
func (c *Conn) Unavailable() string {
	c.answers.mu.Lock()
	defer c.answers.mu.Unlock()
	a := c.answers.last
	if a == nil || !transient(a.status) {
		return ""
	}
	s := fmt.Sprintf("the server answered HTTP %d %s", a.status, http.StatusText(a.status))
	if line, _, _ := strings.Cut(strings.TrimSpace(string(a.head)), "\n"); line != "" {
		more := ""
		if len(line) < int(a.n) && (len(line) == len(a.head) || !a.ended) {
			more = "…"
		}
		s += fmt.Sprintf(": \"%s%s\"", termsafe.Line(clip(line, unavailableLen)), more)
	}
	if a.retryAfter != "" {
		s += fmt.Sprintf(" (Retry-After: %s)", termsafe.Line(clip(a.retryAfter, headLen)))
	}
	return s
}

// describe says what the answer was, everything from the server escaped
// (internal/text/termsafe) and its body clipped to its first bytes.
func (a *httpAnswer) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP %d %s", a.status, http.StatusText(a.status))
	if a.ctype == "" {
		b.WriteString(", no Content-Type")
	} else {
		fmt.Fprintf(&b, ", Content-Type %q", termsafe.Line(clip(a.ctype, headLen)))
	}
	switch {
	case a.n == 0 && a.ended:
		b.WriteString(", an empty body")
	case a.n == 0:
		b.WriteString(", no body read")
	default:
		head := clip(string(a.head), headLen)
		more := ""
		if int64(len(head)) < a.n || !a.ended {
			more = "…"
		}
		size := fmt.Sprintf("%d bytes", a.n)
		if !a.ended {
			size = fmt.Sprintf("at least %d bytes", a.n)
		}
		fmt.Fprintf(&b, ", %s: \"%s%s\"", size, termsafe.Line(head), more)
	}
	return b.String()
}

// clip cuts s to at most max bytes where a rune starts.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// WrongAnswerError is a server that was reached and answered, but not
// with JSON-RPC: a web page, plain text, an empty body, bytes that are not
// JSON, JSON that is not a JSON-RPC message, an HTTP error status.
type WrongAnswerError struct {
	// Answer says what came back (HTTP: status, content type, first
	// bytes; stdio: why it could not be read), escaped.
	Answer string
	// Stdio says that the server is a command that wrote it on stdout.
	Stdio bool
	// Untied, when not nil, is the answer read as JSON-RPC: an error the
	// server tied to no request (id null or absent). Answer is then the
	// HTTP answer's status (over HTTP), or "".
	Untied *Untied
	// Depth, when not 0, says that the message was JSON-RPC as far as the
	// tester read it, but nested deeper than its reader reads (Depth
	// levels): the limit is the tester's, not a rule the server broke.
	Depth int
}

func (e *WrongAnswerError) Error() string {
	if e.Untied != nil {
		if e.Stdio {
			return "the server wrote on its stdout " + e.Untied.String()
		}
		s := "the server answered with " + e.Untied.String()
		if e.Answer != "" {
			s += " (" + e.Answer + ")"
		}
		return s
	}
	if e.Depth > 0 {
		where := "the server answered"
		if e.Stdio {
			where = "the server wrote on its stdout"
		}
		s := fmt.Sprintf("%s a message nested more than %d deep, which the tester does not read (its reader's limit, not a rule of JSON-RPC)", where, e.Depth)
		if !e.Stdio && e.Answer != "" {
			s += ": " + e.Answer
		}
		return s
	}
	if e.Stdio {
		return "the server wrote on its stdout what is not JSON-RPC: " + e.Answer
	}
	return "the server answered, but not with JSON-RPC: " + e.Answer
}

// WrongAnswer returns, for err of a connect or a request that failed,
// what the server answered instead of JSON-RPC, or nil when the failure
// was not an answer (nothing came back: a refused connection, a name that
// does not resolve, TLS, a time limit; or a gateway's 502, 503 or 504 and
// a 429, which say the server is not there now). connecting says that err
// ended the connect, before which the server gave no usable answer: any
// answer that came back is then the wrong one. After the connect, only an
// answer the go-sdk could not read (or an HTTP error status) counts.
func (c *Conn) WrongAnswer(err error, connecting bool) *WrongAnswerError {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return nil
	}
	c.answers.mu.Lock()
	defer c.answers.mu.Unlock()
	if c.answers.wrong != nil && errors.Is(err, mcp.ErrConnectionClosed) {
		return c.answers.wrong
	}
	w := c.answers.find(err, connecting)
	if w != nil {
		c.answers.wrong = w
	}
	return w
}

// find is WrongAnswer, with the lock held.
func (as *answers) find(err error, connecting bool) *WrongAnswerError {
	if as.untied != nil {
		return &WrongAnswerError{Untied: as.untied, Stdio: true}
	}
	if as.stdio != nil {
		return &WrongAnswerError{Answer: termsafe.Line(clip(as.stdio.Error(), 4*headLen)), Stdio: true, Depth: tooDeep(as.stdio.Error())}
	}
	a := as.last
	if a == nil || transient(a.status) {
		return nil
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return nil // the connection itself failed
	}
	if u := a.untied(); u != nil && (connecting || a.status/100 != 2 || unreadable(err.Error()) || strings.Contains(err.Error(), "invalid request")) {
		return &WrongAnswerError{Answer: fmt.Sprintf("HTTP %d %s", a.status, http.StatusText(a.status)), Untied: u}
	}
	if connecting || a.status/100 != 2 || unreadable(err.Error()) {
		return &WrongAnswerError{Answer: a.describe(), Depth: tooDeep(err.Error())}
	}
	return nil
}

// depthRe is the go-sdk's error for a message nested deeper than its
// reader reads.
var depthRe = lazyre.New(`exceeded maximum nesting depth of ([0-9]+)`)

// tooDeep is the nesting limit an error of reading a message says was
// passed, or 0.
func tooDeep(msg string) int {
	m := depthRe.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// notJSONRPC reports whether err of reading a message says that what
// was read is not JSON, or not a JSON-RPC message.
func notJSONRPC(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"unmarshaling jsonrpc message", "invalid message version tag", "invalid ID type", "invalid trailing data", "empty batch", "batching is not supported"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// unreadable reports whether a go-sdk error says that an answer came back
// that it could not read as JSON-RPC.
func unreadable(msg string) bool {
	for _, s := range []string{"failed to decode response", "unsupported content type", "failed to read body", "invalid message version tag", "looking for beginning of value", "malformed event", "malformed line in SSE stream"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// transient reports the statuses that say the server is not there now
// rather than that it answered wrongly.
func transient(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// generation counts the answers noted so far, for forgetBefore.
func (as *answers) generation() int {
	if as == nil {
		return 0
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.gen
}

// forgetBefore forgets the last answer when no answer came since gen: a
// request that then failed without an answer of its own must not be
// blamed on an earlier answer (which was read fine, or already blamed).
func (as *answers) forgetBefore(gen int) {
	if as == nil {
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.gen == gen {
		as.last = nil
	}
}

// noteHTTP keeps resp as the last answer unless it is an acknowledgement
// (202 or 204 to a POST, 405 to the GET of a stream a server does not
// offer), and returns it with its body read through a recorder of its
// first bytes. A body the go-sdk will not read (a content type other than
// JSON or an event stream) has its first bytes read at once.
func (as *answers) noteHTTP(r *http.Request, resp *http.Response) *http.Response {
	if as == nil || resp.Body == nil {
		return resp
	}
	switch {
	case r.Method == http.MethodPost && (resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent),
		r.Method == http.MethodGet && resp.StatusCode == http.StatusMethodNotAllowed,
		r.Method != http.MethodPost && r.Method != http.MethodGet:
		return resp
	}
	a := &httpAnswer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), keep: headLen}
	media, _, _ := mime.ParseMediaType(a.ctype)
	switch {
	case transient(resp.StatusCode):
		a.keep, a.retryAfter = unavailableLen, resp.Header.Get("Retry-After")
	case media == "application/json":
		// Whole, when it is small: an error tied to no request is read
		// from it (see Untied).
		a.keep = untiedLen
	case media == "text/event-stream":
		a.events = &events{}
		a.ev.line = a.events.line
	}
	as.mu.Lock()
	as.last = a
	as.gen++
	as.mu.Unlock()
	body := &headBody{rc: resp.Body, a: a, mu: &as.mu}
	resp.Body = body
	if media != "application/json" && media != "text/event-stream" {
		// Read the first bytes now: the go-sdk closes such a body unread.
		p := make([]byte, a.keep)
		n, _ := io.ReadFull(body, p)
		resp.Body = &replayed{Reader: io.MultiReader(bytes.NewReader(p[:n]), body), c: body}
	}
	return resp
}

// headBody keeps the first bytes of a body and counts the rest.
type headBody struct {
	rc io.ReadCloser
	a  *httpAnswer
	mu *sync.Mutex
}

func (b *headBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	if k := b.a.keep - len(b.a.head); k > 0 {
		b.a.head = append(b.a.head, p[:min(n, k)]...)
	}
	b.a.n += int64(n)
	if b.a.events != nil {
		b.a.ev.feed(p[:n])
	}
	if err == io.EOF {
		b.a.ended = true
	}
	b.mu.Unlock()
	return n, err
}

func (b *headBody) Close() error { return b.rc.Close() }

type replayed struct {
	io.Reader
	c io.Closer
}

func (r *replayed) Close() error { return r.c.Close() }

// readNoting wraps a command server's transport so that the first
// message it wrote that could not be read (not JSON, not JSON-RPC) is
// kept in as.
type readNoting struct {
	inner mcp.Transport
	as    *answers
	watch *stdoutWatch // what the command wrote, or nil
}

func (t *readNoting) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &readNotingConn{Connection: c, as: t.as, watch: t.watch}, nil
}

type readNotingConn struct {
	mcp.Connection
	as    *answers
	watch *stdoutWatch
	// next is the error every later read returns: the connection ended
	// on a message the go-sdk could not read.
	next error
}

func (c *readNotingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.next != nil {
		return nil, c.next
	}
	msg, err := c.Connection.Read(ctx)
	if err != nil && invalidRequest(err) {
		c.as.mu.Lock()
		u := c.watch.first()
		if u != nil && c.as.untied == nil && c.as.stdio == nil {
			c.as.untied = u.Untied
		}
		c.as.mu.Unlock()
		if u != nil {
			// Hand the message on, as the go-sdk would not, for the
			// trace to show, then end the connection on it: the go-sdk
			// drops a response it cannot tie to a request, and the
			// request it answered would wait for ever.
			c.next = &WrongAnswerError{Untied: u.Untied, Stdio: true}
			return u.msg, nil
		}
	}
	if err != nil && notJSONRPC(err) {
		c.as.mu.Lock()
		if c.as.stdio == nil {
			c.as.stdio = err
		}
		c.as.mu.Unlock()
	}
	return msg, err
}

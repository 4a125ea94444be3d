package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/text/runecut"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one client over in and out (a client launched the
// stand-in as its server command): only JSON-RPC frames are written to
// out. It returns when the client closes its side, ctx ends, or a drop
// fault closes the connection (out is then closed if it can be, so that
// the client sees the server's output end). The requests read before the
// client's input ended are answered first; those the end cut short (a
// question to the client unanswered, an answer that could not be
// written) are each a ProblemUnanswered.
func (s *Standin) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	conn := newDroppable(in, out, func(n int, why string) {
		s.rep.problem(Problem{Kind: ProblemMalformed, Request: fmt.Sprintf("the client's line %d", n), Detail: why})
	})
	ended := newInputEnd(ctx.Done())
	s.mu.Lock()
	s.drop = conn.drop
	s.stdin = ended
	s.readsTaskParam = true // the connection reads params.task
	s.mu.Unlock()
	inner := &endTransport{inner: &mcp.IOTransport{Reader: conn, Writer: conn}, e: ended}
	ss, err := s.server.Connect(ctx, &taskTransport{inner: inner}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Interrupted: the input is closed, so that the requests in
		// progress (a question waiting for the client) are cut short
		// and the session can close.
		ended.interrupt()
		conn.Close()
		ss.Close()
		err = <-done
	}
	if conn.dropped() {
		return nil
	}
	if ended.interrupted() {
		s.rep.update(func(r *Report) { r.Interrupted = true })
	}
	for _, lbl := range ended.cutShort() {
		s.rep.problem(Problem{Kind: ProblemUnanswered, Request: lbl, Detail: ended.cutDetail(lbl)})
	}
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, syscall.EPIPE) || ctx.Err() != nil) {
		// The client closed its side, or left (its end of the pipe gone).
		return nil
	}
	return err
}

// droppable is a stdio connection a fault can drop: reads end (EOF) and
// writes go nowhere, and the output is closed.
type droppable struct {
	out io.Writer
	pr  *io.PipeReader
	pw  *io.PipeWriter

	mu   sync.Mutex
	gone bool
}

func newDroppable(in io.Reader, out io.Writer, bad func(n int, why string)) *droppable {
	pr, pw := io.Pipe()
	d := &droppable{out: out, pr: pr, pw: pw}
	go func() {
		// What is no message is answered and reported here; the rest
		// goes on to the go-sdk.
		err := clientLines(in, pw, d.Write, bad)
		if errors.Is(err, io.EOF) {
			err = nil
		}
		if err == nil {
			err = io.EOF
		}
		pw.CloseWithError(err)
	}()
	return d
}

func (d *droppable) Read(p []byte) (int, error) { return d.pr.Read(p) }

func (d *droppable) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gone {
		return 0, errDropped
	}
	return d.out.Write(p)
}

// Close ends reading; the output stays open for the process to close.
func (d *droppable) Close() error {
	d.pr.CloseWithError(io.EOF)
	return nil
}

func (d *droppable) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gone {
		return
	}
	d.gone = true
	if c, ok := d.out.(io.Closer); ok {
		c.Close()
	}
	d.pr.CloseWithError(io.EOF)
}

func (d *droppable) dropped() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gone
}

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// MaxSessions bounds the open sessions of 2025-11-25 clients
	// (DefaultMaxSessions when zero). One client may hold them all: a
	// stand-in's clients are a test's, most often at one address (a
	// bench's workers, a test suite's clients), which the endpoint's
	// bound per caller would count as one. When they are all open, a
	// client's initialize takes the place of its address's session idle
	// the longest (no request in progress: a client that left without
	// closing its session, as many do); it is refused (503) only when
	// they are all busy, or held by other addresses as many as it holds.
	MaxSessions int
	// Full, if set, is added to the text of a refused initialize: what
	// to raise (mcp-tester serve says --max-sessions).
	Full string
	// MaxBody bounds a request body (the go-sdk's default when zero).
	MaxBody int64
	// QuestionTimeout bounds the wait for a 2025-11-25 client's answer
	// to a question (endpoint.DefaultQuestionTimeout when zero): a
	// question not answered by then is reported unanswered.
	QuestionTimeout time.Duration
}

// DefaultMaxSessions is HTTPOptions.MaxSessions when zero: as many
// sessions as mcp-tester bench has workers at most, each a session.
const DefaultMaxSessions = 1000

// Handler serves the script over Streamable HTTP at every path, for both
// eras on one endpoint (endpoint.Handler): 2026-07-28 requests stateless,
// 2025-11-25 clients in sessions of their own. A drop fault closes the
// connection of a request it names without an answer.
func (s *Standin) Handler(opts HTTPOptions) http.Handler {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.QuestionTimeout <= 0 {
		opts.QuestionTimeout = endpoint.DefaultQuestionTimeout
	}
	s.mu.Lock()
	s.questionTimeout = opts.QuestionTimeout
	s.mu.Unlock()
	// No place is kept for callers holding none (ReservedSessions): one
	// address may hold every session, and when all are open its
	// initialize takes the place of its own session idle the longest
	// (the endpoint's bound per caller, at MaxSessions too), instead of
	// being refused because the kept places are not its to take.
	eo := &endpoint.Options{MaxSessions: opts.MaxSessions, MaxSessionsPerUser: opts.MaxSessions, ReservedSessions: -1,
		QuestionTimeout: opts.QuestionTimeout, Now: s.opts.Now}
	eo.HTTP.MaxRequestBodyBytes = opts.MaxBody
	var h http.Handler = endpoint.New(func(*http.Request) *mcp.Server { return s.server }, eo)
	if opts.Full != "" {
		h = refusalSays(h, opts.Full)
	}
	if s.script.hasTasks2025() {
		// params.task read on the way in: recorded tasks run as tasks.
		s.mu.Lock()
		s.readsTaskParam = true
		s.mu.Unlock()
		h = taskBodies(h)
	}
	var drops []Fault
	for _, f := range s.opts.Faults {
		if f.Kind == FaultDrop {
			drops = append(drops, f)
		}
	}
	if len(drops) > 0 {
		h = s.dropping(h, drops)
	}
	return s.malformedPosts(h, opts.MaxBody)
}

// malformedPosts is h with each POST whose body is no JSON-RPC message, or
// a request whose id is null, reported as ProblemMalformed, as a line of
// the client's input is over stdio (the go-sdk answers it: HTTP 400). A
// POST is named by its number among the POSTs the stand-in received, from
// all its clients, and its path. A body over max (the go-sdk's bound when
// zero) is not read for it: a later layer refuses it whole.
func (s *Standin) malformedPosts(h http.Handler, max int64) http.Handler {
	if max <= 0 {
		max = defaultMaxBody
	}
	var posts atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		n := posts.Add(1)
		body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
		if err != nil || int64(len(body)) > max {
			// Passed on as it came, for the layers after to refuse.
			r.Body = &replayBody{Reader: io.MultiReader(bytes.NewReader(body), r.Body), c: r.Body}
			h.ServeHTTP(w, r)
			return
		}
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
		post := fmt.Sprintf("the client's POST %d (%s)", n, termsafe.Line(runecut.Clip(r.URL.Path, 200)))
		if why, _ := malformed(body); why != "" {
			s.rep.problem(Problem{Kind: ProblemMalformed, Request: post, Detail: why})
		} else if err := ask.CheckMessage(body); err != nil && ask.Refuse(body, err).Reply != nil {
			// A request the endpoint refuses before the stand-in sees it
			// (a key twice: read two ways), as the stand-in refuses its
			// params over stdio.
			s.rep.problem(Problem{Kind: ProblemRefused, Request: post, Detail: "the stand-in refused it on its own: " + termsafe.Line(err.Error())})
		}
		h.ServeHTTP(w, r)
	})
}

// defaultMaxBody is the go-sdk's bound on a request body, which the
// Handler keeps when HTTPOptions.MaxBody is zero.
const defaultMaxBody = mcp.DefaultMaxRequestBodyBytes

// replayBody reads what was read of a body, then the rest of it.
type replayBody struct {
	io.Reader
	c io.Closer
}

func (b *replayBody) Close() error { return b.c.Close() }

// dropping is h with the connection of a request a drop fault names
// closed without an answer.
func (s *Standin) dropping(h http.Handler, drops []Fault) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			// The body has been read whole within its bound already
			// (httpserve.Bodies); this reads it from memory.
			body, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			method, name := requestNamed(body)
			for _, f := range drops {
				if f.applies(method, name) {
					s.rep.fault(f, label(method, name))
					// net/http closes the connection without a response.
					panic(http.ErrAbortHandler)
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// refusalSays is h with full added to the text of each 503 answer (an
// initialize refused for want of a session's place).
func refusalSays(h http.Handler, full string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &refusedText{ResponseWriter: w}
		h.ServeHTTP(rw, r)
		if rw.refused {
			text := strings.TrimRight(rw.body.String(), "\n")
			io.WriteString(w, text+" ("+full+")\n")
		}
	})
}

// refusedText holds back the text of a 503 answer, for refusalSays to add to.
type refusedText struct {
	http.ResponseWriter
	refused bool
	body    bytes.Buffer
}

func (rw *refusedText) WriteHeader(code int) {
	if code == http.StatusServiceUnavailable {
		rw.refused = true
		rw.Header().Del("Content-Length")
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *refusedText) Write(p []byte) (int, error) {
	if rw.refused {
		if rw.body.Len() < 4096 {
			rw.body.Write(p[:min(len(p), 4096)])
		}
		return len(p), nil
	}
	return rw.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// read deadlines).
func (rw *refusedText) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// Flush flushes what is not held back.
func (rw *refusedText) Flush() {
	if f, ok := rw.ResponseWriter.(http.Flusher); ok && !rw.refused {
		f.Flush()
	}
}

// requestNamed is the method of a posted request and the tool or prompt
// name or resource URI it names; "" for a body that is no JSON object.
func requestNamed(body []byte) (method, name string) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return "", ""
	}
	if m.Method == "resources/read" {
		return m.Method, m.Params.URI
	}
	return m.Method, m.Params.Name
}

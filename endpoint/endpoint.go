// Package endpoint serves an MCP server over Streamable HTTP at one
// endpoint for clients of both protocol eras.
//
// A request of protocol 2026-07-28 or newer (its MCP-Protocol-Version
// header says so) is served statelessly: it carries everything it needs,
// any instance can serve it, and a server asks its questions in the result
// (input_required). A client of 2025-11-25 or older opens a session with
// initialize and is served in that session, so that questions reach it as
// server-initiated elicitation/create requests (the go-sdk turns a
// handler's input_required result into those for older clients). A request
// of an older client that opens no session is served statelessly, as a
// stateless endpoint always did.
//
// What each era costs: a 2026-07-28 request costs nothing beyond itself. A
// 2025-11-25 session lives in the memory of the instance that opened it:
// behind several instances, requests carrying its Mcp-Session-Id must reach
// that instance (route on the header), and a restart ends it. Sessions are
// bounded in number ([Options.MaxSessions]) and per caller
// ([Options.MaxSessionsPerUser]: a user, or an anonymous client, as
// subject.Share names them), a question a session's client is asked waits at
// most [Options.QuestionTimeout], and a session is closed when idle
// ([Options.SessionTimeout]): when its client has gone, its place comes back.
// When every place is taken, a caller holding none still finds one of the
// places kept for newcomers ([Options.ReservedSessions]), or takes one from
// the caller holding the most: an idle session first, else a busy one whose
// calls are ended. No request waits for a session to close: a session given
// up is closed in the background (its calls ended, its questions failed),
// so that a newcomer is answered at once, with a session or with 503 and
// Retry-After, however many addresses hold sessions and however long their
// questions wait.
//
// Every POST is read whole before it is served (to tell an initialize
// request from others, and so that the go-sdk's handler never waits on a
// client's connection): at most the body limit of the go-sdk's handler
// (Options.HTTP.MaxRequestBodyBytes; [DefaultMaxPeek] when that is not
// positive; 413 beyond) within [Options.BodyReadTimeout] (408 after it; 30
// seconds by default), so that a client trickling its body cannot hold the
// handler, even on a plain http.Server without a ReadTimeout. The time limit
// is set on the connection (http.ResponseController's SetReadDeadline);
// behind a ResponseWriter that cannot set one it does not apply. A layer of
// the project in front (the example servers' internal/server/httpserve,
// tasks.RoutingHeaders) reads within the same limits, or tighter ones, and
// the body is not read again.
//
// Every POST body is checked with ask.CheckMessage before the go-sdk reads
// it: a message the go-sdk would read otherwise than other readers (a key
// twice, answers in another letter case) is refused (-32602 for a
// request), and an initialize is told from other requests as the go-sdk
// reads the method.
package endpoint

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/askback/askback/internal/server/reqbody"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [Options].
const (
	DefaultSessionTimeout = 10 * time.Minute
	DefaultMaxSessions    = 1000
	// DefaultMaxSessionsPerUser bounds the sessions of one authenticated
	// user.
	DefaultMaxSessionsPerUser = 16
	// DefaultMaxPeek bounds how much of a sessionless POST body is read to
	// tell an initialize request from others, unless
	// Options.HTTP.MaxRequestBodyBytes sets a limit of its own; it is the
	// go-sdk's own default limit.
	DefaultMaxPeek = 4 << 20
	// DefaultBodyReadTimeout bounds the time taken to read a POST body.
	DefaultBodyReadTimeout = reqbody.DefaultTimeout
	// DefaultQuestionTimeout bounds the wait for the answer to a request
	// the server sends a session's client (elicitation/create, and
	// sampling/createMessage, roots/list, ping): as long as a session may
	// stay idle.
	DefaultQuestionTimeout = DefaultSessionTimeout
)

// Modern is the first protocol version served without sessions.
const Modern = "2026-07-28"

// Options configure a [Handler]. The zero value works.
type Options struct {
	// HTTP is given to both inner go-sdk handlers (JSONResponse, Logger,
	// EventStore, DisableLocalhostProtection, CrossOriginProtection, ...).
	// Its Stateless and SessionTimeout fields are set by the Handler.
	HTTP mcp.StreamableHTTPOptions
	// SessionTimeout closes a 2025-11-25 session that has had no POST in
	// progress for this long (a GET stream alone does not keep it, as in the
	// go-sdk): its calls still waiting for an answer are ended first, so
	// that a client that left in the middle of a question frees its session
	// then, not at QuestionTimeout. Zero means DefaultSessionTimeout; it
	// cannot be turned off.
	SessionTimeout time.Duration
	// MaxSessions bounds the open 2025-11-25 sessions. Of them,
	// ReservedSessions are kept for callers that hold none. When all a
	// caller may use are taken, its initialize takes the place of a session
	// of a caller holding at least two more than it: an idle session (no
	// request in progress) of such a caller first, the caller holding the
	// most first, idle the longest; else the least recently used session of
	// the caller holding the most, whose calls in progress are ended (their
	// questions fail). Callers at many addresses cannot keep another out:
	// each has at least an equal share. The session given up is closed in
	// the background: the initialize never waits for it. When no session
	// may go, the initialize is answered 503 at once, with Retry-After.
	// Zero means DefaultMaxSessions.
	MaxSessions int
	// ReservedSessions are the places of MaxSessions that only a caller
	// holding no session may take: a new client finds a place without
	// waiting for anyone's to be given up, even while clients at many
	// addresses hold all the others. Zero means MaxSessions/10; negative
	// means none.
	ReservedSessions int
	// MaxSessionsPerUser bounds the open sessions of one caller: an
	// authenticated user (the user of the request's TokenInfo, as
	// subject.OfToken reads it, set by the go-sdk's bearer-token middleware
	// in front of the Handler) or, for a request without one, its client
	// address (see Proxies), both as subject.Share names them. A caller's
	// initialize beyond it closes that caller's session idle the longest,
	// or, when all of them are busy (a call waiting for its answer, a GET
	// stream), is answered 503: one caller cannot take every place. Zero
	// means DefaultMaxSessionsPerUser.
	MaxSessionsPerUser int
	// QuestionTimeout bounds the wait for the answer to each request the
	// server sends a session's client (elicitation/create above all): a
	// question not answered in time fails, with an error that says so, and
	// the call that asked it ends, so that a client that never answers
	// cannot hold its session, and the goroutines serving it, for ever.
	// Zero means DefaultQuestionTimeout; negative means no limit.
	QuestionTimeout time.Duration
	// Proxies are the proxies whose header names the client of a request
	// without a user (subject.Proxies); nil believes no header, and the
	// client is the connection's peer. A layer in front that named the
	// client on the request's context (subject.Clients; the example
	// servers' internal/server/httpserve) is believed instead.
	Proxies *subject.Proxies
	// BodyReadTimeout bounds the time a POST body takes to arrive (it is
	// read whole before it is served); a body not read in time is answered
	// 408 Request Timeout. Zero means
	// DefaultBodyReadTimeout; negative means no limit here (for a server
	// that bounds reads itself, e.g. with http.Server.ReadTimeout).
	BodyReadTimeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// SessionsOnly serves every request in sessions, as protocol 2025-11-25
	// does, for a server whose handlers hold a call open and ask with
	// elicitation/create; with the same bounds on sessions. A POST without
	// a session that is not an initialize is refused with 400.
	SessionsOnly bool
}

// Handler is an http.Handler for one MCP endpoint that serves both eras.
// Make it with [New]; the zero Handler is not usable (it has no server to
// serve and no bounds).
type Handler struct {
	stateless http.Handler
	stateful  http.Handler
	opts      Options

	mu       sync.Mutex
	sessions map[string]*session // open 2025-11-25 sessions by id
	opening  map[string]int      // initialize requests being served, by caller (subject.Share)
	nopening int                 // of them, in all
	closing  map[string]*session // sessions given up, being closed in the background
	callSeq  uint64              // numbers the calls in progress of sessions
	openSeq  uint64              // numbers the initialize requests (openingHeader)
	openMark string              // this Handler's mark on its numbers: random, never sent to a client
	opens    map[uint64]*opened  // the initialize requests being served, by number

	boundMu sync.Mutex
	bounded map[weak.Pointer[mcp.Server]]struct{} // servers whose questions are bounded
}

// session is what the Handler knows of an open session.
type session struct {
	last     time.Time       // when its last request began or ended
	busy     int             // its requests in progress (a GET stream, a call waiting for an answer)
	posts    int             // of them, POSTs: while one is in progress, the session is not idle
	quiet    time.Time       // when its last POST ended (or it opened)
	idle     *time.Timer     // closes it SessionTimeout after quiet (closeIfIdle)
	ended    error           // why it was given up (closeLaterLocked)
	deleting bool            // its client's DELETE is being served: a new call ends at once
	user     string          // the authenticated user that opened it, if any
	share    string          // the caller it counts against (subject.Share)
	ctx      context.Context // the opening request's values (its user's token), to close it
	url      string          // the endpoint's URL and host, to close it
	host     string
	calls    map[uint64]context.CancelCauseFunc // its requests the server is handling, to end them when it is given up
}

// New returns a Handler serving the server getServer returns for each
// request (as for mcp.NewStreamableHTTPHandler). opts may be nil.
func New(getServer func(*http.Request) *mcp.Server, opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessionsPerUser <= 0 {
		o.MaxSessionsPerUser = DefaultMaxSessionsPerUser
	}
	if o.ReservedSessions == 0 {
		o.ReservedSessions = o.MaxSessions / 10
	}
	o.ReservedSessions = min(max(o.ReservedSessions, 0), o.MaxSessions-1)
	if o.BodyReadTimeout == 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.QuestionTimeout == 0 {
		o.QuestionTimeout = DefaultQuestionTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	stateless, stateful := o.HTTP, o.HTTP
	stateless.Stateless, stateless.SessionTimeout = true, 0
	// The Handler closes idle sessions itself (closeIfIdle): the go-sdk's
	// own timer would wait, in Close, for calls whose questions nobody
	// will answer.
	stateful.Stateless, stateful.SessionTimeout = false, 0
	h := &Handler{
		opts:     o,
		sessions: map[string]*session{},
		opening:  map[string]int{},
		closing:  map[string]*session{},
		opens:    map[uint64]*opened{},
		openMark: rand.Text(),
		bounded:  map[weak.Pointer[mcp.Server]]struct{}{},
	}
	bounding := func(r *http.Request) *mcp.Server {
		s := getServer(r)
		if s != nil {
			h.boundQuestions(s)
		}
		return s
	}
	h.stateless = mcp.NewStreamableHTTPHandler(bounding, &stateless)
	h.stateful = mcp.NewStreamableHTTPHandler(bounding, &stateful)
	return h
}

// boundQuestions bounds, once per server, the wait for the answers to the
// requests s sends its clients (Options.QuestionTimeout), and lets the
// Handler end the calls of a session it gives up (endable). The servers
// seen are remembered weakly: a getServer that makes a server per request
// does not grow the Handler.
func (h *Handler) boundQuestions(s *mcp.Server) {
	wp := weak.Make(s)
	h.boundMu.Lock()
	defer h.boundMu.Unlock()
	if _, ok := h.bounded[wp]; ok {
		return
	}
	h.bounded[wp] = struct{}{}
	runtime.AddCleanup(s, func(wp weak.Pointer[mcp.Server]) {
		h.boundMu.Lock()
		delete(h.bounded, wp)
		h.boundMu.Unlock()
	}, wp)
	if h.opts.QuestionTimeout >= 0 {
		s.AddSendingMiddleware(h.questionTimeout)
	}
	s.AddReceivingMiddleware(h.endable)
}

// endable is receiving middleware that gives each request of a session the
// Handler tracks a context the Handler ends when it gives the session up
// (closeLater): the call ends, and with it the questions it waits on, so
// that closing the session (which the go-sdk does only when its calls have
// returned) does not wait for their answers. A request of a session being
// closed ends at once.
func (h *Handler) endable(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || ss == nil {
			return next(ctx, method, req)
		}
		id := ss.ID()
		if method == "initialize" {
			h.initialized(req, ss)
		}
		h.mu.Lock()
		s := h.sessions[id]
		if s != nil && s.deleting {
			h.mu.Unlock()
			return nil, errSessionDeleted
		}
		if s == nil {
			closing := h.closing[id]
			h.mu.Unlock()
			if closing != nil {
				return nil, closing.ended
			}
			return next(ctx, method, req) // not one of the tracked sessions (stateless)
		}
		h.callSeq++
		n := h.callSeq
		cctx, cancel := context.WithCancelCause(ctx)
		if s.calls == nil {
			s.calls = map[uint64]context.CancelCauseFunc{}
		}
		s.calls[n] = cancel
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(s.calls, n)
			h.mu.Unlock()
			cancel(nil)
		}()
		res, err := next(cctx, method, req)
		if cause := context.Cause(cctx); err != nil && ctx.Err() == nil && cause != nil && !errors.Is(err, cause) {
			// Ended by the Handler: say why, not only "context canceled".
			err = fmt.Errorf("%v: %w", cause, err)
		}
		return res, err
	}
}

// errSessionGivenUp ends the calls of a session the Handler gave up.
var errSessionGivenUp = errors.New("the session was closed to give its place to another client (endpoint.Options.MaxSessions)")

// errSessionIdle ends the calls of a session closed for being idle: its
// client made no request for SessionTimeout, so nobody will answer them.
var errSessionIdle = errors.New("the session was closed: its client made no request for endpoint.Options.SessionTimeout")

// errSessionDeleted ends the calls of a session its client closed (DELETE).
var errSessionDeleted = errors.New("the client closed the session")

// questionTimeout is sending middleware that bounds each request to the
// client (not notifications) by Options.QuestionTimeout.
func (h *Handler) questionTimeout(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		qctx, cancel := context.WithTimeoutCause(ctx, h.opts.QuestionTimeout, errQuestionTimeout)
		defer cancel()
		res, err := next(qctx, method, req)
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(qctx), errQuestionTimeout) {
			return res, fmt.Errorf("%s: the client did not answer within %v (endpoint.Options.QuestionTimeout): %w", method, h.opts.QuestionTimeout, err)
		}
		return res, err
	}
}

// errQuestionTimeout is the cause of a question's end at QuestionTimeout.
var errQuestionTimeout = errors.New("question timed out")

// Sessions returns the number of open 2025-11-25 sessions.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	h.sweepLocked()
	n := len(h.sessions)
	h.mu.Unlock()
	return n
}

// Closing returns the number of sessions given up that are still being
// closed in the background (their calls have not yet returned).
func (h *Handler) Closing() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.closing)
}

// BodyLimits returns the limits within which the Handler reads a request's
// body (see the package documentation): a layer in front that reads the body
// first (tasks.RoutingHeaders) reads within them too.
func (h *Handler) BodyLimits() (max int64, timeout time.Duration) {
	return h.peekLimit(), h.opts.BodyReadTimeout
}

// ServeHTTP routes r to the stateless or the session handler. A POST is
// first read and checked with ask.CheckMessage: a request the go-sdk would
// read otherwise than other readers (a key twice, answers in another
// letter case) is answered -32602 without reaching it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = subject.WithRequestClient(r, h.opts.Proxies)
	r.Header.Del(openingHeader) // the Handler's own (open)
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		body, err = reqbody.Read(w, r, reqbody.Limits{Max: h.peekLimit(), Timeout: h.opts.BodyReadTimeout})
		if err != nil {
			reqbody.Refuse(w, err)
			return
		}
		var ok bool
		if body, ok = screen(w, r, body); !ok {
			return
		}
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= Modern && !h.opts.SessionsOnly {
		h.stateless.ServeHTTP(w, r)
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h.serveSession(w, r, id)
		return
	}
	if r.Method != http.MethodPost {
		// GET and DELETE belong to a session, which this request names not.
		h.stateful.ServeHTTP(w, r)
		return
	}
	if !opensSession(body) {
		if h.opts.SessionsOnly {
			// Refused here: the go-sdk would open a session for it, one
			// that no bound counts.
			http.Error(w, "this endpoint serves requests in sessions only: send initialize first, then the session's Mcp-Session-Id with each request", http.StatusBadRequest)
			return
		}
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.open(w, r)
}

// serveSession serves a request of an open session and keeps it alive. A
// session belongs to the user who opened it, as subject.OfToken reads the
// user (UserID, else "sub"): another user's request, or one without the
// user, is refused with 403 before it reaches the session. (The go-sdk
// checks UserID only: with a verifier that names the user in "sub", anyone
// holding the session id could use it, and answer its questions.) A request
// of a session given up, still being closed, is answered 404 as the go-sdk
// answers one it closed.
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request, id string) {
	user := subject.OfToken(auth.TokenInfoFromContext(r.Context()))
	// A DELETE the go-sdk would refuse (another Host, a cross-origin
	// request, an unknown protocol version) ends nothing.
	deletes := r.Method == http.MethodDelete && h.passesChecks(r)
	h.mu.Lock()
	s := h.sessions[id]
	if s == nil {
		if _, closing := h.closing[id]; closing {
			h.mu.Unlock()
			http.Error(w, "session not found: it was closed", http.StatusNotFound)
			return
		}
	}
	if s != nil && s.user != user {
		h.mu.Unlock()
		http.Error(w, "session user mismatch: the session was opened by another user", http.StatusForbidden)
		return
	}
	post := r.Method == http.MethodPost
	if s != nil {
		s.last = h.opts.Now()
		s.busy++
		if post {
			s.posts++
		}
		if deletes {
			// The go-sdk closes the session only once its calls have
			// returned: a call waiting for an answer the client, leaving,
			// will never give would hold the DELETE (and the place) until
			// QuestionTimeout. A call that begins meanwhile ends at once
			// (endable), so that none starts waiting after these ended.
			s.deleting = true
			endCallsLocked(s, errSessionDeleted)
		}
	}
	h.mu.Unlock()
	rec := &statusWriter{ResponseWriter: w}
	h.stateful.ServeHTTP(rec, r)
	h.mu.Lock()
	defer h.mu.Unlock()
	if s != nil {
		s.last = h.opts.Now()
		s.busy--
		if post {
			if s.posts--; s.posts == 0 {
				s.quiet = s.last
				s.idle.Reset(h.opts.SessionTimeout)
			}
		}
	}
	if r.Method != http.MethodDelete || s == nil {
		// A 404 of another request does not say the session is gone:
		// the go-sdk answers 404 to an unknown method of protocol
		// 2026-07-28 too. A session the go-sdk closed otherwise is
		// given up when idle (closeIfIdle), its place counted till then.
		return
	}
	if rec.status/100 == 2 || rec.status == http.StatusNotFound {
		if h.sessions[id] == s {
			delete(h.sessions, id)
			s.idle.Stop()
		}
		return
	}
	s.deleting = false // refused: the session goes on
}

// passesChecks reports whether the go-sdk's handler lets the DELETE r
// through the checks it makes of every request before it looks for the
// session (the Host of a server on loopback, cross-origin protection and
// its exceptions, the protocol version header): it is sent the same
// request for a session that cannot exist, which it then answers 404
// having done nothing.
func (h *Handler) passesChecks(r *http.Request) bool {
	probe := r.Clone(r.Context())
	probe.Body, probe.ContentLength = http.NoBody, 0
	probe.Header.Set("Mcp-Session-Id", "no session: a probe of the endpoint's checks")
	rec := &statusWriter{ResponseWriter: discard{header: http.Header{}}}
	h.stateful.ServeHTTP(rec, probe)
	return rec.status == http.StatusNotFound
}

// endCallsLocked ends the calls of s the server is handling, with cause.
func endCallsLocked(s *session, cause error) {
	for _, cancel := range s.calls {
		cancel(cause)
	}
}

// closeIfIdle closes the session id, s, if it has had no POST in progress
// for SessionTimeout, ending its calls first; or waits the rest of that
// time. A session with a POST in progress is looked at again when its last
// one ends.
func (h *Handler) closeIfIdle(id string, s *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions[id] != s || s.posts > 0 {
		return
	}
	if quiet := h.opts.Now().Sub(s.quiet); quiet < h.opts.SessionTimeout {
		s.idle.Reset(h.opts.SessionTimeout - quiet)
		return
	}
	h.closeLaterLocked(id, errSessionIdle)
}

// open serves an initialize request, which opens a session, unless too
// many are open, in all or of its caller. Its place is taken before it is
// served, so that many initialize requests at once cannot open more than
// MaxSessions, nor one caller more than MaxSessionsPerUser. A session given
// up for it is closed in the background: open never waits for one.
func (h *Handler) open(w http.ResponseWriter, r *http.Request) {
	user := subject.OfToken(auth.TokenInfoFromContext(r.Context()))
	share := subject.Share(r.Context(), user)
	h.mu.Lock()
	h.sweepLocked()
	callerFull, full := h.admitLocked(share)
	h.mu.Unlock()
	if callerFull || full {
		h.refuseOpen(w, share, callerFull)
		return
	}
	// The place taken becomes the session as soon as its id is known, or
	// is given back when the request ends without one.
	reserved := true
	unreserve := func() {
		if reserved {
			reserved = false
			h.nopening--
			if share != "" {
				if h.opening[share]--; h.opening[share] <= 0 {
					delete(h.opening, share)
				}
			}
		}
	}
	kept := context.WithoutCancel(r.Context())
	h.mu.Lock()
	h.openSeq++
	n := h.openSeq
	op := &opened{}
	h.opens[n] = op
	h.mu.Unlock()
	r.Header.Set(openingHeader, h.openMark+"."+strconv.FormatUint(n, 10))
	rec := &statusWriter{ResponseWriter: w, onHeader: func(hdr http.Header) {
		if id := hdr.Get("Mcp-Session-Id"); id != "" {
			h.mu.Lock()
			now := h.opts.Now()
			s := &session{last: now, quiet: now, user: user, share: share, ctx: kept, url: r.URL.String(), host: r.Host}
			s.idle = time.AfterFunc(h.opts.SessionTimeout, func() { h.closeIfIdle(id, s) })
			h.sessions[id] = s
			op.told, op.id = true, id
			unreserve()
			h.mu.Unlock()
		}
	}}
	defer func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		unreserve()
		delete(h.opens, n)
		switch {
		case op.ss != nil && !op.told:
			// The go-sdk made a session whose id its client was never
			// told (it left before the answer): nobody will use it. (Its
			// close waits for its initialize to return.)
			go op.ss.Close()
		case op.told && (op.ss == nil || op.ss.InitializeParams() == nil):
			// The initialize failed (the go-sdk could not read it): the
			// go-sdk closed the session whose id it told, and it no
			// longer counts.
			if s := h.sessions[op.id]; s != nil {
				delete(h.sessions, op.id)
				s.idle.Stop()
			}
		}
	}()
	h.stateful.ServeHTTP(rec, r)
}

// openingHeader carries the number of an initialize request the Handler
// serves (open) to its initialize handler (initialized), so that the
// session the go-sdk makes for it is known even when its answer never
// reaches the client. The number bears the Handler's random mark: another
// Handler serving the same server, or a plain go-sdk handler passing a
// client's own header on, is not taken for this one. A client's own value
// is dropped (ServeHTTP).
const openingHeader = "X-Askback-Opening"

// opened is what the Handler knows of an initialize request it serves:
// the session the go-sdk made for it, and whether the client was told its
// id.
type opened struct {
	ss   *mcp.ServerSession
	told bool   // the client was told the session's id
	id   string // the id told
}

// initialized notes the session ss of the initialize request req, whose
// number open set in openingHeader. When that request has already ended
// (its client left before the go-sdk handled the initialize), nobody was
// told the session's id: it is closed once this initialize has returned
// (the go-sdk's close waits for it).
func (h *Handler) initialized(req mcp.Request, ss *mcp.ServerSession) {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return
	}
	mark, num, ok := strings.Cut(extra.Header.Get(openingHeader), ".")
	if !ok || mark != h.openMark {
		return // not an initialize this Handler served
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if op := h.opens[n]; op != nil {
		op.ss = ss
		return
	}
	if _, tracked := h.sessions[ss.ID()]; !tracked {
		go ss.Close()
	}
}

// admitLocked takes a place for an initialize request of share, and
// closes in the background the sessions given up for it; unless the
// caller's sessions are all busy (callerFull) or no place may be freed
// (full).
func (h *Handler) admitLocked(share string) (callerFull, full bool) {
	evict, callerFull := h.callerPlaceLocked(share)
	if callerFull {
		return true, false
	}
	held := h.heldLocked(share) - len(evict)
	limit := h.opts.MaxSessions
	if held > 0 {
		limit -= h.opts.ReservedSessions // the newcomers' places
	}
	if len(h.sessions)-len(evict)+h.nopening >= limit {
		id := h.fairPlaceLocked(share, held)
		if id == "" {
			return false, true
		}
		evict = append(evict, id)
	}
	h.nopening++
	if share != "" {
		h.opening[share]++
	}
	for _, id := range evict {
		h.closeLaterLocked(id, errSessionGivenUp)
	}
	return false, false
}

// refuseOpen answers an initialize request of share for which there is no
// place: its caller's sessions are all busy (callerFull), or all are.
func (h *Handler) refuseOpen(w http.ResponseWriter, share string, callerFull bool) {
	w.Header().Set("Retry-After", strconv.Itoa(h.retryAfter()))
	if !callerFull {
		http.Error(w, fmt.Sprintf("too many open sessions (%d); try again later, or speak protocol %s, which needs none", h.opts.MaxSessions, Modern), http.StatusServiceUnavailable)
		return
	}
	who := "one user"
	if subject.Anonymous(share) {
		who = "one client address"
	}
	http.Error(w, fmt.Sprintf("you have %d open sessions, all busy, the most %s may have; close one, or speak protocol %s, which needs none", h.opts.MaxSessionsPerUser, who, Modern), http.StatusServiceUnavailable)
}

// retryAfter is the Retry-After of a refused initialize, in seconds: the
// session timeout, at most a minute.
func (h *Handler) retryAfter() int {
	return int(min(h.opts.SessionTimeout, time.Minute) / time.Second)
}

// heldLocked is the number of places the caller share holds: its sessions
// and its initialize requests in progress.
func (h *Handler) heldLocked(share string) int {
	n := h.opening[share]
	for _, s := range h.sessions {
		if s.share == share {
			n++
		}
	}
	return n
}

// callerPlaceLocked makes room for another session of the caller share: it
// returns the caller's sessions to close (the idle ones that have waited
// longest), or full when the caller's sessions are all busy. A caller
// nobody can tell apart ("") is bounded by MaxSessions only.
func (h *Handler) callerPlaceLocked(share string) (evict []string, full bool) {
	if share == "" {
		return nil, false
	}
	var mine []string
	for id, s := range h.sessions {
		if s.share == share {
			mine = append(mine, id)
		}
	}
	for len(mine)-len(evict)+h.opening[share] >= h.opts.MaxSessionsPerUser {
		oldest := ""
		for _, id := range mine {
			s := h.sessions[id]
			if s.busy > 0 || slices.Contains(evict, id) {
				continue
			}
			if oldest == "" || s.last.Before(h.sessions[oldest].last) {
				oldest = id
			}
		}
		if oldest == "" {
			return nil, true
		}
		evict = append(evict, oldest)
	}
	return evict, false
}

// fairPlaceLocked returns a session to close so that share, holding held
// places, may open one while every place it may use is taken: a session of
// a caller holding at least two more places (sessions and initializes in
// progress) than share. An idle session goes first: of the caller holding
// the most that has one, idle the longest; else the least recently used
// session of the caller holding the most, whose calls are ended, unless
// MaxSessions sessions are already being closed (their code has not
// returned: so that code deaf to its context cannot grow what is held
// beyond twice MaxSessions). "" when no session may go. A caller nobody can
// tell apart ("") gives up no place.
func (h *Handler) fairPlaceLocked(share string, held int) string {
	o := evictionOrder{sessions: h.sessions, counts: h.placesLocked()}
	idle, busy := "", ""
	for id, s := range h.sessions {
		if s.share == "" || s.share == share || o.counts[s.share] < held+2 {
			continue
		}
		if s.busy == 0 {
			if idle == "" || o.before(id, idle) {
				idle = id
			}
		} else if busy == "" || o.before(id, busy) {
			busy = id
		}
	}
	if idle != "" {
		return idle
	}
	if busy != "" && len(h.closing) < h.opts.MaxSessions {
		return busy
	}
	return ""
}

// placesLocked returns how many places each caller holds: its sessions
// and its initialize requests in progress.
func (h *Handler) placesLocked() map[string]int {
	counts := map[string]int{}
	for _, s := range h.sessions {
		counts[s.share]++
	}
	for k, n := range h.opening {
		counts[k] += n
	}
	return counts
}

// evictionOrder is the order in which sessions give up their place to a
// newcomer.
type evictionOrder struct {
	sessions map[string]*session
	counts   map[string]int // places held, by caller
}

// before reports whether session a goes before session b: of the caller
// holding more places, then by caller, then the one used least recently.
func (o evictionOrder) before(a, b string) bool {
	sa, sb := o.sessions[a], o.sessions[b]
	if ca, cb := o.counts[sa.share], o.counts[sb.share]; ca != cb {
		return ca > cb
	}
	if sa.share != sb.share {
		return sa.share < sb.share
	}
	return sa.last.Before(sb.last)
}

// closeLaterLocked gives up the session id: it no longer counts, its calls
// in progress are ended with cause (their questions fail), and it is closed
// in the go-sdk in the background, as its client's DELETE would close it,
// on behalf of the same user (the context of the request that opened it
// carries the user's token). Until its calls have returned it is counted
// as closing, and its requests are answered 404.
func (h *Handler) closeLaterLocked(id string, cause error) {
	s := h.sessions[id]
	if s == nil {
		return
	}
	delete(h.sessions, id)
	s.idle.Stop()
	s.ended = cause
	h.closing[id] = s
	endCallsLocked(s, cause)
	go func() {
		h.close(s, id)
		h.mu.Lock()
		delete(h.closing, id)
		h.mu.Unlock()
	}()
}

// close ends a session in the go-sdk's handler, as its client's DELETE
// would, on behalf of the same user; it returns when the session's calls
// have returned.
func (h *Handler) close(s *session, id string) {
	del, err := http.NewRequestWithContext(s.ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return
	}
	del.Host = s.host // the go-sdk checks it (DNS rebinding protection)
	del.Header.Set("Mcp-Session-Id", id)
	h.stateful.ServeHTTP(discard{header: http.Header{}}, del)
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ header http.Header }

func (d discard) Header() http.Header       { return d.header }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// sweepLocked gives up the sessions idle for longer than the timeout (no
// request in progress: their client has gone, or has nothing to ask): they
// are closed in the background (closeLaterLocked), their calls ended.
func (h *Handler) sweepLocked() {
	cutoff := h.opts.Now().Add(-h.opts.SessionTimeout)
	for id, s := range h.sessions {
		if s.busy == 0 && s.last.Before(cutoff) {
			h.closeLaterLocked(id, errSessionIdle)
		}
	}
}

// peekLimit is the most of a sessionless POST body read before it is
// served: the body limit the go-sdk's handler applies next (a server that
// set a smaller one does not hold 4 MiB per request here, one that set a
// larger one is not refused here), or DefaultMaxPeek when there is none.
func (h *Handler) peekLimit() int64 {
	if n := h.opts.HTTP.MaxRequestBodyBytes; n > 0 {
		return n
	}
	return DefaultMaxPeek
}

// screen checks a POST body with ask.CheckMessage and returns the body to
// serve, false when it answered the request itself: a refused request gets
// its -32602 error, a refused answer to the server's own request is served
// as an error response in its place, a refused notification is dropped, a
// batch with a refused message is refused whole (400).
func screen(w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
	err := ask.CheckMessage(body)
	if err == nil {
		return body, true
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
		http.Error(w, "the batch holds a message that could be read two ways: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	ref := ask.Refuse(body, err)
	switch {
	case ref.Reply != nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(ref.Reply)
		return nil, false
	case ref.Replace != nil:
		r.Body = io.NopCloser(bytes.NewReader(ref.Replace))
		r.ContentLength = int64(len(ref.Replace))
		return ref.Replace, true
	}
	w.WriteHeader(http.StatusAccepted)
	return nil, false
}

// opensSession reports whether body is, or holds in a batch, an initialize
// request, read as the go-sdk reads it ("Method" is not "method"). A body
// that is not JSON does not: the stateless handler answers it with the
// go-sdk's error.
func opensSession(body []byte) bool {
	body = bytes.TrimSpace(body)
	var msgs []struct {
		Method string `json:"method"`
	}
	if len(body) > 0 && body[0] == '[' {
		if strictjson.DecodeAsSDK(body, &msgs) != nil {
			return false
		}
	} else {
		var m struct {
			Method string `json:"method"`
		}
		if strictjson.DecodeAsSDK(body, &m) != nil {
			return false
		}
		msgs = append(msgs, m)
	}
	for _, m := range msgs {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// statusWriter remembers the status written and lets its owner look at the
// headers just before they go out.
type statusWriter struct {
	http.ResponseWriter
	status   int
	onHeader func(http.Header)
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		if s.onHeader != nil {
			s.onHeader(s.Header())
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// Flush passes streaming through: the go-sdk flushes every event it writes.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// CheckMessages wraps an MCP handler that a Handler does not serve (a
// go-sdk Streamable HTTP handler of the server's own) so that every POST
// is checked with ask.CheckMessage before next reads it, as a Handler
// checks it: a request the go-sdk would read otherwise than other readers
// (an answer given twice in inputResponses, a key twice at any depth,
// answers in another letter case) is answered -32602 without reaching
// next, a refused answer to the server's own request reaches next as an
// error response, a batch holding a refused message is refused with 400.
// The body is read within the go-sdk's default limit (4 MiB) and 30
// seconds, tightened by any limit an outer layer of the project (the
// example servers' internal/server/httpserve) set on the request; next reads the
// same bytes.
func CheckMessages(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := reqbody.Read(w, r, reqbody.Limits{})
		if err != nil {
			reqbody.Refuse(w, err)
			return
		}
		if _, ok := screen(w, r, body); ok {
			next.ServeHTTP(w, r)
		}
	})
}

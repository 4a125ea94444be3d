// Package session is the only code in mcp-tester that talks to servers. It
// wraps a go-sdk client session and answers every question a server asks,
// whichever way it arrives: a 2026-07-28 result with resultType
// "input_required" (the session drives the rounds itself, so that it can
// log, validate and bound them), a server-initiated elicitation/create
// request (2025-11-25 and older), and the older -32042 error that carries
// URL questions. Every loop is bounded by a number of rounds and every
// request by a time limit.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/client/wire"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Capabilities is what the tester declares it can be asked.
type Capabilities struct {
	Form bool // form-mode elicitation
	URL  bool // URL-mode elicitation
	// Bare declares forms the way older clients do: "elicitation": {},
	// naming no mode, which the specification reads as forms only. It
	// needs Form and excludes URL.
	Bare bool
}

// None reports whether nothing may be asked.
func (c Capabilities) None() bool { return !c.Form && !c.URL }

// Options configure a session.
type Options struct {
	Target *target.Target
	// Protocol is the protocol version to speak; empty means the newest the
	// go-sdk knows.
	Protocol string
	// Capabilities is what the tester declares.
	Capabilities Capabilities
	// Answerer answers questions for which a call gives no answerer of its
	// own. Nil declines them.
	Answerer answer.Answerer
	// Log receives every question and answer. Nil means a private log.
	Log *exchange.Log
	// Validate checks answers against the requested schema before sending.
	Validate bool
	// MaxRounds bounds the rounds of one call; zero means 10.
	MaxRounds int
	// Timeout bounds each request once connected; zero means no limit.
	Timeout time.Duration
	// ConnectTimeout bounds connecting: starting or reaching the server
	// and the initialize handshake (with a login the server asks for
	// meanwhile). Zero means the larger of DefaultConnectTimeout and
	// Timeout (no limit when Timeout has none); negative means no limit.
	ConnectTimeout time.Duration
	// ClientName and ClientVersion identify the tester to the server.
	ClientName, ClientVersion string
	// Warn, if set, receives warnings about a server's odd but survivable
	// behaviour.
	Warn func(string)
	// Middleware, if set, is installed as sending and receiving middleware
	// on the client, outermost (for tracing).
	Middleware []mcp.Middleware
	// Observe, if set, hears every JSON-RPC message on the wire (the trace,
	// the audit's evidence). It never changes what is sent: over HTTP it
	// reads copies of the bodies (see the wire package).
	Observe wire.Observer
	// KeepListed keeps what the server sent of itself (its capabilities
	// and serverInfo) and each item of its lists as sent, every member,
	// which the go-sdk's types drop in part (see Listed, RawCapabilities,
	// ToolExecution): for the commands that show or save a catalog.
	KeepListed bool
	// Tasks declares the tasks extension (io.modelcontextprotocol/tasks)
	// on tool calls to a server that offers it (in its capabilities): a
	// tool the server runs as a task is then waited for, its questions
	// answered through tasks/update, and its result returned like a direct
	// call's.
	Tasks bool
	// OnTask, if set, hears a task's status and status message as they
	// change.
	OnTask func(taskclient.Update)
	// TaskSleep, if set, waits between two polls of a task (the clock of
	// the tests that drive tasks); nil waits for the interval the server
	// suggests, or until the request's context ends.
	TaskSleep func(ctx context.Context, d time.Duration) error
	// Sampler answers a server's requests for a model reply
	// (sampling/createMessage) that a call's answerer leaves (an answerer
	// answers them when it is an answer.Sampler, see answer.CanSample).
	// The tester declares sampling when either can answer. Sampling is
	// deprecated as of 2026-07-28 and works until at least 2027-07-28.
	Sampler answer.Sampler
	// DeclareSampling declares sampling even when neither a Sampler nor
	// the session's answerer can answer: the replies come with each
	// call's answerer (a script's sample_response lines, a bench flow's
	// --sample replies, a person at a terminal). Unanswered requests are
	// refused, as with no Sampler.
	DeclareSampling bool
	// Hint words the way on that an error points at (a Setting) in the
	// caller's terms, as the CLI's flags or asktest's options; nil, or
	// "", words it as the field of Options.
	Hint Hint
	// Roots is the answer to roots/list. Nil: the tester does not declare
	// roots; an empty, non-nil list declares them and answers none.
	// Deprecated like sampling.
	Roots []*mcp.Root //lint:ignore SA1019 roots are deprecated but still answered
	// Deprecated, if set, hears once per session that the server used a
	// deprecated feature: exchange.AsksSampling or exchange.AsksRoots.
	Deprecated func(feature string)
	// OnProgress, if set, asks for progress on every tool call (a
	// progressToken in its _meta) and hears the server's progress
	// notifications for them, as they come.
	OnProgress func(Progress)
}

// DefaultConnectTimeout is the least time a session gives a server to
// start and answer initialize when Options.ConnectTimeout is zero: a
// server that is downloaded or built before it starts needs more than a
// request does.
const DefaultConnectTimeout = time.Minute

// ConnectLimit is the time limit of connecting that opts give
// (Options.ConnectTimeout), zero when there is none.
func (opts Options) ConnectLimit() time.Duration {
	switch {
	case opts.ConnectTimeout < 0:
		return 0
	case opts.ConnectTimeout > 0:
		return opts.ConnectTimeout
	case opts.Timeout <= 0:
		return 0
	}
	return max(DefaultConnectTimeout, opts.Timeout)
}

// Session is an open connection to a server.
type Session struct {
	opts   Options
	cs     *mcp.ClientSession
	conn   *target.Conn
	log    *exchange.Log
	server string
	// unread bounds the answers a stdio server has not read (nil over
	// HTTP); Close releases what a server that stopped reading holds.
	unread *unreadTransport

	life context.CancelFunc // ends the connection's own context on Close
	// tasks: the tester declares the tasks extension and the server offers
	// it, so that a tool call may come back as a task.
	tasks bool
	// offer is what a server on protocol 2025-11-25 declared of the tasks
	// of that protocol; support is each listed tool's taskSupport, and
	// supportOnce lists the tools for it before the first call.
	offer       taskclient.Offer
	support     map[string]taskclient.Support
	supportOnce sync.Once

	toolsOnce sync.Once    // the tools were listed (knowTools)
	results   toolResults  // tools/call answers as sent (see CallTool)
	forms     writtenForms // the forms' schemas as the server wrote them
	probe     probeWatch   // whether the server/discover probe was answered
	listed    *listed      // what the server sent of itself and its lists (Options.KeepListed)
	closed    atomic.Bool  // Close was called
	// closing is closed when Close begins: a server's question left
	// unanswered by an interrupt waits for it to send nothing back.
	closing chan struct{}

	mu      sync.Mutex
	cur     *callState      // the call in progress, for server-initiated requests
	idle    *callState      // the questions asked since the last call ended (asking)
	sending []*outside      // the requests other than calls in flight, the latest last (send)
	late    error           // an error met while answering a server-initiated request
	noted   map[string]bool // the deprecated features already told of
	// cancelled are the tasks the tester cancelled (cancelRefused,
	// CancelTask), by id, with the call each was about, the newest
	// maxCancelled: the server's later requests about one are refused.
	cancelled      map[string]*cancelledTask
	cancelledOrder []string
	// progress maps the progress tokens of the tool calls in flight to
	// their tools (Options.OnProgress); progressSeq numbers the tokens.
	progress    map[string]string
	progressSeq int
}

// callState is what a server-initiated question needs to know about the
// call it interrupts.
type callState struct {
	method, name string
	asked        int // the requests the server sent during it (countAsked), under Session.mu
	round        int
	ans          answer.Answerer
	clock        *requestClock // the time limit of the request in progress
	// ctx is the call's own context, without the request's time limit
	// (paused while a person answers): its end (an interrupt, a script
	// step's time limit) ends a question the server asks in the middle of
	// the call, whose own context only the server or the connection ends.
	ctx context.Context
	// over: the call has returned, stopped by countAsked's bound; it is
	// kept only so that the server's later questions are refused against
	// it (endCall), without touching the calls after it. Under Session.mu.
	over bool
	// refused counts the requests refused against it by countAsked's
	// bound, none of them shown, since refusedAt (the request the first
	// came in) last said so (sayRefused). Under Session.mu.
	refused   int
	refusedAt string
}

// Open connects to the target and initializes the session.
func Open(ctx context.Context, opts Options) (*Session, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Session{opts: opts, log: opts.Log, closing: make(chan struct{})}
	if err := s.connect(ctx, ""); err != nil {
		if opts.Target.URL != "" && opts.Target.Transport != target.TransportStreamable &&
			opts.Target.Transport != target.TransportSSE && target.IsHTTPNotStreamable(err) {
			// A legacy server: try HTTP+SSE before giving up.
			if err2 := s.connect(ctx, target.TransportSSE); err2 == nil {
				t := *opts.Target
				t.Transport = target.TransportSSE
				s.opts.Target = &t
				return s, s.spokeAsked()
			}
		}
		return nil, err
	}
	return s, s.spokeAsked()
}

// withDefaults checks opts and fills in what they leave unset.
func (opts Options) withDefaults() (Options, error) {
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = 10
	}
	if opts.Log == nil {
		opts.Log = &exchange.Log{}
	}
	if opts.ClientName == "" {
		opts.ClientName = "mcp-tester"
	}
	if err := CheckProtocol(opts.Protocol); err != nil {
		return opts, &Error{Kind: KindAnswer, Err: err}
	}
	if c := opts.Capabilities; c.Bare && (!c.Form || c.URL) {
		return opts, &Error{Kind: KindAnswer, Err: errors.New("bare elicitation capabilities declare forms only: set Form, not URL")}
	}
	opts.Capabilities = asOf(opts.Capabilities, opts.Protocol)
	return opts, nil
}

// spokeAsked checks that a session opened with an explicit protocol
// version speaks it: the go-sdk settles on another version the server
// offers instead, which a tester asked for one version must not do
// silently. It closes the session when not.
func (s *Session) spokeAsked() error {
	want, got := s.opts.Protocol, s.ProtocolVersion()
	if want == "" || got == want {
		return nil
	}
	s.Close()
	return &Error{Kind: KindProtocol, Op: "connect to " + s.opts.Target.Describe(),
		Err: s.hinted(fmt.Errorf("protocol %s: the server does not speak it (it speaks %s)", want, got), SettingProtocol, got)}
}

// legacySSEProtocol is the version a session over the legacy HTTP+SSE
// transport offers when none is asked for: the newest one with initialize.
const legacySSEProtocol = "2025-11-25"

// asOf returns what a client of protocol version v can declare of c: a
// session pinned to an older version is that version's client. Elicitation
// came with 2025-06-18, whose capability names no mode (forms only, the
// bare "elicitation": {}); URL mode came with 2025-11-25. A session that
// negotiates its version (v empty) declares everything asked for.
func asOf(c Capabilities, v string) Capabilities {
	switch {
	case v == "" || v >= "2025-11-25":
		return c
	case v >= "2025-06-18" && c.Form:
		return Capabilities{Form: true, Bare: true}
	default:
		return Capabilities{}
	}
}

// CheckProtocol refuses a protocol version the tester does not speak; ""
// (the newest version both know) is spoken.
func CheckProtocol(v string) error {
	if v == "" {
		return nil
	}
	for _, known := range mcp.SupportedProtocolVersions() {
		if v == known {
			return nil
		}
	}
	return fmt.Errorf("protocol %q: this tester speaks %v", v, mcp.SupportedProtocolVersions())
}

func (s *Session) connect(ctx context.Context, transport string) error {
	conn, err := s.opts.Target.Open(transport)
	if err != nil {
		return &Error{Kind: KindAnswer, Err: err}
	}
	client, err := s.newClient()
	if err != nil {
		return err
	}
	cctx, clock := startClock(ctx, s.opts.ConnectLimit(), s.opts.Target.Command != "")
	clock.bounds(login.SettingConnectTimeout)
	defer clock.stop()
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	tr := s.transport(conn, life)
	version := s.firstVersion(conn)
	var cs *mcp.ClientSession
	var offer taskclient.Offer
	if s.opts.Tasks {
		cs, offer, err = taskclient.Connect(cctx, client, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	} else {
		cs, err = client.Connect(cctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	if err != nil {
		endLife()
		conn.Cleanup()
		return s.connectError(ctx, cctx, conn, err)
	}
	s.cs, s.conn, s.life, s.offer = cs, conn, endLife, offer
	if dup := s.results.takeRepeated(); dup != nil {
		// The go-sdk took the last of the two; which did the server mean?
		s.Close()
		return protocolErr("connect to "+s.opts.Target.Describe(), "%w", dup)
	}
	s.noteInitialize(cs.InitializeResult())
	return nil
}

// newClient makes the go-sdk client of the session, with its capabilities,
// its handlers and its middleware.
func (s *Session) newClient() (*mcp.Client, error) {
	copts := &mcp.ClientOptions{
		Capabilities:   s.capabilities(),
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	if s.opts.OnProgress != nil {
		copts.ProgressNotificationHandler = s.onProgress
	}
	client := mcp.NewClient(&mcp.Implementation{Name: s.opts.ClientName, Version: s.opts.ClientVersion}, copts)
	// Innermost, next to the wire: what every other middleware sends.
	client.AddSendingMiddleware(notAfterEnd)
	if s.opts.Tasks {
		if err := taskclient.Register(client); err != nil {
			return nil, &Error{Kind: KindAnswer, Err: err}
		}
	}
	client.AddReceivingMiddleware(s.answerServerRequests)
	client.AddSendingMiddleware(freshReads)
	if len(s.opts.Middleware) > 0 {
		client.AddSendingMiddleware(s.opts.Middleware...)
		client.AddReceivingMiddleware(s.opts.Middleware...)
	}
	return client, nil
}

// transport wraps the connection's transport in what the session reads on
// the way: task handles, every message, and for SSE a stream that outlives
// the connect context (until life ends).
func (s *Session) transport(conn *target.Conn, life context.Context) mcp.Transport {
	tr := conn.Transport
	if s.opts.Tasks {
		// Innermost: it must see the raw answer to spot a task handle.
		tr = taskclient.Transport(tr)
	}
	obs := s.observer()
	if obs == nil {
		obs = s.probe.observe
	} else {
		outer := obs
		obs = func(sent bool, msg jsonrpc.Message) {
			s.probe.observe(sent, msg)
			outer(sent, msg)
		}
	}
	tr = wire.WatchForms(tr, s.results.watch, obs, s.results.endUnanswered, s.forms.note)
	tr = unreadBound(tr, maxUnread)
	s.unread, _ = tr.(*unreadTransport)
	if _, sse := conn.Transport.(*mcp.SSEClientTransport); sse {
		// Only the SSE transport ties its stream to the connect context.
		// Other transports stay unwrapped here: a wrapper would hide the
		// SDK's unexported hook that updates a Streamable HTTP connection
		// after initialize (protocol header, standalone stream).
		tr = target.Outliving(tr, life)
	}
	return tr
}

// observer is what sees every message: Options.Observe, and the record of
// the server's own words (listed) when Options.KeepListed asks for it.
func (s *Session) observer() func(sent bool, msg jsonrpc.Message) {
	obs := s.opts.Observe
	if !s.opts.KeepListed {
		return obs
	}
	s.listed = &listed{}
	if outer := obs; outer != nil {
		return func(sent bool, msg jsonrpc.Message) {
			s.listed.observe(sent, msg)
			outer(sent, msg)
		}
	}
	return s.listed.observe
}

// firstVersion is the protocol version the session offers first on conn.
func (s *Session) firstVersion(conn *target.Conn) string {
	version := s.opts.Protocol
	if _, sse := conn.Transport.(*mcp.SSEClientTransport); sse && version == "" {
		// HTTP+SSE predates protocol 2026-07-28, and servers on it that
		// refuse a method they do not know with 400 (the go-sdk's before
		// 2026-07-28) make the client drop the connection at the
		// server/discover probe: start with initialize.
		version = legacySSEProtocol
	}
	return version
}

// connectError says why connecting failed with err: the server was not
// reached, broke the rules of the wire, did not answer in time, or exited.
// cctx is the connect request's context, ctx the caller's.
func (s *Session) connectError(ctx, cctx context.Context, conn *target.Conn, err error) error {
	e := &Error{Kind: KindUnreachable, Op: "connect to " + s.opts.Target.Describe(), Err: err, Stderr: conn.StderrTail()}
	if le := login.AsError(err); le != nil {
		e.Err = le // the login's reason, without the transport's wrapping
	}
	wrong := conn.WrongAnswer(err, true)
	stray := s.results.unansweredBy(err)
	switch r := conn.Refused(); {
	case flooded(err):
		e.Kind, e.Err = KindProtocol, errServerFlooded
		return e
	case r != nil:
		// The server was reached and broke the rules of the wire.
		e.Kind, e.Err = KindProtocol, r
	case stray != nil:
		// It answered a request with an answer to none, and no other
		// answer could come.
		e.Kind, e.Err = KindProtocol, stray
		return e
	case wrong != nil && login.AsError(err) == nil && RPCError(err) == nil && cctx.Err() == nil:
		// It was reached, and answered with something else than
		// JSON-RPC: say what came back.
		e.Kind, e.Err = wrongKind(wrong), wrong
		return e
	}
	if addr := refusedAt(err); addr != "" && e.Kind == KindUnreachable {
		// Nothing listens there: say so in the words a person looks
		// for, not as the chain of the HTTP client's wrappings.
		e.Err = fmt.Errorf("nothing listens at %s (connection refused): start the server first, or check the address", addr)
	}
	if u := conn.Unavailable(); u != "" && e.Kind == KindUnreachable && cctx.Err() == nil {
		// A server that refused for now (503 with too many sessions, a
		// gateway's 502): say what it said, and when to come back.
		e.Err = fmt.Errorf("%w; %s", e.Err, u)
	}
	switch exited, state := conn.Exited(); {
	case cctx.Err() != nil && ctx.Err() == nil:
		e.Err = s.hinted(fmt.Errorf("the server did not answer within %s", s.opts.ConnectLimit()), SettingConnectTimeout, "")
		if s.probe.unanswered() {
			// Not a slow start: the first request, the probe of protocol
			// 2026-07-28, went unanswered, as with a server of an earlier
			// protocol that ignores the requests it does not know (it
			// should answer "method not found").
			// A server slow to start answers nothing either: both ways
			// out are named.
			e.Err = s.hinted(fmt.Errorf("the server did not answer within %s, not even server/discover, the probe of protocol 2026-07-28 and its first request: a server of an earlier protocol that ignores the requests it does not know never answers it (%s)", s.opts.ConnectLimit(), s.hint(SettingProtocol, "2025-11-25")), SettingConnectTimeout, "")
		}
		if id := s.results.takeStray(); id != "" {
			// It answered, but to no request of the tester's.
			e.Kind = KindProtocol
			e.Err = fmt.Errorf("the server did not answer within %s: %w", s.opts.ConnectLimit(), strayError(id))
		}
	case exited && RPCError(err) == nil:
		// Say what happened, not how the SDK noticed it. A server
		// that answered with an error and then ended when the
		// tester closed its input did answer: its error says why.
		e.Err = fmt.Errorf("the server exited (%s) before it answered initialize", state)
	}
	return e
}

// refusedAt returns the address whose connection err says was refused
// (nothing listens there), or "".
func refusedAt(err error) string {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
		return ""
	}
	if op.Addr != nil {
		return op.Addr.String()
	}
	return "the server's address"
}

// noteInitialize keeps what the server's initialize answer says of it: its
// name, and whether it runs tools as tasks.
func (s *Session) noteInitialize(info *mcp.InitializeResult) {
	if info == nil {
		return
	}
	if info.ServerInfo != nil {
		s.server = info.ServerInfo.Name
	}
	if info.Capabilities != nil {
		_, offered := info.Capabilities.Extensions[tasks.ExtensionID]
		s.tasks = s.opts.Tasks && offered
	}
}

func (s *Session) capabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	if s.samplingDeclared() {
		//lint:ignore SA1019 sampling is deprecated but still answered while servers ask
		caps.Sampling = &mcp.SamplingCapabilities{}
	}
	if s.opts.Roots != nil {
		//lint:ignore SA1019 roots are deprecated but still answered while servers ask
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	if s.opts.Capabilities.None() {
		return caps
	}
	caps.Elicitation = &mcp.ElicitationCapabilities{}
	if s.opts.Capabilities.Bare {
		return caps
	}
	if s.opts.Capabilities.Form {
		caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
	}
	if s.opts.Capabilities.URL {
		caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
	}
	return caps
}

// Declared lists the client capabilities the session declared, as a
// report says them: "elicitation (form, url)", "sampling", "roots".
func (s *Session) Declared() []string {
	caps := s.capabilities()
	var out []string
	if e := caps.Elicitation; e != nil {
		var modes []string
		if e.Form != nil {
			modes = append(modes, "form")
		}
		if e.URL != nil {
			modes = append(modes, "url")
		}
		if len(modes) > 0 {
			out = append(out, "elicitation ("+strings.Join(modes, ", ")+")")
		} else {
			out = append(out, "elicitation")
		}
	}
	//lint:ignore SA1019 sampling is deprecated but still answered while servers ask
	if caps.Sampling != nil {
		out = append(out, "sampling")
	}
	//lint:ignore SA1019 roots are deprecated but still answered while servers ask
	if caps.RootsV2 != nil {
		out = append(out, "roots")
	}
	return out
}

// notAfterEnd refuses a request whose context has already ended (an
// interrupt, a time limit) before it is sent: a command interrupted while
// it listed the tools, say, does not go on to send the call it was about
// to, which would start on the server what the person stopped (a task, a
// deployment) with nobody to hear of it. The go-sdk would try to send such
// a request all the same, and over HTTP it may reach the server before it
// is cancelled. Notifications go as ever (the go-sdk's cancellation of a
// request is one).
func notAfterEnd(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if err := ctx.Err(); err != nil && !strings.HasPrefix(method, "notifications/") {
			return nil, err
		}
		return next(ctx, method, req)
	}
}

// freshReads keeps the go-sdk from caching resources/read results: a tester
// must see what the server says now, and a read that asked a question must
// be read again with its answers, not served from a cache keyed by URI.
func freshReads(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.ReadResourceResult); ok && r != nil {
			r.TTLMs = 0
		}
		return res, err
	}
}

// Target is the server as it was reached: the target given, with the
// transport that worked when HTTP+SSE was the fallback.
func (s *Session) Target() *target.Target {
	t := *s.opts.Target
	return &t
}

// ServerName is the name the server gave in its implementation info.
func (s *Session) ServerName() string { return s.server }

// Log is the session's exchange log.
func (s *Session) Log() *exchange.Log { return s.log }

// ProtocolVersion is the version negotiated with the server.
func (s *Session) ProtocolVersion() string {
	if r := s.cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// Close ends the session and, for a command server, the process: its input
// is closed, it gets a short grace to exit, then it is terminated. It
// reports a request the server answered twice that was seen only after
// the request had ended (a protocol error).
func (s *Session) Close() error {
	if s.cs == nil || s.closed.Swap(true) {
		return nil
	}
	close(s.closing)
	s.unread.release()
	s.conn.EndAnswers()
	s.cs.Close()
	s.life()
	s.conn.Cleanup()
	// The questions refused past the bound while no call ran (or after
	// the call it stopped), which no call's end has told.
	s.mu.Lock()
	idle := s.idle
	s.mu.Unlock()
	s.sayRefused(idle)
	if twice := s.results.takeTwice(); twice != nil {
		// Seen after the request it answered had ended.
		return protocolErr("close the session", "%w", twice)
	}
	return nil
}

// Ping checks that the server answers. On 2026-07-28 and newer the ping
// carries the per-request _meta every request must (the go-sdk adds it to
// the other requests, not to ping). That version removed ping from the
// protocol, so a server may answer it "method not found": it answered, and
// the ping succeeds.
func (s *Session) Ping(ctx context.Context) error {
	defer s.send(ctx, "ping")()
	ctx, clock := s.startClock(ctx)
	defer clock.stop()
	v := s.ProtocolVersion()
	var params *mcp.PingParams
	if v >= Modern {
		params = &mcp.PingParams{Meta: s.requestMeta(v)}
	}
	err := s.refuseRepeats("ping", func() error { return s.wrap(ctx, "ping", s.cs.Ping(ctx, params)) })
	if w := RPCError(err); w != nil && w.Code == jsonrpc.CodeMethodNotFound && v >= Modern {
		return nil
	}
	return err
}

// requestMeta is the _meta of a request of protocol v (2026-07-28 and
// newer) as the go-sdk writes it: the version, the client and what it
// declares.
func (s *Session) requestMeta(v string) mcp.Meta {
	var caps map[string]any
	b, _ := json.Marshal(s.capabilities())
	_ = json.Unmarshal(b, &caps)
	// The go-sdk's ClientCapabilities always writes "roots"; requests of
	// this version carry it only when roots are declared, which the tester
	// never does.
	delete(caps, "roots")
	return mcp.Meta{
		mcp.MetaKeyProtocolVersion:    v,
		mcp.MetaKeyClientInfo:         &mcp.Implementation{Name: s.opts.ClientName, Version: s.opts.ClientVersion},
		mcp.MetaKeyClientCapabilities: caps,
	}
}

// wrap turns an error from the SDK into a session *Error of the right kind.
func (s *Session) wrap(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	e := &Error{Op: op, Err: err}
	stray := s.results.unansweredBy(err)
	switch {
	case flooded(err):
		// It sent requests of its own and read no answer: the tester
		// stopped reading from it.
		e.Kind, e.Err = KindProtocol, errServerFlooded
	case login.AsError(err) != nil:
		// The server refused the login (a scope it would not grant, a
		// token it would not take).
		e.Kind = KindServer
		e.Err = login.AsError(err)
	case RPCError(err) != nil:
		e.Kind = KindServer
	case errors.Is(err, taskclient.ErrCancelled):
		e.Kind = KindServer
	case s.conn.Refused() != nil:
		// What the HTTP client refused (an answer too large, a request
		// sent on elsewhere) ended the connection.
		e.Kind = KindProtocol
		e.Err = s.conn.Refused()
	case stray != nil:
		// The server answered with an answer to no request, and no
		// other answer could come.
		e.Kind, e.Err = KindProtocol, stray
	case errors.As(err, new(*taskclient.NoQuestionError)), errors.As(err, new(*taskclient.TooManyQuestionsError)):
		// The server says its task waits for answers and asks nothing,
		// or asks more than the tester answers.
		e.Kind = KindProtocol
	case errors.As(err, new(*taskclient.PollsExhaustedError)):
		// Every poll was answered; the task never ended within the
		// bound: what the server did, not an answer that cannot be read.
		e.Kind = KindServer
	case timedOut(ctx) && notEnded(err) != nil:
		s.taskNotEnded(ctx, e, notEnded(err))
	case timedOut(ctx):
		s.timedOut(ctx, e)
	case s.conn.WrongAnswer(err, false) != nil:
		// The server answered with something else than JSON-RPC.
		wrong := s.conn.WrongAnswer(err, false)
		e.Kind, e.Err = wrongKind(wrong), wrong
	case streamEnded(err):
		// The HTTP answer to the request, an event stream, ended
		// before the answer came: between events, or inside one.
		e.Kind = KindUnreachable
		e.Err = errStreamEnded
	case undelivered(err):
		e.Kind = KindUnreachable
		e.Err = fmt.Errorf("the server could not be reached (%w)", err)
	case s.broken(err):
		e.Kind = KindUnreachable
		e.Err = fmt.Errorf("the server closed the connection (%v)", err)
		if ok, state := s.conn.Exited(); ok {
			e.Err = fmt.Errorf("the server exited (%s)", state)
		}
		e.Stderr = s.conn.StderrTail()
	default:
		e.Kind = KindProtocol
		e.Err = fmt.Errorf("the server's answer could not be read: %w", err)
	}
	return e
}

// notEnded is the task that err says had not ended when its wait did, or nil.
func notEnded(err error) *taskclient.NotEndedError {
	var ne *taskclient.NotEndedError
	if errors.As(err, &ne) {
		return ne
	}
	return nil
}

// taskNotEnded makes e say that the wait of ctx for a task ran out of time
// while the task ran: the server answered every poll that had time to end
// (the last may have been under way), so this is no server that did not
// answer (exit 3) but a call that did not end (exit 1), with
// the task's last status.
func (s *Session) taskNotEnded(ctx context.Context, e *Error, ne *taskclient.NotEndedError) {
	e.Kind = KindServer
	within := "within " + s.opts.Timeout.String()
	if c := context.Cause(ctx); !errors.Is(c, errRequestTimeout) && !errors.Is(c, target.ErrTimeLimit) {
		within = "before the caller's time limit ran out"
	}
	status := fmt.Sprintf("%q", ne.Last.Status)
	if ne.Last.StatusMessage != "" {
		status += " (" + termsafe.Clip(ne.Last.StatusMessage, 200) + ")"
	}
	e.Err = fmt.Errorf("task %s did not end %s: its last status was %s; the server answered every poll that had time to end, and the task may still run there", ne.Last.TaskID, within, status)
}

// timedOut makes e say that the request of ctx ran out of time: its
// --timeout, or the caller's limit, or an answer that came with the wrong id.
func (s *Session) timedOut(ctx context.Context, e *Error) {
	e.Kind = KindUnreachable
	e.Err = fmt.Errorf("the server did not answer within %s", s.opts.Timeout)
	if c := context.Cause(ctx); !errors.Is(c, errRequestTimeout) && !errors.Is(c, target.ErrTimeLimit) {
		// The caller's limit, not --timeout: the caller knows how long.
		e.Err = fmt.Errorf("the server did not answer before the caller's time limit ran out (%w)", context.DeadlineExceeded)
	}
	e.Stderr = s.conn.StderrTail()
	if id := s.results.takeStray(); id != "" {
		// It answered, but to no request of the tester's.
		e.Kind = KindProtocol
		e.Err = fmt.Errorf("%w: %w", e.Err, strayError(id))
	}
}

// wrongKind is the kind of a request the server answered with something
// else than JSON-RPC: a protocol error, but for an error the server tied to
// no request, which is the server's own error.
func wrongKind(w *target.WrongAnswerError) Kind {
	if w.Untied != nil {
		return KindServer
	}
	return KindProtocol
}

// errStreamEnded is the error of a request whose HTTP answer, an event
// stream, ended without the answer to it.
var errStreamEnded = errors.New("the server ended the event stream of its answer before the answer came")

// streamEnded reports whether err is the go-sdk's of an event stream that
// ended before the answer to its request: between events ("request
// terminated without response") or inside one (an event cut short, read
// to an unexpected end).
func streamEnded(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "request terminated without response") ||
		(strings.Contains(msg, "failed to decode event") && strings.Contains(msg, "unexpected EOF"))
}

// undelivered reports whether err is the go-sdk's refusal of a request its
// transport could not deliver (a refused connection, a name that does not
// resolve, TLS, a gateway's 502, 503 or 504): the server was not reached.
// An answer that came back but was not JSON-RPC is told apart before
// (target.Conn.WrongAnswer).
func undelivered(err error) bool {
	var w *jsonrpc.Error
	var op *net.OpError
	return errors.As(err, &op) || (errors.As(err, &w) && w.Code == codeRejected)
}

// broken reports whether err means the connection is gone. For a command
// server it closes the session, which waits (briefly) for the process, so
// that the error can say how it ended.
func (s *Session) broken(err error) bool {
	if !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") {
		return false
	}
	if s.opts.Target.Command != "" {
		s.cs.Close()
	}
	return true
}

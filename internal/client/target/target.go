// Package target says how to reach an MCP server and opens the transport:
// a command run through the shell (stdio), or a URL (Streamable HTTP, or
// the legacy HTTP+SSE transport by flag or detection), with headers, a
// login (internal/client/login) for servers that require OAuth, a protocol
// version and time limits.
package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/platform/procgroup"
	"github.com/askback/askback/internal/text/credential"
	"github.com/askback/askback/internal/text/optname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports a URL target may use.
const (
	TransportAuto       = "auto"       // Streamable HTTP, falling back to SSE
	TransportStreamable = "streamable" // Streamable HTTP only
	TransportSSE        = "sse"        // the legacy HTTP+SSE transport
)

// Target describes a server.
type Target struct {
	Command   string   // a shell command line that starts a stdio server
	URL       string   // the endpoint of an HTTP server
	Headers   []string // "Name: value" lines sent with every HTTP request
	Transport string   // for URLs: auto, streamable or sse
	// Env is added to the environment of a command server.
	Env []string
	// Grace is how long a command server may take to exit after its input
	// is closed before it is terminated (SIGTERM to its process group).
	// Zero means DefaultGrace. A server terminated then gets
	// procgroup.TermGrace to exit before it is killed.
	Grace time.Duration
	// Login, if set, logs in to an HTTP server that asks for OAuth (and
	// sends the cached token to one that needs it). It is not used when
	// Headers send an Authorization of their own.
	Login *login.Login
	// Pool carries the requests of a URL target. Sessions opened with the
	// same Pool share its kept-alive connections; nil means a Pool of the
	// Conn's own, closed with it.
	Pool *Pool
	// Dial, when set instead of Command and URL, reaches a server in this
	// process (the asktest package's in-memory servers): each call returns
	// the client's end of a new connection and a function that ends the
	// server's end, which the Conn's Cleanup calls.
	Dial func() (mcp.Transport, func(), error)
	// Name names one of these fields in the caller's terms, for the errors
	// that point at it (a command line's flag); nil, or "", names it as
	// this struct's field ([Option.String]).
	Name optname.Namer[Option]
}

// Option is one of Target's fields an error points at as the way on;
// [Target.Name] words it for the caller.
type Option int

// The fields an error points at.
const (
	// OptionURL is [Target.URL].
	OptionURL Option = iota + 1
)

// String names o as a field of Target.
func (o Option) String() string {
	switch o {
	case OptionURL:
		return "Target.URL"
	}
	return fmt.Sprintf("Option(%d)", int(o))
}

// ErrNoServer is Validate's error for a target that names no server, and
// ErrTwoServers for one that names a command and a URL. The target does not
// know how its caller names them: the CLI words them as its flags.
var (
	ErrNoServer   = errors.New("no server given")
	ErrTwoServers = errors.New("a command and a URL given: give one server")
)

// A FieldError is a field of a Target whose value Validate refuses.
type FieldError struct {
	Field   string // "URL" or "Transport"
	Value   string
	Problem string // what is wrong, and what to write
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Problem)
}

// Validate reports a target that names no server, or two, or a field with
// a value it cannot use: ErrNoServer, ErrTwoServers, a *FieldError, or the
// error of ParseHeaders.
func (t *Target) Validate() error {
	switch {
	case t.Dial != nil && (t.Command != "" || t.URL != ""):
		return errors.New("a server in this process takes no command or URL")
	case t.Dial != nil:
		return nil
	case t.Command == "" && t.URL == "":
		return ErrNoServer
	case t.Command != "" && t.URL != "":
		return ErrTwoServers
	}
	if t.URL != "" {
		if err := urlcheck.ServerURL(t.URL); err != nil {
			return &FieldError{Field: "URL", Value: t.URL, Problem: err.Error()}
		}
	}
	switch t.Transport {
	case "", TransportAuto, TransportStreamable, TransportSSE:
	default:
		return &FieldError{Field: "Transport", Value: t.Transport, Problem: "use auto, streamable or sse"}
	}
	if _, err := ParseHeaders(t.Headers); err != nil {
		return err
	}
	return nil
}

// ParseHeaders reads "Name: value" lines.
func ParseHeaders(lines []string) (http.Header, error) {
	h := http.Header{}
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("header %q: write it as \"Name: value\"", l)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// Describe names the target for messages, credentials in the command line
// or the URL hidden (see internal/text/credential).
func (t *Target) Describe() string {
	if t.Dial != nil {
		return "the in-process server"
	}
	if t.Command != "" {
		return fmt.Sprintf("command %q", credential.RedactCommand(t.Command))
	}
	return credential.RedactURL(t.URL)
}

// Conn is an opened transport and what is known about the process behind
// it.
type Conn struct {
	Transport mcp.Transport
	proc      *process
	pool      *Pool // the Conn's own, closed by Cleanup
	refused   refusal
	answers   answers   // what the server answered (see WrongAnswer)
	hangUp    func()    // ends the server's end of a Dial connection
	inflight  *inflight // an HTTP Conn's requests under way
}

// EndAnswers waits up to AnswerGrace for the answers to the server's own
// requests that an HTTP server has not yet taken, then ends those left
// (their POSTs fail at once), so that closing the session does not wait
// for ever for a server that never takes them. It does nothing for a
// command server (the session bounds those itself).
func (c *Conn) EndAnswers() {
	if c.inflight != nil {
		c.inflight.endAnswers(AnswerGrace)
	}
}

// Refused returns the first request or answer the Conn's HTTP client
// refused (an answer over MaxBody, a request sent on to another origin),
// or nil: the reason a connection ended, which the go-sdk's error keeps
// only as text.
func (c *Conn) Refused() error { return c.refused.get() }

// StderrTail returns the last lines a command server wrote to stderr.
func (c *Conn) StderrTail() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.stderr.String()
}

// Exited reports whether a command server has exited, with its state.
func (c *Conn) Exited() (bool, string) {
	if c.proc == nil {
		return false, ""
	}
	return c.proc.exited()
}

// Cleanup ends whatever the target started and is still running: the
// command server's whole process group, the connections of a Pool the Conn
// made for itself, the server's end of a Dial connection.
func (c *Conn) Cleanup() {
	if c.hangUp != nil {
		c.hangUp()
	}
	if c.proc != nil {
		c.proc.kill()
	}
	if c.pool != nil {
		c.pool.Close()
	}
}

// ownPoolIdle is how many idle connections the Pool of one Conn keeps: a
// session has a request in flight, an answer to a server's question, and a
// stream of its own at most.
const ownPoolIdle = 4

// Open prepares the transport. For a command it does not start the process:
// the go-sdk does that when the client connects. transport, when not empty,
// overrides t.Transport (used for the SSE fallback).
func (t *Target) Open(transport string) (*Conn, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if t.Dial != nil {
		tr, hangUp, err := t.Dial()
		if err != nil {
			return nil, err
		}
		return &Conn{Transport: tr, hangUp: hangUp}, nil
	}
	if t.Command != "" {
		conn := t.openCommand()
		conn.Transport = &readNoting{inner: conn.Transport, as: &conn.answers, watch: conn.Transport.(*commandTransport).watch}
		return conn, nil
	}
	if transport == "" {
		transport = t.Transport
	}
	h, err := t.LoginHandler()
	if err != nil {
		return nil, err
	}
	conn := &Conn{}
	pool := t.Pool
	if pool == nil {
		pool = NewPool(ownPoolIdle)
		conn.pool = pool
	}
	var base http.RoundTripper = pool
	if h != nil {
		// The SSE transport has no OAuth handler: its requests get the
		// cached token from the login's transport.
		base = h.Transport(base, transport == TransportSSE)
	}
	client := t.httpClient(base, &conn.refused)
	conn.inflight = newInflight(&conn.refused, MaxUnread)
	client.Transport.(*headerTransport).answers = &conn.answers
	client.Transport.(*headerTransport).inflight = conn.inflight
	if transport == TransportSSE {
		conn.Transport = &mcp.SSEClientTransport{Endpoint: t.URL, HTTPClient: client}
		return conn, nil
	}
	// The go-sdk's own bound on one event (0 would leave it unbounded) is a
	// backstop behind headerTransport's, which refuses an event past MaxBody
	// first and says so in the tester's words.
	st := &mcp.StreamableClientTransport{Endpoint: t.URL, HTTPClient: client, MaxRetries: 2, MaxEventSize: 2 * MaxBody}
	if h != nil {
		st.OAuthHandler = h
	}
	conn.Transport = st
	return conn, nil
}

// LoginHandler returns the login handler of an HTTP target, nil when it
// has none: a command, no Login, or an Authorization header of its own.
func (t *Target) LoginHandler() (*login.Handler, error) {
	if t.URL == "" || t.Login == nil {
		return nil, nil
	}
	if h, _ := ParseHeaders(t.Headers); h.Get("Authorization") != "" {
		return nil, nil
	}
	return t.Login.Handler(t.URL)
}

// HTTPClient returns a client that sends the target's headers, and no
// login's token.
func (t *Target) HTTPClient() *http.Client {
	return t.httpClient(http.DefaultTransport, nil)
}

// httpClient returns the client of the target's requests: its headers
// sent with each, to its origin only, answers bounded (see
// headerTransport); what it refuses is noted in refused, when not nil.
func (t *Target) httpClient(base http.RoundTripper, refused *refusal) *http.Client {
	h, _ := ParseHeaders(t.Headers)
	ht := &headerTransport{base: base, headers: h, refused: refused, urlName: t.Name.Word(OptionURL)}
	if u, err := url.Parse(t.URL); err == nil && u.Host != "" {
		ht.origin = u
	}
	return &http.Client{Transport: ht}
}

// ShellCommand returns the command that runs a server's command line the
// way a target does: through /bin/sh (a simple command under exec, see
// shellLine), or cmd.exe on Windows, in a process group of its own so that
// everything the shell started can be ended together (procgroup.Kill).
func ShellCommand(line string) *exec.Cmd {
	cmd := shellCommand(line)
	procgroup.Isolate(cmd)
	return cmd
}

// DefaultGrace is how long a command server may take to exit after its
// input is closed before it is terminated (Target.Grace): short, since
// servers that keep running at the end of their input are common. Once
// terminated it gets procgroup.TermGrace, since it is then ending.
const DefaultGrace = 200 * time.Millisecond

func (t *Target) openCommand() *Conn {
	cmd := ShellCommand(t.Command)
	cmd.Env = append(cmd.Environ(), t.Env...)
	p := &process{cmd: cmd, stderr: newTail(8 << 10), done: make(chan struct{})}
	cmd.Stderr = p.stderr
	// Do not let a grandchild holding stderr open stall Wait for long; but
	// long enough that, on a loaded machine, what the server wrote to
	// stderr before it exited is copied whole (at 100 ms the last line, the
	// one that says why, was now and then lost).
	cmd.WaitDelay = 2 * time.Second
	grace := t.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	return &Conn{Transport: &commandTransport{proc: p, grace: grace, endGrace: procgroup.TermGrace, watch: newStdoutWatch()}, proc: p}
}

// shellLine returns the line the shell runs for command. A simple command
// (words only, no shell operators) is run with exec, so that the server is
// the shell's own process and the signals of a close reach it directly;
// anything else is run as written, and the process group is ended after
// the close.
func shellLine(command string) string {
	if strings.ContainsAny(command, ";&|<>()`$\n\\'\"*?[]{}~#=") {
		return command
	}
	return "exec " + command
}

type process struct {
	cmd    *exec.Cmd
	stderr *tail
	once   sync.Once
	// done is closed once the process has exited (its Wait returned
	// waitErr).
	done    chan struct{}
	waitErr error
}

func (p *process) exited() (bool, string) {
	select {
	case <-p.done:
		return true, p.cmd.ProcessState.String()
	default:
		return false, ""
	}
}

func (p *process) kill() {
	p.once.Do(func() {
		if p.cmd.Process != nil {
			_ = procgroup.Kill(p.cmd.Process.Pid)
		}
	})
}

// IsHTTPNotStreamable reports whether err from a Streamable HTTP connect
// suggests that the server speaks the legacy SSE transport instead.
func IsHTTPNotStreamable(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, s := range []string{"400", "404", "405", "Bad Request", "Method Not Allowed", "Not Found", "text/event-stream"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// WithTimeout is context.WithTimeout that treats d <= 0 as no limit.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, ErrTimeLimit)
}

// ErrTimeLimit is the cause of a context that WithTimeout ended, so that a
// time limit of the tester's own can be told from the caller's.
var ErrTimeLimit = errors.New("the tester's time limit was reached")

// Outliving wraps t so that the connection it opens lives as long as life,
// not as long as the context given to Connect: the SSE transport ties its
// event stream to that context, so a time limit on connecting would cut the
// stream the moment the connection is made. Connect still gives up when
// its own context ends.
func Outliving(t mcp.Transport, life context.Context) mcp.Transport {
	return &outliving{inner: t, life: life}
}

type outliving struct {
	inner mcp.Transport
	life  context.Context
}

func (o *outliving) Connect(ctx context.Context) (mcp.Connection, error) {
	type result struct {
		c   mcp.Connection
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := o.inner.Connect(o.life)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

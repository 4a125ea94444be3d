// Package httpserve is the one way the example servers serve HTTP: an
// http.Server whose every connection and request is bounded in number, time
// and size, so that a client cannot hold the server's connections, goroutines
// or memory by sending slowly, sending much, sending nothing, or opening many
// connections at once; and so that one client cannot take them from the
// others.
//
//   - connections: at most MaxConns open at once, and MaxConnsPerClient of one
//     client address; a connection beyond is answered 503 and closed at once
//     (it holds no goroutine, no buffer). When all MaxConns are taken, a client
//     holding fewer than the client holding the most takes one of that
//     client's places (its connection that is not in a request, else its
//     oldest, is closed), so that clients at many addresses cannot keep
//     another out: each gets at least an equal share. Behind a proxy the operator trusts
//     (Proxies), the proxy's connections count towards MaxConns only, and the
//     requests in progress of each client the proxy names are bounded by
//     MaxConnsPerClient instead;
//   - headers: at most MaxHeaderBytes, within ReadHeaderTimeout;
//   - a request body: at most MaxBody bytes (413 beyond), all of it within
//     BodyTimeout of the request's start (408 otherwise), read before the
//     handler runs (internal/server/reqbody: every layer inside reads the same bytes,
//     within the same limits); a response may still take as long as it needs
//     (a call held open, an event stream);
//   - the memory of bodies in flight: at most BodyBudget bytes for all
//     requests together and BodyBudgetPerClient for one client; a body that
//     does not fit waits up to BodyWait for others to finish, then is answered
//     503 with Retry-After. The bytes are given back when the request is done,
//     so memory comes back after a flood;
//   - a kept-alive connection with no request: closed after IdleTimeout.
//
// Every request's context names its client (subject.Client): the toolkit counts
// what an anonymous caller holds under that name (subject.Share).
package httpserve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/askback/askback/internal/server/reqbody"
	"github.com/askback/askback/subject"
)

// Defaults of [Options].
const (
	DefaultMaxBody           = 1 << 20
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = reqbody.DefaultTimeout
	DefaultIdleTimeout       = 2 * time.Minute
	// DefaultMaxConns bounds the open connections: each costs a goroutine
	// and its buffers (about 16 KiB idle).
	DefaultMaxConns = 1024
	// DefaultMaxConnsPerClient bounds the open connections of one client
	// address, and the requests in progress of one client a trusted proxy
	// names.
	DefaultMaxConnsPerClient = 128
	// DefaultBodyBudget bounds the bytes of request bodies in flight, all
	// requests together.
	DefaultBodyBudget = 64 << 20
	// DefaultBodyWait is how long a body waits for room in the budget.
	DefaultBodyWait = 2 * time.Second
)

// Options bound a server; nil or a zero field means its default.
type Options struct {
	// MaxBody bounds one request body (DefaultMaxBody).
	MaxBody int64
	// MaxHeaderBytes bounds a request's headers (DefaultMaxHeaderBytes).
	MaxHeaderBytes int
	// ReadHeaderTimeout bounds the time headers take to arrive
	// (DefaultReadHeaderTimeout).
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds the time a body takes to arrive, from the request's
	// start (DefaultBodyTimeout).
	BodyTimeout time.Duration
	// IdleTimeout closes a kept-alive connection without a request
	// (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxConns bounds the connections open at once (DefaultMaxConns).
	MaxConns int
	// MaxConnsPerClient bounds the connections open at once from one client
	// address, an IPv6 client by its /64 (DefaultMaxConnsPerClient). A
	// trusted proxy's connections count towards MaxConns only; the requests
	// in progress of each client it names are bounded by this instead.
	MaxConnsPerClient int
	// BodyBudget bounds the bytes held by the bodies of all requests in
	// flight (DefaultBodyBudget; at least MaxBody).
	BodyBudget int64
	// BodyBudgetPerClient bounds the bytes held by the bodies of one client's
	// requests in flight (BodyBudget/4 when zero; at least MaxBody).
	BodyBudgetPerClient int64
	// BodyWait is how long a body waits for room in the budget before it is
	// refused with 503 (DefaultBodyWait).
	BodyWait time.Duration
	// Proxies are the proxies whose header names the client of a request
	// (subject.Proxies); nil believes no header: the client is the
	// connection's peer.
	Proxies *subject.Proxies
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.MaxBody <= 0 {
		v.MaxBody = DefaultMaxBody
	}
	if v.MaxHeaderBytes <= 0 {
		v.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if v.ReadHeaderTimeout <= 0 {
		v.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if v.BodyTimeout <= 0 {
		v.BodyTimeout = DefaultBodyTimeout
	}
	if v.IdleTimeout <= 0 {
		v.IdleTimeout = DefaultIdleTimeout
	}
	if v.MaxConns <= 0 {
		v.MaxConns = DefaultMaxConns
	}
	if v.MaxConnsPerClient <= 0 {
		v.MaxConnsPerClient = DefaultMaxConnsPerClient
	}
	if v.BodyBudget <= 0 {
		v.BodyBudget = DefaultBodyBudget
	}
	v.BodyBudget = max(v.BodyBudget, v.MaxBody)
	if v.BodyBudgetPerClient <= 0 {
		v.BodyBudgetPerClient = v.BodyBudget / 4
	}
	v.BodyBudgetPerClient = min(max(v.BodyBudgetPerClient, v.MaxBody), v.BodyBudget)
	if v.BodyWait <= 0 {
		v.BodyWait = DefaultBodyWait
	}
	return v
}

// Server returns an http.Server serving h with the bounds of o (see the
// package documentation): its ConnState hook counts the connections, and h is
// wrapped with [Bodies].
func Server(h http.Handler, o *Options) *http.Server {
	v := o.withDefaults()
	c := &conns{opts: v, open: map[net.Conn]*openConn{}, byClient: map[string]int{}}
	return &http.Server{
		Handler:           bodies(h, &v, c),
		ReadHeaderTimeout: v.ReadHeaderTimeout,
		IdleTimeout:       v.IdleTimeout,
		MaxHeaderBytes:    v.MaxHeaderBytes,
		ConnState:         c.state,
		ConnContext:       withConn,
	}
}

// Bodies bounds each request of h as the package documentation says, but
// for the connections: it names the request's client on its context, bounds
// the requests in progress of each client a trusted proxy names, and reads
// the body before h runs, at most o.MaxBody bytes (413 beyond) within
// o.BodyTimeout of the request's start (408 otherwise) and within the memory
// budget (503). h gets the body from memory. A body read so once is not read
// again, so a handler may be wrapped twice (by its own constructor, for its
// tests, and by [Server]).
func Bodies(h http.Handler, o *Options) http.Handler {
	v := o.withDefaults()
	return bodies(h, &v, nil)
}

// bodies is Bodies; c, when not nil, is told which connections are serving
// a request (their places are the last to be given to another client).
func bodies(h http.Handler, v *Options, c *conns) http.Handler {
	budget := reqbody.NewBudget(v.BodyBudget, v.BodyBudgetPerClient, v.BodyWait)
	limits := reqbody.Limits{Max: v.MaxBody, Timeout: v.BodyTimeout}
	proxied := &requests{max: v.MaxConnsPerClient, byClient: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c != nil {
			nc, _ := r.Context().Value(connKey{}).(net.Conn)
			c.serving(nc, 1)
			defer c.serving(nc, -1)
		}
		r = subject.WithRequestClient(r, v.Proxies)
		client := subject.Client(r.Context())
		if v.Proxies.Trusts(subject.PeerAddr(r)) {
			if !proxied.take(client) {
				w.Header().Set("Retry-After", "1")
				http.Error(w, fmt.Sprintf("too many requests of yours in progress (%d); wait for one to finish", v.MaxConnsPerClient), http.StatusServiceUnavailable)
				return
			}
			defer proxied.give(client)
		}
		r = reqbody.WithLimits(r, limits)
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		_, release, err := budget.Read(w, r, limits, client)
		if err != nil {
			reqbody.Refuse(w, err)
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}

// requests counts the requests in progress of each client a trusted proxy
// names.
type requests struct {
	max      int
	mu       sync.Mutex
	byClient map[string]int
}

func (q *requests) take(client string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byClient[client] >= q.max {
		return false
	}
	q.byClient[client]++
	return true
}

func (q *requests) give(client string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byClient[client]--; q.byClient[client] <= 0 {
		delete(q.byClient, client)
	}
}

// conns counts the open connections, in total and per client address, and
// refuses those beyond the bounds as they are accepted.
type conns struct {
	opts     Options
	mu       sync.Mutex
	open     map[net.Conn]*openConn // admitted connections
	byClient map[string]int
	seq      uint64
}

// openConn is what conns knows of an admitted connection.
type openConn struct {
	client  string // "" for a trusted proxy's
	seq     uint64 // the order it was admitted in
	serving int    // requests of it being served
}

// connKey carries a request's connection on its context.
type connKey struct{}

// withConn is the server's ConnContext hook: it puts the connection on the
// context of its requests, for conns to tell which are serving one.
func withConn(ctx context.Context, nc net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, nc)
}

// state is the server's ConnState hook.
func (c *conns) state(conn net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		why, evicted := c.admit(conn)
		if evicted != nil {
			_ = evicted.Close()
		}
		if why != "" {
			refuse(conn, why)
		}
	case http.StateClosed, http.StateHijacked:
		c.release(conn)
	}
}

// serving counts a request of conn beginning (+1) or ending (-1).
func (c *conns) serving(conn net.Conn, d int) {
	if conn == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.open[conn]; ok {
		o.serving += d
	}
}

// admit counts conn, or says why it is refused. When every place is taken
// and conn's client holds fewer than the client holding the most, that
// client gives up a place: the connection to close is returned.
func (c *conns) admit(conn net.Conn) (why string, evicted net.Conn) {
	client := ""
	if peer := peerOf(conn); !c.opts.Proxies.Trusts(peer) {
		client = subject.ClientOfAddr(peer)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if client != "" && c.byClient[client] >= c.opts.MaxConnsPerClient {
		return fmt.Sprintf("too many connections from your address (%d); close some, or try again later", c.opts.MaxConnsPerClient), nil
	}
	if len(c.open) >= c.opts.MaxConns {
		evicted = c.evictLocked(client)
		if evicted == nil {
			return fmt.Sprintf("too many connections (%d); try again later", c.opts.MaxConns), nil
		}
	}
	c.seq++
	c.open[conn] = &openConn{client: client, seq: c.seq}
	if client != "" {
		c.byClient[client]++
	}
	return "", evicted
}

// evictLocked forgets, and returns for closing, a connection of the client
// holding the most places when it holds at least two more than client:
// its oldest connection serving no request, else its oldest. It returns nil
// when no client holds that many (a trusted proxy's connections are never
// taken).
func (c *conns) evictLocked(client string) net.Conn {
	mine := c.byClient[client]
	top, most := "", 0
	for k, n := range c.byClient {
		if n > most || (n == most && k < top) {
			top, most = k, n
		}
	}
	if top == "" || most < mine+2 {
		return nil
	}
	var victim net.Conn
	var best *openConn
	for nc, o := range c.open {
		if o.client == top && (best == nil || o.before(best)) {
			victim, best = nc, o
		}
	}
	if victim != nil {
		c.forgetLocked(victim)
	}
	return victim
}

// peerOf is the address of conn's peer (the zero Addr if it has none).
func peerOf(conn net.Conn) netip.Addr {
	if a, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// release forgets a connection that closed (or was taken over).
func (c *conns) release(conn net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgetLocked(conn)
}

// before reports whether o gives up its place before b: a connection serving
// no request (opened and silent, sending its headers, or idle between
// requests) before one serving a request, then the older first.
func (o *openConn) before(b *openConn) bool {
	if (o.serving == 0) != (b.serving == 0) {
		return o.serving == 0
	}
	return o.seq < b.seq
}

// forgetLocked stops counting conn.
func (c *conns) forgetLocked(conn net.Conn) {
	o, ok := c.open[conn]
	if !ok {
		return
	}
	delete(c.open, conn)
	if client := o.client; client != "" {
		if c.byClient[client]--; c.byClient[client] <= 0 {
			delete(c.byClient, client)
		}
	}
}

// refuse answers a connection beyond the bounds with 503 and closes it,
// without reading anything from it.
func refuse(conn net.Conn, why string) {
	_ = conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = io.WriteString(conn, fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: %d\r\n\r\n%s\n", len(why)+1, why))
	_ = conn.Close()
}

// Flags are the command-line flags of the bounds an operator sets on an
// example server: connections, the memory of bodies in flight, and the proxy
// trusted to name clients.
type Flags struct {
	maxConns, perClient, budgetMiB int
	proxyHeader, trustedProxies    string
}

// RegisterFlags adds -max-conns, -max-conns-per-client, -body-budget-mib,
// -proxy-header and -trusted-proxies to fs.
func RegisterFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.IntVar(&f.maxConns, "max-conns", DefaultMaxConns, "HTTP connections open at once, at most; another is answered 503")
	fs.IntVar(&f.perClient, "max-conns-per-client", DefaultMaxConnsPerClient, "HTTP connections open at once from one client address (an IPv6 client by its /64), at most; behind -trusted-proxies, requests in progress of one client")
	fs.IntVar(&f.budgetMiB, "body-budget-mib", DefaultBodyBudget>>20, "MiB that request bodies in flight may hold, all requests together (one client a quarter); a body beyond waits briefly, then is answered 503")
	fs.StringVar(&f.proxyHeader, "proxy-header", "", "the header in which a proxy in -trusted-proxies names the client address (e.g. X-Forwarded-For); default: none, the client is the connection's peer")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated addresses or prefixes of the proxies whose -proxy-header is believed (e.g. 10.0.0.0/8)")
	return f
}

// Apply sets on o what the flags say: the bounds, and the trusted proxies
// (nil f sets nothing). It fails on a proxy flag without the other, or an
// address that does not parse.
func (f *Flags) Apply(o *Options) error {
	if f == nil {
		return nil
	}
	p, err := subject.ParseProxies(f.proxyHeader, f.trustedProxies)
	if err != nil {
		return fmt.Errorf("-proxy-header, -trusted-proxies: %w", err)
	}
	if f.maxConns < 1 || f.perClient < 1 || f.budgetMiB < 1 {
		return fmt.Errorf("-max-conns, -max-conns-per-client and -body-budget-mib must be at least 1")
	}
	o.Proxies = p
	o.MaxConns, o.MaxConnsPerClient, o.BodyBudget = f.maxConns, f.perClient, int64(f.budgetMiB)<<20
	return nil
}

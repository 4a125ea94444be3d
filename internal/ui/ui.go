// Package ui is `mcp-tester ui`: a page in the browser where a person
// explores a server, answers the questions it asks, sees every round of a
// call and every message on the wire, and saves what they did as a
// recording and a `.mcp` script.
//
// The page is one more client of internal/client/session: the browser never
// speaks MCP. A person's answers reach the session through an
// answer.Answerer that waits for the form they submit. The page is
// rendered on the server with html/template, runs no script, and is
// served under a Content-Security-Policy that allows nothing but its own
// style sheet; everything a server sent is data the template engine
// escapes.
//
// Every request must carry the run's token as the first segment of its
// path (every address of the page is a capability URL: nothing but the
// address grants anything, and no cookie is set, which the browser would
// send to every other port of the host), a Host the server listens as,
// and, when the browser sends one, an Origin of the page itself: no other
// site, no other port of this machine and no DNS rebinding reaches the
// page, and only the person holding the token can start a command.
package ui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/text/runecut"
)

// Target names a server to connect to: a command or a URL, and the
// protocol version to speak ("" for the newest).
type Target struct {
	Command  string
	URL      string
	Protocol string
	// Roots are the roots the page declares and answers roots/list with,
	// each a URI or URI=NAME (as --root takes them); none: the page
	// declares no roots.
	Roots []string
}

// Describe is the target as a person reads it.
func (t Target) Describe() string {
	if t.Command != "" {
		return t.Command
	}
	return t.URL
}

// Options configure a Server.
type Options struct {
	// SessionOptions turns a target into the options of a session (the
	// command's connection flags applied); the page sets the log, the
	// answerer and the observer itself.
	SessionOptions func(t Target) (session.Options, error)
	// Run runs an mcp-tester command line (test, script, audit, scan,
	// inspect, grade) and returns its exit code.
	Run func(ctx context.Context, args []string, out, errOut io.Writer) int
	// TargetArgs are the flags of a command Run runs that reach t as the
	// page's own sessions do (headers, profile, login); nil: -c or -u and
	// --protocol only.
	TargetArgs func(t Target) []string
	// Open opens a URL in the person's browser (a URL question they
	// consented to); nil shows the link only.
	Open func(ctx context.Context, url string) error
	// Roots are the roots the connect form offers until a session is open
	// (--root).
	Roots []string
	// Token is the run's secret; empty makes a random one.
	Token string
	// Dir is where the recordings of the sessions are kept while the page
	// runs; empty makes a temporary folder, removed by Close.
	Dir string
	// WorkDir is the folder saved files are written to when their name is
	// relative; empty is the current folder.
	WorkDir string
	// MaxMessages bounds the message log kept in memory (older messages
	// stay in the recording); zero means 500.
	MaxMessages int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is the page's HTTP server and the state of what the person did.
type Server struct {
	opts    Options
	token   string
	tempDir bool
	hosts   map[string]bool // the Host values accepted
	prefix  string          // "/" and the token: every address of the page starts with it
	pages   map[string]*template.Template

	mu     sync.Mutex
	conn   *conn       // the open session, nil before connecting
	calls  []*call     // what was called, in order
	msgs   *messageLog // the JSON-RPC messages, both ways
	last   string      // the last note shown at the top of the page
	seq    int         // numbers the sessions' recordings
	wake   chan struct{}
	files  []*savedFile
	runs   []*run
	runSeq int // the number of the last run started

	hidden      *secretSet // see secrets
	secretsOnce sync.Once
}

// New makes a Server. Call Listen, then Serve.
func New(opts Options) (*Server, error) {
	if opts.MaxMessages <= 0 {
		opts.MaxMessages = 500
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, token: opts.Token, wake: make(chan struct{})}
	if s.token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		s.token = base64.RawURLEncoding.EncodeToString(b)
	}
	if s.opts.Dir == "" {
		d, err := os.MkdirTemp("", "mcp-tester-ui-")
		if err != nil {
			return nil, err
		}
		s.opts.Dir, s.tempDir = d, true
	}
	s.prefix = "/" + url.PathEscape(s.token)
	s.pages = pagesAt(s.prefix)
	s.msgs = newMessageLog(opts.MaxMessages)
	return s, nil
}

// Token is the run's secret, which every request must carry.
func (s *Server) Token() string { return s.token }

// IsLoopback reports whether addr (host:port) names a loopback address.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Unspecified reports whether addr (HOST:PORT) names every address of the
// machine: no host, 0.0.0.0 or [::]. The page answers only requests
// addressed to the address it listens on (Host is checked: no DNS
// rebinding), and such an address is none that a request names.
func Unspecified(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// Listen opens the listener at addr ("" is 127.0.0.1:0) and sets the Host
// values the page accepts: the address listened on, and for loopback,
// localhost, 127.0.0.1 and [::1] at that port.
func (s *Server) Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s.SetListener(ln, addr)
	return ln, nil
}

// SetListener sets the Host values the page accepts for a listener opened
// at addr (as Listen does).
func (s *Server) SetListener(ln net.Listener, addr string) {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	host, _, _ := net.SplitHostPort(addr)
	s.hosts = map[string]bool{ln.Addr().String(): true}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]"} {
		s.hosts[h+":"+port] = true
	}
	if host != "" {
		s.hosts[net.JoinHostPort(host, port)] = true
	}
}

// URL is the address to open, token included.
func (s *Server) URL(ln net.Listener) string {
	addr := ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		addr = net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
	}
	return "http://" + addr + s.at("/")
}

// at is the address of the page's path p (which starts with "/"): the
// token, then p.
func (s *Server) at(p string) string { return s.prefix + p }

// Serve serves the page on ln until ctx ends, then closes the session.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	err := srv.Serve(ln)
	close(done)
	s.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close ends the session and removes the temporary folder.
func (s *Server) Close() {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
	if s.tempDir {
		os.RemoveAll(s.opts.Dir)
	}
}

// Handler is the page with its guards: Host, Origin and the token are
// checked before anything else.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setHeaders(w.Header())
		if !s.hosts[r.Host] {
			http.Error(w, fmt.Sprintf("mcp-tester ui: Host %s is not the page's: it answers %s (DNS rebinding?)", strconv.Quote(r.Host), s.hostList()), http.StatusMisdirectedRequest)
			return
		}
		if !s.sameOrigin(r) {
			http.Error(w, "mcp-tester ui: a request from another site is refused", http.StatusForbidden)
			return
		}
		rest, ok := s.strip(r.URL.EscapedPath())
		if !ok {
			http.Error(w, "mcp-tester ui: no token: open the address mcp-tester ui printed", http.StatusUnauthorized)
			return
		}
		if rest == "" {
			http.Redirect(w, r, s.at("/"), http.StatusSeeOther)
			return
		}
		r = stripped(r, rest)
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		mux.ServeHTTP(w, r)
	})
}

// hostList is the Host values the page accepts, in byte order (each from
// the address checked by --listen: nothing to escape).
func (s *Server) hostList() string {
	hosts := make([]string, 0, len(s.hosts))
	for h := range s.hosts {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	return strings.Join(hosts, ", ")
}

// strip takes the token off an escaped path: what follows it ("" or a
// path that starts with "/"), and whether the path started with it.
func (s *Server) strip(path string) (string, bool) {
	first, rest := path, ""
	if i := strings.IndexByte(path[min(1, len(path)):], '/'); i >= 0 {
		first, rest = path[:i+1], path[i+1:]
	}
	return rest, subtle.ConstantTimeCompare([]byte(first), []byte(s.prefix)) == 1
}

// stripped is r for the path rest (escaped), as http.StripPrefix makes it.
func stripped(r *http.Request, rest string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = new(url.URL)
	*r2.URL = *r.URL
	r2.URL.RawPath = rest
	if p, err := url.PathUnescape(rest); err == nil {
		r2.URL.Path = p
	} else {
		r2.URL.Path = rest
	}
	return r2
}

// sameOrigin refuses a request another site made: an Origin that is not
// the page's, or a browser's word that it came from another site. A
// request that changes something must name its origin.
func (s *Server) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && u.Host == r.Host && s.hosts[u.Host]
}

// csp allows the page nothing but its own style sheet and images, and
// forms that post to itself.
const csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func setHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer a browser posts the
	// page's forms with "Origin: null", which sameOrigin must refuse. The
	// address (the token in its path) goes in Referer to the page itself
	// only: another port of this host is another origin.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// notify wakes every handler waiting for a change; hold s.mu.
func (s *Server) notify() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// waitChange waits until cond holds (checked under s.mu) or d passes.
func (s *Server) waitChange(ctx context.Context, d time.Duration, cond func() bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ok := cond()
		wake := s.wake
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-wake:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// trim cuts s to n bytes for the page, at a rune.
func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runecut.Prefix(s, n)
	return cut + fmt.Sprintf("… (%d bytes more)", len(s)-len(cut))
}

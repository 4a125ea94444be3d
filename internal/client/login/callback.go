package login

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// callbackPath is where the browser comes back to when the redirect
// address is chosen by the tester.
const callbackPath = "/callback"

// receiver listens on a loopback address for the one redirect that ends
// the browser step of a login.
type receiver struct {
	ln      net.Listener
	srv     *http.Server
	path    string
	results chan redirectResult
	ignored chan struct{} // a request with another state came (one note pending at most)
	closed  sync.Once

	mu   sync.Mutex
	want string // the state of the login waiting; "": none waits
}

// redirectResult is what came back: the authorization server's answer, or
// why it cannot be read.
type redirectResult struct {
	res *auth.AuthorizationResult
	err error
}

// badRedirect is the error of a redirect URL that does not come back to
// this machine; name is the setting's name in the caller's terms.
func badRedirect(name, redirectURL string) error {
	return fmt.Errorf("%s %q: give http://127.0.0.1:PORT/PATH (or [::1] or localhost): the browser comes back to the tester on this machine", name, redirectURL)
}

// listen opens the receiver (name words the RedirectURL setting in errors). redirectURL, when not empty, must be an http
// URL on a loopback host with a port (a client registered with a fixed
// redirect address); otherwise a free port on 127.0.0.1 is used. It
// returns the redirect URL to register and send.
func listen(name, redirectURL string) (*receiver, string, error) {
	addr, path := "127.0.0.1:0", callbackPath
	if redirectURL != "" {
		u, err := url.Parse(redirectURL)
		if err != nil || u.Scheme != "http" || u.Port() == "" || !isLoopbackHost(u.Hostname()) || u.RawQuery != "" || u.Fragment != "" {
			return nil, "", badRedirect(name, redirectURL)
		}
		addr, path = net.JoinHostPort(u.Hostname(), u.Port()), u.EscapedPath()
		if path == "" {
			path = "/"
		}
		if u.Hostname() == "localhost" {
			addr = net.JoinHostPort("127.0.0.1", u.Port())
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen for the browser's return on %s: %w", addr, err)
	}
	r := &receiver{ln: ln, path: path, results: make(chan redirectResult, 1), ignored: make(chan struct{}, 1)}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}
	go func() { _ = r.srv.Serve(ln) }()
	if redirectURL != "" {
		return r, redirectURL, nil
	}
	return r, "http://" + ln.Addr().String() + path, nil
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// close stops listening.
func (r *receiver) close() {
	r.closed.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = r.srv.Shutdown(ctx)
	})
}

// drain forgets a result that nobody waited for (a redirect after the
// login gave up), so that the next login starts clean.
func (r *receiver) drain() {
	select {
	case <-r.results:
	default:
	}
}

var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-tester login</title></head>
<body><h1>{{.Title}}</h1><p>{{.Text}}</p></body></html>
`))
})

// expect sets the state of the login that waits ("" when none does).
func (r *receiver) expect(state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.want = state
}

// ServeHTTP takes the browser's return. A request without the state of
// the login that waits (none waits, no state, another one, or it given
// twice) is answered with an error page and otherwise ignored, so that a
// forged request cannot end the login that the real one would complete.
// Nothing the request carries is written back into the page.
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.EscapedPath() != r.path {
		http.NotFound(w, req)
		return
	}
	if req.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if !r.forThisLogin(req.URL.RawQuery) {
		select {
		case r.ignored <- struct{}{}:
		default:
		}
		w.WriteHeader(http.StatusBadRequest)
		_ = pageTemplate().Execute(w, struct{ Title, Text string }{"Not this login", "This answer does not belong to the login mcp-tester is waiting for (a stale tab, or a forged request): it was ignored. You can close this tab."})
		return
	}
	res, err := ParseRedirect(req.URL.RawQuery)
	title, text, status := "Logged in", "mcp-tester has what it needs. You can close this tab and return to the terminal.", http.StatusOK
	if err != nil {
		title, text, status = "Login failed", "mcp-tester could not use this answer; the terminal says why. You can close this tab.", http.StatusBadRequest
	}
	select {
	case r.results <- redirectResult{res: res, err: err}:
	default:
		title, text, status = "Already done", "mcp-tester already had an answer for this login. You can close this tab.", http.StatusConflict
	}
	w.WriteHeader(status)
	_ = pageTemplate().Execute(w, struct{ Title, Text string }{title, text})
}

// forThisLogin reports whether a redirect's query carries, once, the state
// of the login that waits.
func (r *receiver) forThisLogin(rawQuery string) bool {
	r.mu.Lock()
	want := r.want
	r.mu.Unlock()
	if want == "" || len(rawQuery) > maxRedirectQuery {
		return false
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil || len(q["state"]) != 1 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(q["state"][0]), []byte(want)) == 1
}

// maxRedirectQuery bounds the redirect's query string.
const maxRedirectQuery = 8 << 10

// ParseRedirect reads the query string of the address an authorization
// server sent the browser back to: the code, the state and the issuer
// (RFC 9207), or the error it reported. Each parameter must appear at most
// once; a code and an error together are refused.
func ParseRedirect(rawQuery string) (*auth.AuthorizationResult, error) {
	if len(rawQuery) > maxRedirectQuery {
		return nil, fmt.Errorf("the address the browser came back to is longer than %d bytes", maxRedirectQuery)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("the address the browser came back to has an unreadable query: %w", err)
	}
	one := func(name string) (string, error) {
		switch vs := q[name]; len(vs) {
		case 0:
			return "", nil
		case 1:
			return vs[0], nil
		default:
			return "", fmt.Errorf("the address the browser came back to names %s %d times", name, len(vs))
		}
	}
	var vals [5]string
	for i, name := range []string{"code", "state", "iss", "error", "error_description"} {
		if vals[i], err = one(name); err != nil {
			return nil, err
		}
	}
	code, state, iss, oerr, desc := vals[0], vals[1], vals[2], vals[3], vals[4]
	switch {
	case oerr != "" && code != "":
		return nil, errors.New("the address the browser came back to carries both a code and an error")
	case oerr != "":
		if desc != "" {
			return nil, fmt.Errorf("the authorization server refused the login: %s (%s)", printable(oerr), printable(desc))
		}
		return nil, fmt.Errorf("the authorization server refused the login: %s", printable(oerr))
	case code == "":
		return nil, errors.New("the address the browser came back to carries no code= (nor error=)")
	}
	return &auth.AuthorizationResult{Code: code, State: state, Iss: iss}, nil
}

// ParsePasted reads an address a person pasted: the whole URL the browser
// ended on, or just its query string.
func ParsePasted(line string) (*auth.AuthorizationResult, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil, errors.New("nothing was pasted")
	}
	if _, query, ok := strings.Cut(line, "?"); ok {
		line = query
	}
	line, _, _ = strings.Cut(line, "#")
	return ParseRedirect(line)
}

// printable keeps at most 200 bytes of s and escapes what is not
// printable ASCII, for messages built from what a server sent.
func printable(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}

// errNothingPasted is the end of the input before an address was pasted:
// no answer, so the login waits on for the browser (see awaitRedirect).
var errNothingPasted = errors.New("the input ended before an address was pasted")

// readLine reads one line of at most max bytes from r.
func readLine(r io.Reader, max int) (string, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, int64(max)+1), 4096)
	line, err := br.ReadString('\n')
	if len(line) > max {
		return "", fmt.Errorf("the pasted line is longer than %d bytes", max)
	}
	if err != nil && (err != io.EOF || line == "") {
		if err == io.EOF {
			return "", errNothingPasted
		}
		return "", err
	}
	return line, nil
}

package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/connect"
	"github.com/askback/askback/internal/server/reqbody"
	"github.com/askback/askback/subject"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// demoUser is one user of the example server: the bearer token their MCP client sends and
// the password they sign in to the server's web pages with. A real server gets both from
// its authorization server; the example keeps a static list.
type demoUser struct {
	Name     string
	Token    string
	Password string
}

// parseUser reads "NAME:TOKEN:PASSWORD".
func parseUser(s string) (demoUser, error) {
	parts := strings.SplitN(strings.TrimSpace(s), ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return demoUser{}, fmt.Errorf("user %q: write NAME:TOKEN:PASSWORD", s)
	}
	if len(parts[1]) < 8 {
		return demoUser{}, fmt.Errorf("user %q: use a bearer token of at least 8 characters", parts[0])
	}
	return demoUser{Name: parts[0], Token: parts[1], Password: parts[2]}, nil
}

// readUsers reads one NAME:TOKEN:PASSWORD per line; blank lines and lines starting with
// '#' are skipped.
func readUsers(r io.Reader) ([]demoUser, error) {
	var users []demoUser
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, err := parseUser(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		users = append(users, u)
	}
	return users, sc.Err()
}

// userDirectory answers who a bearer token or a password belongs to.
type userDirectory struct {
	users []demoUser
}

// verifyToken is the MCP side: a go-sdk auth.TokenVerifier that maps the static bearer
// token to its user.
func (d *userDirectory) verifyToken(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	for _, u := range d.users {
		if subtle.ConstantTimeCompare([]byte(token), []byte(u.Token)) == 1 {
			return &auth.TokenInfo{UserID: u.Name, Expiration: time.Now().Add(time.Hour)}, nil
		}
	}
	return nil, fmt.Errorf("unknown bearer token: %w", auth.ErrInvalidToken)
}

func (d *userDirectory) checkPassword(name, password string) bool {
	ok := false
	for _, u := range d.users {
		nameOK := subtle.ConstantTimeCompare([]byte(name), []byte(u.Name)) == 1
		passOK := subtle.ConstantTimeCompare([]byte(password), []byte(u.Password)) == 1
		if nameOK && passOK {
			ok = true
		}
	}
	return ok
}

// sessions is the server's own browser sign-in: a random session id in an HttpOnly
// cookie, mapped to the user in memory. It implements connect.BrowserAuth.
//
// Each user holds at most maxSessionsPerUser sessions: signing in once more ends that
// user's oldest session. So memory is bounded by the user directory, and no user can
// lock another out by signing in over and over.
type sessions struct {
	dir      *userDirectory
	secure   bool
	ttl      time.Duration
	now      func() time.Time
	throttle *signInThrottle

	mu     sync.Mutex
	byID   map[string]session
	byUser map[string][]string // session ids, oldest first
}

type session struct {
	user    string
	expires time.Time
}

// sessions is the example's browser sign-in for the connect pages.
var (
	_ connect.BrowserAuth   = (*sessions)(nil)
	_ connect.SessionBinder = (*sessions)(nil)
)

const (
	sessionCookie      = "askback_session"
	maxSessionsPerUser = 16
	// maxSignInForm bounds the sign-in form: a name, a password and a path.
	maxSignInForm = 4096
)

func newSessions(dir *userDirectory, secure bool, now func() time.Time, limits throttleLimits) *sessions {
	return &sessions{dir: dir, secure: secure, ttl: 12 * time.Hour, now: now, throttle: newSignInThrottle(limits, now),
		byID: make(map[string]session), byUser: make(map[string][]string)}
}

// User implements connect.BrowserAuth.
func (s *sessions) User(r *http.Request) (string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.byID[c.Value]
	if !ok || !s.now().Before(se.expires) {
		return "", nil
	}
	return se.user, nil
}

// Session implements connect.SessionBinder: the provider flow is bound to the browser
// session that started it.
func (s *sessions) Session(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if se, ok := s.byID[c.Value]; ok && s.now().Before(se.expires) {
		return c.Value
	}
	return ""
}

// SignIn implements connect.BrowserAuth.
func (s *sessions) SignIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/signin?"+url.Values{"return": {returnTo}}.Encode(), http.StatusSeeOther)
}

// start opens a session for user and sets its cookie. The user's expired sessions
// are dropped and, at the limit, the oldest live one is ended.
func (s *sessions) start(w http.ResponseWriter, user string) error {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	id := base64.RawURLEncoding.EncodeToString(b)
	now := s.now()
	s.mu.Lock()
	ids := s.byUser[user][:0:0]
	for _, old := range s.byUser[user] {
		if se, ok := s.byID[old]; ok && now.Before(se.expires) {
			ids = append(ids, old)
		} else {
			delete(s.byID, old)
		}
	}
	for len(ids) >= maxSessionsPerUser {
		delete(s.byID, ids[0])
		ids = ids[1:]
	}
	s.byID[id] = session{user: user, expires: now.Add(s.ttl)}
	s.byUser[user] = append(ids, id)
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		Secure: s.secure, SameSite: http.SameSiteLaxMode, MaxAge: int(s.ttl / time.Second)})
	return nil
}

// localPath returns p if it is a path on this server, else the sign-in page itself. It
// keeps the sign-in page from becoming an open redirect.
func localPath(p string) string {
	const home = "/signin"
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") ||
		strings.ContainsAny(p, "\r\n\\") {
		return home
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return home
	}
	return p
}

var signinTemplate = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}</style></head>
<body>
<h1 id="heading">Sign in to {{.Server}}</h1>
{{if .Failed}}<p id="error">That name and password do not match. Try again.</p>{{end}}
{{if .Wait}}<p id="throttled">Too many sign-in attempts. Try again in {{.Wait}} seconds.</p>{{end}}
{{if .User}}<p id="signed-in">Signed in as {{.User}}.</p>{{end}}
<form method="post" action="/signin">
<input type="hidden" name="return" value="{{.Return}}">
<p><label>Name <input id="name" name="name" autocomplete="username"></label></p>
<p><label>Password <input id="password" name="password" type="password" autocomplete="current-password"></label></p>
<p><button id="signin" type="submit">Sign in</button></p>
</form>
</body></html>
`))

// serveSignIn shows the sign-in form (GET) or checks it (POST).
func (s *sessions) serveSignIn(serverName string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Frame-Options", "DENY")
		data := struct {
			Server, Return, User string
			Failed               bool
			Wait                 int // seconds before another attempt
		}{Server: serverName, Return: localPath(r.URL.Query().Get("return"))}
		if r.Method == http.MethodPost {
			form, err := reqbody.Form(w, r, reqbody.Limits{Max: maxSignInForm})
			if err != nil {
				reqbody.Refuse(w, err)
				return
			}
			data.Return = localPath(form.Get("return"))
			name, pass := form.Get("name"), form.Get("password")
			// Throttled per address and account, per address and per
			// account (throttle.go); a refused attempt's password is not
			// checked at all.
			done, wait := s.throttle.begin(subject.Client(r.Context()), name)
			if done == nil {
				data.Wait = int(math.Ceil(wait.Seconds()))
				w.Header().Set("Retry-After", strconv.Itoa(data.Wait))
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(http.StatusTooManyRequests)
				_ = signinTemplate.Execute(w, data)
				return
			}
			ok := s.dir.checkPassword(name, pass)
			done(ok)
			if ok {
				if err := s.start(w, name); err != nil {
					http.Error(w, "could not sign in: "+err.Error(), http.StatusServiceUnavailable)
					return
				}
				http.Redirect(w, r, data.Return, http.StatusSeeOther)
				return
			}
			data.Failed = true
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnauthorized)
			_ = signinTemplate.Execute(w, data)
			return
		}
		data.User, _ = s.User(r)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = signinTemplate.Execute(w, data)
	}
}

package connect

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/keys"
	"golang.org/x/oauth2"
)

// testProvider is a minimal OAuth 2.0 authorization server for the connect tests: its
// authorization endpoint approves at once (the consent page is not what these tests are
// about), and its token endpoint checks the code, the client and the S256 verifier.
type testProvider struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	codes    map[string]string // code -> S256 challenge
	lastAuth url.Values
	issued   int
	deny     bool
}

func newTestProvider(t *testing.T) *testProvider {
	p := &testProvider{t: t, codes: make(map[string]string)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		p.mu.Lock()
		p.lastAuth = q
		deny := p.deny
		code := fmt.Sprintf("code-%d", len(p.codes)+1)
		p.codes[code] = q.Get("code_challenge")
		p.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"state": {q.Get("state")}}
		if deny {
			v.Set("error", "access_denied")
		} else {
			v.Set("code", code)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		if id != "client" || secret != "secret" {
			writeTokenError(w, "invalid_client")
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		switch r.PostFormValue("grant_type") {
		case "authorization_code":
			challenge, ok := p.codes[r.PostFormValue("code")]
			delete(p.codes, r.PostFormValue("code"))
			sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
			if !ok || challenge != base64.RawURLEncoding.EncodeToString(sum[:]) {
				writeTokenError(w, "invalid_grant")
				return
			}
		case "refresh_token":
			if !strings.HasPrefix(r.PostFormValue("refresh_token"), "refresh-") {
				writeTokenError(w, "invalid_grant")
				return
			}
		default:
			writeTokenError(w, "unsupported_grant_type")
			return
		}
		p.issued++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"access_token":  fmt.Sprintf("access-%d", p.issued),
			"refresh_token": fmt.Sprintf("refresh-%d", p.issued),
			"token_type":    "bearer",
			"expires_in":    3600,
		})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func writeTokenError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// headerAuth is a BrowserAuth for tests: the browser user is the X-Test-User cookie.
type headerAuth struct{}

func (headerAuth) User(r *http.Request) (string, error) {
	c, err := r.Cookie("test_user")
	if err != nil {
		return "", nil
	}
	return c.Value, nil
}

func (headerAuth) SignIn(w http.ResponseWriter, r *http.Request, returnTo string) {
	http.Redirect(w, r, "/signin?"+url.Values{"return": {returnTo}}.Encode(), http.StatusSeeOther)
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a connector mounted on a test server, its provider and store.
type fixture struct {
	c        *Connector
	srv      *httptest.Server
	provider *testProvider
	store    *tokenstore.Memory
	clock    *testClock
}

var testKey = keys.Key{ID: "k1", Secret: bytes.Repeat([]byte{1}, 32)}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, headerAuth{})
}

// sessionAuth is headerAuth that also names the browser session: the test_session
// cookie.
type sessionAuth struct{ headerAuth }

func (sessionAuth) Session(r *http.Request) string {
	c, err := r.Cookie("test_session")
	if err != nil {
		return ""
	}
	return c.Value
}

func newFixtureWith(t *testing.T, ba BrowserAuth) *fixture {
	t.Helper()
	f := &fixture{provider: newTestProvider(t), store: tokenstore.NewMemory(), clock: &testClock{t: time.Now()}}
	mux := http.NewServeMux()
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	c, err := New(&Options{
		BaseURL: f.srv.URL + "/connect",
		Keys:    []keys.Key{testKey},
		Providers: []Provider{{Name: "github", Title: "GitHub", OAuth2: oauth2.Config{
			ClientID: "client", ClientSecret: "secret",
			Endpoint: oauth2.Endpoint{AuthURL: f.provider.srv.URL + "/authorize", TokenURL: f.provider.srv.URL + "/token",
				AuthStyle: oauth2.AuthStyleInHeader},
		}}},
		BrowserAuth: ba,
		Store:       f.store,
		ServerName:  "Test Server",
		Now:         f.clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	mux.Handle("/connect/", c)
	mux.HandleFunc("/signin", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "sign-in page") })
	return f
}

// browserAs returns an HTTP client with a cookie jar, signed in as user ("" for nobody).
func (f *fixture) browserAs(t *testing.T, user string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		u, _ := url.Parse(f.srv.URL)
		jar.SetCookies(u, []*http.Cookie{{Name: "test_user", Value: user, Path: "/"}})
	}
	return &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

func (f *fixture) setCookie(t *testing.T, b *http.Client, name, value string) {
	u, _ := url.Parse(f.srv.URL)
	b.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

func (f *fixture) setBrowserUser(t *testing.T, b *http.Client, user string) {
	u, _ := url.Parse(f.srv.URL)
	b.Jar.SetCookies(u, []*http.Cookie{{Name: "test_user", Value: user, Path: "/"}})
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

type oauthToken = oauth2.Token

func oauthConfig(authURL, tokenURL string) oauth2.Config {
	return oauth2.Config{ClientID: "client", ClientSecret: "secret",
		Endpoint: oauth2.Endpoint{AuthURL: authURL, TokenURL: tokenURL}}
}

// Package login logs the tester in to MCP servers that require OAuth
// authorization, on top of the go-sdk's auth and oauthex packages and
// golang.org/x/oauth2: on a 401 with a Bearer challenge it discovers the
// protected resource and authorization server metadata, picks a client
// identity (a client ID metadata document, a pre-registered client, or
// dynamic registration, in that order), runs the authorization code flow
// with PKCE through the person's browser and a loopback redirect (or a
// pasted address), and retries. Machines log in with client credentials.
//
// Tokens are cached per server and identity in files only the user can
// read ([Cache]), refreshed before they expire, and never printed. A 403
// insufficient_scope asks once for the larger scope; a server that still
// refuses, a browser that never comes back, a wrong state, an
// authorization server without PKCE or with another issuer's metadata end
// the login with the reason.
package login

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/text/optname"
)

// Settings say how to log in. The zero value logs in through the browser
// with a dynamically registered client, as identity "default".
type Settings struct {
	// Identity names the login in the cache; empty is DefaultIdentity.
	// Two identities keep two logins to one server.
	Identity string
	// ClientID and ClientSecret are a client registered beforehand with
	// the authorization server (the secret is empty for a public client).
	ClientID, ClientSecret string
	// ClientMetadataURL is the https URL of a client ID metadata document,
	// used as the client id by authorization servers that support them.
	ClientMetadataURL string
	// ClientCredentials logs in as a machine (the client_credentials
	// grant) with ClientID and ClientSecret or ClientKeyFile: no browser.
	ClientCredentials bool
	// ClientKeyFile is a PEM private key (EC or RSA) with which a client
	// credentials login signs its assertion (private_key_jwt) instead of
	// sending a secret.
	ClientKeyFile string
	// AssertionFile holds a JWT from the workload's identity provider (a CI
	// job's OIDC token, say), traded for an access token with the
	// JWT-bearer grant (RFC 7523, workload identity federation): no
	// browser. It is read at each login, so a rotated token is picked up.
	AssertionFile string
	// IDTokenFile holds an OpenID Connect ID token from the enterprise's
	// identity provider at IdPIssuer: enterprise-managed authorization
	// trades it there for an identity assertion (token exchange, RFC 8693)
	// and that at the server's authorization server (JWT-bearer grant),
	// with ClientID and ClientSecret. No browser.
	IDTokenFile string
	// IdPIssuer is the identity provider's issuer URL; IdPClientID and
	// IdPClientSecret the tester's client there.
	IdPIssuer, IdPClientID, IdPClientSecret string
	// Scopes are asked for in addition to the ones the server names.
	Scopes []string
	// RedirectURL is the loopback address the browser comes back to; empty
	// picks a free port on 127.0.0.1.
	RedirectURL string
	// NoBrowser does not open a browser: the person opens the printed
	// address anywhere and pastes the address the browser ended on.
	NoBrowser bool
	// Fresh ignores a cached login: the next refusal logs in again.
	Fresh bool
	// CachedOnly never starts a login: a server that asks for one is an
	// error (for shell completion, which must not open a browser).
	CachedOnly bool
	// Timeout bounds a login as a whole (discovery, registration, the
	// browser, the token), and the time limit of the request that needed
	// it is paused meanwhile. Zero: the login ends within what is left of
	// that request's limit (the command's --timeout), or DefaultTimeout
	// when the request has none.
	Timeout time.Duration
	// Name words a setting in the caller's terms in errors (the CLI
	// gives its flags); nil, or an empty word, names the field of
	// Settings.
	Name optname.Namer[Setting]
}

// DefaultTimeout bounds a login whose request has no time limit, and is
// auth login's.
const DefaultTimeout = 5 * time.Minute

// Validate reports settings that cannot work together.
func (s *Settings) Validate() error {
	if s.Identity != "" {
		if err := ValidIdentity(s.Identity); err != nil {
			return err
		}
	}
	for _, check := range []func() error{s.validKind, s.validClient, s.validIdP, s.validURLs, s.validScopes} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validKind refuses two kinds of login at once.
func (s *Settings) validKind() error {
	switch {
	case s.AssertionFile != "" && (s.ClientCredentials || s.ClientKeyFile != ""):
		return fmt.Errorf("%s is a login of its own: drop %s and %s", s.Name.Word(SettingAssertionFile), s.Name.Word(SettingClientCredentials), s.Name.Word(SettingClientKeyFile))
	case s.IDTokenFile != "" && (s.ClientCredentials || s.AssertionFile != ""):
		return fmt.Errorf("%s is a login of its own: drop %s and %s", s.Name.Word(SettingIDTokenFile), s.Name.Word(SettingClientCredentials), s.Name.Word(SettingAssertionFile))
	}
	return nil
}

// validClient refuses a client's credentials that are incomplete or given
// twice.
func (s *Settings) validClient() error {
	switch {
	case s.ClientSecret != "" && s.ClientID == "":
		return fmt.Errorf("a client secret needs its client id (%s)", s.Name.Word(SettingClientID))
	case s.ClientKeyFile != "" && !s.ClientCredentials:
		return fmt.Errorf("%s signs client credentials: add %s", s.Name.Word(SettingClientKeyFile), s.Name.Word(SettingClientCredentials))
	case !s.ClientCredentials:
		return nil
	case s.ClientID == "":
		return fmt.Errorf("%s needs %s and a secret or %s", s.Name.Word(SettingClientCredentials), s.Name.Word(SettingClientID), s.Name.Word(SettingClientKeyFile))
	case s.ClientSecret == "" && s.ClientKeyFile == "":
		return fmt.Errorf("%s needs a client secret (%s) or %s", s.Name.Word(SettingClientCredentials), s.Name.Word(SettingClientSecret), s.Name.Word(SettingClientKeyFile))
	case s.ClientSecret != "" && s.ClientKeyFile != "":
		return fmt.Errorf("give a client secret or %s, not both", s.Name.Word(SettingClientKeyFile))
	}
	return nil
}

// validIdP refuses an enterprise login without its identity provider, or
// the other way round, and a negative time limit.
func (s *Settings) validIdP() error {
	switch {
	case s.IDTokenFile != "" && (s.IdPIssuer == "" || s.IdPClientID == "" || s.ClientID == ""):
		return fmt.Errorf("%s needs %s, %s and the server's %s", s.Name.Word(SettingIDTokenFile), s.Name.Word(SettingIdPIssuer), s.Name.Word(SettingIdPClientID), s.Name.Word(SettingClientID))
	case s.IDTokenFile == "" && (s.IdPIssuer != "" || s.IdPClientID != ""):
		return fmt.Errorf("%s and %s go with %s", s.Name.Word(SettingIdPIssuer), s.Name.Word(SettingIdPClientID), s.Name.Word(SettingIDTokenFile))
	case s.Timeout < 0:
		return fmt.Errorf("%s must not be negative", s.Name.Word(SettingTimeout))
	}
	return nil
}

// validURLs refuses a client metadata document that is not an https URL
// with a path, and a redirect that does not come back to this machine.
func (s *Settings) validURLs() error {
	if s.ClientMetadataURL != "" {
		u, err := url.Parse(s.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return fmt.Errorf("%s %q: give the https URL of the document, with a path", s.Name.Word(SettingClientMetadataURL), s.ClientMetadataURL)
		}
	}
	if s.RedirectURL != "" {
		u, err := url.Parse(s.RedirectURL)
		if err != nil || u.Scheme != "http" || u.Port() == "" || !isLoopbackHost(u.Hostname()) || u.RawQuery != "" || u.Fragment != "" {
			return badRedirect(s.Name.Word(SettingRedirectURL), s.RedirectURL)
		}
		// The tester listens there: its port is checked as a flag's URL
		// is (a fixed TCP port), whether a flag or a profile gave it.
		if err := urlcheck.ServerURL(s.RedirectURL); err != nil {
			return fmt.Errorf("%s %s: %w", s.Name.Word(SettingRedirectURL), s.RedirectURL, err)
		}
	}
	return nil
}

// validScopes refuses a scope that is empty or would read as several.
func (s *Settings) validScopes() error {
	for _, sc := range s.Scopes {
		if sc == "" || strings.ContainsAny(sc, " \t\r\n\"\\") {
			return fmt.Errorf("%s %q: one scope each, without spaces or quotes", s.Name.Word(SettingScopes), sc)
		}
	}
	return nil
}

// machine reports whether the login needs no person: client credentials,
// a workload's assertion or an enterprise's ID token.
func (s *Settings) machine() bool {
	return s.ClientCredentials || s.AssertionFile != "" || s.IDTokenFile != ""
}

func (s *Settings) identity() string {
	if s.Identity == "" {
		return DefaultIdentity
	}
	return s.Identity
}

// Login is what every connection of one command shares to log in: the
// settings, the cache, the person's streams and browser. It makes one
// Handler per server, so that concurrent connections (bench workers,
// audit probes) log in once.
type Login struct {
	// Settings say how to log in.
	Settings Settings
	// Cache keeps the logins.
	Cache *Cache
	// In is where a pasted address is read (NoBrowser).
	In io.Reader
	// ErrOut receives the authorization address and progress.
	ErrOut io.Writer
	// Open opens an address in the person's browser; nil opens none.
	Open func(ctx context.Context, url string) error
	// HTTPClient makes the requests to the authorization server and the
	// metadata documents; nil means a client with a 30 s time limit.
	HTTPClient *http.Client
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// OnToken, if set, hears the tokens of every login as it is taken up
	// (from the cache, a new login, a refresh): the access token and the
	// refresh token, for the output to hide them.
	OnToken func(tokens ...string)
	// OnStep, if set, hears each step of a login as it happens (the
	// challenge, discovery, registration, the browser, the token, a
	// refresh), never with a token or a code in it: for a page that
	// shows the login.
	OnStep func(Step)

	mu       sync.Mutex
	handlers map[string]*Handler
}

// For returns a Login for another identity that shares l's settings,
// cache, streams and browser (the audit's second user).
func (l *Login) For(identity string) *Login {
	c := &Login{Settings: l.Settings, Cache: l.Cache, In: l.In, ErrOut: l.ErrOut, Open: l.Open, HTTPClient: l.HTTPClient, Now: l.Now, OnToken: l.OnToken, OnStep: l.OnStep}
	c.Settings.Identity = identity
	c.Settings.Fresh = false
	return c
}

// Identity is the identity l logs in as.
func (l *Login) Identity() string { return l.Settings.identity() }

func (l *Login) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Login) client() *http.Client {
	if l.HTTPClient != nil {
		return l.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
}

func (l *Login) errOut() io.Writer {
	if l.ErrOut == nil {
		return io.Discard
	}
	return l.ErrOut
}

// Handler returns the handler for server, made on first use: it starts
// with the cached login unless Settings.Fresh.
func (l *Login) Handler(server string) (*Handler, error) {
	key, err := Key(server)
	if err != nil {
		return nil, err
	}
	if err := l.Settings.Validate(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.handlers[key]; ok {
		return h, nil
	}
	h := &Handler{l: l, server: key, identity: l.Settings.identity()}
	if !l.Settings.Fresh && l.Cache != nil {
		e, err := l.Cache.Load(key, h.identity)
		if err != nil {
			return nil, err
		}
		if e != nil {
			h.install(e, false)
			l.step(Step{Kind: StepCache, What: fmt.Sprintf("took up the cached login of identity %s (scopes %s)", h.identity, strings.Join(e.Scopes, " ")), URL: key})
		}
	}
	if l.handlers == nil {
		l.handlers = map[string]*Handler{}
	}
	l.handlers[key] = h
	return h, nil
}

// tokens tells OnToken of e's tokens.
func (l *Login) tokens(e *Entry) {
	if l.OnToken != nil {
		l.OnToken(e.AccessToken, e.RefreshToken)
	}
}

// save writes e to the cache; a failure is a warning, since the login
// still works for this run.
func (l *Login) save(e *Entry) {
	if l.Cache == nil {
		return
	}
	c := *e
	if err := l.Cache.Save(&c); err != nil {
		fmt.Fprintf(l.errOut(), "mcp-tester: warning: the login works for this run but was not cached: %v\n", err)
	}
}

// DefaultCache returns the cache under the user's configuration
// directory.
func DefaultCache() (*Cache, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("the token cache needs a configuration directory (set XDG_CONFIG_HOME or HOME): %w", err)
	}
	return &Cache{Dir: DefaultDir(dir)}, nil
}

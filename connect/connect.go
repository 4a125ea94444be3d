// Package connect lets an MCP server connect a user's third-party account (GitHub, for
// example) through URL-mode elicitation without opening the door to phishing.
//
// A tool that needs the user's third-party token asks for it with a URL question
// ([Connector.Require] or [Connector.Ask]). The URL points to this package's
// [http.Handler], not to the provider: it carries a signed, expiring link that names the
// provider and is bound to the MCP user (by a keyed hash, so the URL holds no user data).
// When the browser opens it, the handler requires the server's own browser sign-in
// ([BrowserAuth]) and refuses, storing nothing, when the signed-in browser user is not the
// user the link was made for. This stops the attack described in the specification, where
// Alice forwards her link to Bob and Bob's third-party token ends up in Alice's account.
// Only then does it start an OAuth 2.0 authorization-code flow with PKCE (S256) and a
// state bound to this browser and this link, exchange the code on the callback, and keep
// the token in a [tokenstore.Store]. The token never reaches the MCP client; the tool gets
// it with [Connector.TokenFor].
//
// The MCP user always comes from MCP authorization (the go-sdk's
// [github.com/modelcontextprotocol/go-sdk/auth.RequireBearerToken] middleware puts it in
// the request's TokenInfo, read by [Options.Subject]), never from anything the client
// says.
package connect

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/subject"
	"golang.org/x/oauth2"
)

// Provider is a third-party OAuth 2.0 authorization server that users can connect.
type Provider struct {
	// Name identifies the provider in links, callback paths and the token store
	// ("github"). Lower-case letters, digits and '-' only.
	Name string
	// Title is the name shown to people ("GitHub").
	Title string
	// OAuth2 holds the client registration at the provider: client id and secret,
	// endpoints and scopes. RedirectURL is ignored: the connector sets it to its own
	// callback, BaseURL + "/" + Name + "/callback", which must be registered at the
	// provider.
	OAuth2 oauth2.Config
}

// Options configure a [Connector].
type Options struct {
	// BaseURL is the absolute URL at which the connector's handler is mounted, for
	// example "https://mcp.example.com/connect". Links and callbacks live below it. Use
	// https in production; plain http is accepted only for loopback hosts.
	BaseURL string
	// Keys sign links and seal the flow cookie. The first key signs; all verify, so a
	// new key can be put first while links signed with the old one are still valid.
	Keys []keys.Key
	// Providers that users can connect.
	Providers []Provider
	// BrowserAuth tells who is signed in to the server in a browser.
	BrowserAuth BrowserAuth
	// Store keeps the tokens. Required.
	Store tokenstore.Store
	// Subject returns the MCP user of a request, whose account a link connects.
	// Default subject.FromToken (TokenInfo.UserID, else its "sub"), as in every
	// toolkit package: give them all the same function.
	Subject subject.Func
	// LinkTTL is how long a link stays valid. Default 10 minutes.
	LinkTTL time.Duration
	// FlowTTL is how long the browser may take at the provider. Default 10 minutes.
	FlowTTL time.Duration
	// ServerName is shown on the pages ("the deploy assistant"). Default "this server".
	ServerName string
	// HTTPClient is used to exchange codes and refresh tokens. Default: a client with a
	// 15 second timeout.
	HTTPClient *http.Client
	// Now returns the current time. Default time.Now. Tests set it to expire links.
	Now func() time.Time
	// Logger receives one line per refused or completed flow. Tokens are never logged.
	// Default: discard.
	Logger *slog.Logger
}

// Connector is the connect flow: the handler for the browser and the helpers for tools.
// Create it with [New]; it is safe for concurrent use.
type Connector struct {
	base      *url.URL
	keys      keyring
	providers map[string]*Provider
	auth      BrowserAuth
	store     tokenstore.Store
	subject   subject.Func
	linkTTL   time.Duration
	flowTTL   time.Duration
	name      string
	client    *http.Client
	now       func() time.Time
	log       *slog.Logger
	mux       http.Handler
}

var providerName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// New checks opts and returns a Connector. The zero Connector is not usable.
func New(opts *Options) (*Connector, error) {
	if opts == nil {
		return nil, errors.New("connect: no options; give at least BaseURL, Keys, Providers, BrowserAuth and Store")
	}
	base, err := parseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	keys, err := newKeyring(opts.Keys)
	if err != nil {
		return nil, err
	}
	if err := opts.checkRequired(); err != nil {
		return nil, err
	}
	c := &Connector{
		base:      base,
		keys:      keys,
		providers: make(map[string]*Provider),
		auth:      opts.BrowserAuth,
		store:     opts.Store,
		subject:   opts.Subject.Or(),
		linkTTL:   opts.LinkTTL,
		flowTTL:   opts.FlowTTL,
		name:      opts.ServerName,
		client:    opts.HTTPClient,
		now:       opts.Now,
		log:       opts.Logger,
	}
	for i := range opts.Providers {
		if err := c.addProvider(opts.Providers[i]); err != nil {
			return nil, err
		}
	}
	c.setDefaults()
	c.mux = c.routes()
	return c, nil
}

// parseBaseURL checks and parses Options.BaseURL: an absolute https URL
// (or http on loopback) without a query, fragment or user info.
func parseBaseURL(raw string) (*url.URL, error) {
	base, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("connect: BaseURL %q must be an absolute URL such as https://mcp.example.com/connect", raw)
	}
	switch base.Scheme {
	case "https":
	case "http":
		if !isLoopback(base.Hostname()) {
			return nil, fmt.Errorf("connect: BaseURL %q uses plain http on a non-loopback host; use https", raw)
		}
	default:
		return nil, fmt.Errorf("connect: BaseURL %q must use https (or http on loopback)", raw)
	}
	if base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, fmt.Errorf("connect: BaseURL %q must not carry a query, fragment or user info", raw)
	}
	return base, nil
}

// checkRequired refuses options without a BrowserAuth, a Store or
// providers.
func (opts *Options) checkRequired() error {
	if opts.BrowserAuth == nil {
		return errors.New("connect: BrowserAuth is required: the page must know who is signed in to the server")
	}
	if opts.Store == nil {
		return errors.New("connect: Store is required")
	}
	if len(opts.Providers) == 0 {
		return errors.New("connect: no providers configured")
	}
	return nil
}

// addProvider checks p (its name, that it is new, its OAuth 2.0
// endpoints) and adds it, titled by its name if it has no title, with its
// callback as its redirect URL.
func (c *Connector) addProvider(p Provider) error {
	if !providerName.MatchString(p.Name) {
		return fmt.Errorf("connect: provider name %q: use 1 to 40 lower-case letters, digits or '-'", p.Name)
	}
	if _, dup := c.providers[p.Name]; dup {
		return fmt.Errorf("connect: provider %q configured twice", p.Name)
	}
	if p.OAuth2.ClientID == "" || p.OAuth2.Endpoint.AuthURL == "" || p.OAuth2.Endpoint.TokenURL == "" {
		return fmt.Errorf("connect: provider %q needs a client id, an authorization URL and a token URL", p.Name)
	}
	if p.Title == "" {
		p.Title = p.Name
	}
	p.OAuth2.RedirectURL = c.callbackURL(p.Name)
	c.providers[p.Name] = &p
	return nil
}

// setDefaults fills in what the options left out.
func (c *Connector) setDefaults() {
	if c.linkTTL <= 0 {
		c.linkTTL = 10 * time.Minute
	}
	if c.flowTTL <= 0 {
		c.flowTTL = 10 * time.Minute
	}
	if c.name == "" {
		c.name = "this server"
	}
	if c.client == nil {
		c.client = &http.Client{Timeout: 15 * time.Second}
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
}

// Store returns the token store the connector writes to.
func (c *Connector) Store() tokenstore.Store { return c.store }

func (c *Connector) provider(name string) (*Provider, error) {
	p, ok := c.providers[name]
	if !ok {
		return nil, fmt.Errorf("connect: unknown provider %q", name)
	}
	return p, nil
}

func (c *Connector) linkURL(provider string) string {
	return c.base.String() + "/" + provider
}

func (c *Connector) callbackURL(provider string) string {
	return c.base.String() + "/" + provider + "/callback"
}

// CallbackURL returns the redirect URI to register at the provider.
func (c *Connector) CallbackURL(provider string) string { return c.callbackURL(provider) }

package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/connect"
	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/endpoint"
	"github.com/askback/askback/internal/server/httpserve"
	"github.com/askback/askback/keys"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// config is everything the example server needs; main fills it from flags, tests
// directly.
type config struct {
	// PublicURL is where browsers reach this server, e.g. http://127.0.0.1:8080.
	PublicURL string
	Users     []demoUser
	GitHub    githubConfig
	Store     tokenstore.Store
	Keys      []keys.Key
	// SignInDelay is how long an address waits after three wrong passwords
	// (or bearer tokens) in a row, twice as long after each further one
	// (defaultThrottle's one second when zero).
	SignInDelay time.Duration
	// SignInRefill is how often an address's and an account's budgets of
	// sign-in attempts get one back (defaultThrottle's 30 s when zero).
	SignInRefill time.Duration
	// Now, HTTPClient and Logger default to time.Now, a 15 s client and a discarding
	// logger.
	Now        func() time.Time
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// githubConfig is the OAuth 2.0 client registration at GitHub (or the local fake) and
// where its API lives.
type githubConfig struct {
	AuthURL      string
	TokenURL     string
	APIURL       string
	ClientID     string
	ClientSecret string
}

const serverName = "the github-connect example server"

// app is the example server: MCP over Streamable HTTP at /mcp (bearer tokens), the
// browser sign-in at /signin, and the connect pages at /connect/.
type app struct {
	handler   http.Handler
	connector *connect.Connector
}

func newApp(cfg config) (*app, error) {
	if len(cfg.Users) == 0 {
		return nil, errors.New("no users: give at least one -user NAME:TOKEN:PASSWORD")
	}
	pub, err := url.Parse(strings.TrimSuffix(cfg.PublicURL, "/"))
	if err != nil || pub.Host == "" {
		return nil, fmt.Errorf("public URL %q is not an absolute URL", cfg.PublicURL)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	dir := &userDirectory{users: cfg.Users}
	limits := defaultThrottle
	if cfg.SignInDelay > 0 {
		limits.FirstDelay = cfg.SignInDelay
	}
	if cfg.SignInRefill > 0 {
		limits.AddressRefill, limits.AccountRefill = cfg.SignInRefill, cfg.SignInRefill
	}
	browser := newSessions(dir, pub.Scheme == "https", cfg.Now, limits)

	conn, err := connect.New(&connect.Options{
		BaseURL: pub.String() + "/connect",
		Keys:    cfg.Keys,
		Providers: []connect.Provider{{
			Name:  "github",
			Title: "GitHub",
			OAuth2: oauth2.Config{
				ClientID:     cfg.GitHub.ClientID,
				ClientSecret: cfg.GitHub.ClientSecret,
				Endpoint: oauth2.Endpoint{
					AuthURL:   cfg.GitHub.AuthURL,
					TokenURL:  cfg.GitHub.TokenURL,
					AuthStyle: oauth2.AuthStyleInHeader,
				},
				Scopes: []string{"repo"},
			},
		}},
		BrowserAuth: browser,
		Store:       cfg.Store,
		ServerName:  serverName,
		HTTPClient:  cfg.HTTPClient,
		Now:         cfg.Now,
		Logger:      cfg.Logger,
	})
	if err != nil {
		return nil, err
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "github-connect", Version: "0.1.0"}, nil)
	ask.EveryRound(server) // older clients are asked every round too
	tools := &issueTool{connector: conn, apiURL: strings.TrimSuffix(cfg.GitHub.APIURL, "/"), client: cfg.HTTPClient}
	mcp.AddTool(server, &mcp.Tool{
		Name: "create_issue",
		Description: "Creates an issue in a GitHub repository as the calling user. " +
			"The first time, it asks the user to connect their GitHub account in the browser.",
	}, tools.createIssue)

	// Stateless: protocol 2026-07-28 (multi round-trip requests) is served only by
	// stateless Streamable HTTP, and every round is a self-contained call anyway.
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	// Every message is checked before the go-sdk reads it: an answer given
	// twice in inputResponses, or in another letter case, is refused.
	checked := endpoint.CheckMessages(mcpHandler)
	mux.Handle("/mcp", browser.throttle.tokens(auth.RequireBearerToken(dir.verifyToken, nil)(checked), dir.verifyToken))
	mux.Handle("/signin", http.NewCrossOriginProtection().Handler(browser.serveSignIn(serverName)))
	mux.Handle("/connect/", conn)
	return &app{handler: httpserve.Bodies(mux, &httpserve.Options{MaxBody: maxRequestBody}), connector: conn}, nil
}

// maxRequestBody bounds the body of one HTTP request (413 beyond it): the go-sdk's
// handler reads whatever it is sent.
const maxRequestBody = 1 << 20

// Package fakegithub is a local OAuth 2.0 provider that plays GitHub for the
// github-connect example and its tests: the authorization-code grant with PKCE (S256
// only, required), a consent page on which a person signs in as one of a few demo users,
// a token endpoint that refuses reused codes and wrong verifiers, and the one API call the
// example makes, POST /repos/{owner}/{repo}/issues.
//
// The OAuth 2.0 protocol work is done by github.com/go-oauth2/oauth2/v4; this package
// configures it strictly (one registered client, exact redirect URI, S256 PKCE, the
// client's secret on every token request, a scope granted only when known and, at a
// refresh, within what the user approved) and adds the pages and the API. Its grants are
// kept bounded (internal/server/oauthgrant): a flood of sign-ins cannot grow its memory. It serves plain http on loopback for the demo; a real provider is
// https only.
package fakegithub

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/server/oauthgrant"
	"github.com/askback/askback/internal/server/reqbody"
	"github.com/go-oauth2/oauth2/v4"
	oauth2errors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/go-oauth2/oauth2/v4/server"
	"github.com/go-oauth2/oauth2/v4/store"
)

// Paths at which the provider serves, the same as GitHub's.
const (
	AuthorizePath = "/login/oauth/authorize"
	TokenPath     = "/login/oauth/access_token"
)

// defaultUsers are the demo accounts offered on the consent page.
var defaultUsers = []string{"octo-alice", "octo-bob", "octo-carol"}

// Options configure a [Provider].
type Options struct {
	// ClientID and ClientSecret of the one registered client (the MCP server).
	ClientID     string
	ClientSecret string
	// RedirectURL is the client's registered callback; authorization requests must
	// name exactly this URL.
	RedirectURL string
	// AppName is shown on the consent page. Default "MCP server".
	AppName string
	// Users are the demo accounts one can sign in as. Default octo-alice, octo-bob,
	// octo-carol.
	Users []string
	// CodeTTL is how long an authorization code is valid. Default 1 minute.
	CodeTTL time.Duration
	// TokenTTL is how long an access token is valid. Default 8 hours.
	TokenTTL time.Duration
	// Scopes are the scopes it grants (DefaultScopes when empty); a request for
	// another is refused with invalid_scope.
	Scopes []string
	// MaxTokens and MaxTokensPerUser bound the grants kept, in all and of one user
	// (oauthgrant's defaults when zero).
	MaxTokens, MaxTokensPerUser int
}

// DefaultScopes are the scopes the provider grants unless Options.Scopes says
// otherwise: a few of GitHub's.
var DefaultScopes = []string{"repo", "read:user", "user:email"}

// Issue is an issue created through the API.
type Issue struct {
	Number int    `json:"number"`
	Repo   string `json:"-"`
	Title  string `json:"title"`
	Author string `json:"-"`
	URL    string `json:"html_url"`
}

// Provider is the fake GitHub. It is an [http.Handler].
type Provider struct {
	opts   Options
	srv    *server.Server
	mux    *http.ServeMux
	tokens *oauthgrant.Store
	scopes oauthgrant.Rule

	mu     sync.Mutex
	issues []Issue
	issued []string // access tokens handed out (the latest maxIssued), for tests that check where they went
}

// New returns a provider for one client.
func New(opts Options) (*Provider, error) {
	if opts.ClientID == "" || opts.RedirectURL == "" {
		return nil, errors.New("fakegithub: ClientID and RedirectURL are required")
	}
	if opts.AppName == "" {
		opts.AppName = "MCP server"
	}
	if len(opts.Users) == 0 {
		opts.Users = defaultUsers
	}
	if opts.CodeTTL <= 0 {
		opts.CodeTTL = time.Minute
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = 8 * time.Hour
	}
	if len(opts.Scopes) == 0 {
		opts.Scopes = DefaultScopes
	}
	p := &Provider{opts: opts, mux: http.NewServeMux(), scopes: oauthgrant.Rule{Known: opts.Scopes}}

	manager := manage.NewDefaultManager()
	manager.SetAuthorizeCodeExp(opts.CodeTTL)
	manager.SetAuthorizeCodeTokenCfg(&manage.Config{
		AccessTokenExp:    opts.TokenTTL,
		RefreshTokenExp:   30 * 24 * time.Hour,
		IsGenerateRefresh: true,
	})
	manager.SetRefreshTokenCfg(&manage.RefreshingConfig{AccessTokenExp: opts.TokenTTL, RefreshTokenExp: 30 * 24 * time.Hour,
		IsGenerateRefresh: true, IsRemoveAccess: true, IsRemoveRefreshing: true})
	p.tokens = oauthgrant.NewStore(nil, opts.MaxTokens, opts.MaxTokensPerUser)
	manager.MapTokenStorage(p.tokens)
	clients := store.NewClientStore()
	if err := clients.Set(opts.ClientID, &models.Client{ID: opts.ClientID, Secret: opts.ClientSecret, Domain: opts.RedirectURL}); err != nil {
		return nil, fmt.Errorf("fakegithub: client store: %w", err)
	}
	manager.MapClientStorage(clients)
	// Redirect URIs must match the registered one exactly, not just its host.
	manager.SetValidateURIHandler(func(registered, redirect string) error {
		if registered != redirect {
			return oauth2errors.ErrInvalidRedirectURI
		}
		return nil
	})

	p.srv = server.NewServer(&server.Config{
		TokenType:                   "bearer",
		AllowedResponseTypes:        []oauth2.ResponseType{oauth2.Code},
		AllowedGrantTypes:           []oauth2.GrantType{oauth2.AuthorizationCode, oauth2.Refreshing},
		AllowedCodeChallengeMethods: []oauth2.CodeChallengeMethod{oauth2.CodeChallengeS256},
		ForcePKCE:                   true,
	}, manager)
	p.srv.SetClientInfoHandler(p.clientOf)
	// Tokens only in the Authorization header, never in a URL.
	p.srv.SetAccessTokenResolveHandler(func(r *http.Request) (string, bool) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return tok, ok && tok != ""
	})
	p.srv.SetUserAuthorizationHandler(p.consent)
	p.srv.SetResponseTokenHandler(p.writeToken)
	p.srv.SetAuthorizeScopeHandler(func(_ http.ResponseWriter, r *http.Request) (string, error) {
		return p.scopes.Scope(r.FormValue("scope"), nil, "")
	})
	p.srv.SetClientScopeHandler(func(tgr *oauth2.TokenGenerateRequest) (bool, error) {
		sc, err := p.scopes.Scope(tgr.Scope, nil, "")
		tgr.Scope = sc
		return err == nil, nil
	})
	p.srv.SetInternalErrorHandler(func(err error) *oauth2errors.Response {
		switch {
		case errors.Is(err, oauthgrant.ErrTooMany):
			return &oauth2errors.Response{Error: oauth2errors.ErrTemporarilyUnavailable, Description: err.Error(), StatusCode: http.StatusServiceUnavailable}
		case errors.Is(err, oauthgrant.ErrBeyondConsent):
			return &oauth2errors.Response{Error: oauth2errors.ErrInvalidScope, Description: err.Error(), StatusCode: http.StatusBadRequest}
		}
		return &oauth2errors.Response{Error: err, Description: err.Error(), StatusCode: http.StatusInternalServerError}
	})

	p.mux.HandleFunc(AuthorizePath, p.authorize)
	p.mux.HandleFunc("POST "+TokenPath, p.token)
	p.mux.HandleFunc("GET /user", p.user)
	p.mux.HandleFunc("POST /repos/{owner}/{repo}/issues", p.createIssue)
	return p, nil
}

// ServeHTTP implements [http.Handler].
func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.mux.ServeHTTP(w, r) }

// Issues returns the issues created so far (the latest 1000).
func (p *Provider) Issues() []Issue {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.issues)
}

// maxTitle bounds an issue's title, maxIssues the issues kept (the latest): whoever
// signs in cannot grow the provider's memory by creating issues.
const (
	maxTitle  = 256
	maxIssues = 1000
)

// maxIssued bounds what IssuedAccessTokens keeps: the latest ones.
const maxIssued = 1000

// IssuedAccessTokens returns the access tokens the token endpoint handed out (the latest
// 1000).
func (p *Provider) IssuedAccessTokens() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.issued)
}

// authorize checks the client and its redirect URI before anything else, so that a bad
// request gets an error page here instead of a redirect to an unregistered address.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !readForm(w, r) {
		return
	}
	if r.FormValue("client_id") != p.opts.ClientID || r.FormValue("redirect_uri") != p.opts.RedirectURL {
		renderPage(w, http.StatusBadRequest, pageData{Heading: "Unknown application",
			Text: "The application or its redirect address is not registered here."})
		return
	}
	// A scope it does not grant is refused before anyone signs in: the
	// application hears invalid_scope at its (registered) redirect address.
	if _, err := p.scopes.Scope(r.FormValue("scope"), nil, ""); err != nil {
		q := url.Values{"error": {"invalid_scope"}, "error_description": {err.Error()}}
		if st := r.FormValue("state"); st != "" {
			q.Set("state", st)
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, p.opts.RedirectURL+"?"+q.Encode(), http.StatusFound)
		return
	}
	if err := p.srv.HandleAuthorizeRequest(w, r); err != nil {
		renderPage(w, http.StatusBadRequest, pageData{Heading: "Bad authorization request", Text: err.Error()})
	}
}

// maxFormBytes bounds the forms the provider reads: an authorization or
// token request.
const maxFormBytes = 8192

// readForm reads r's body within maxFormBytes and the server's time for a
// body, before the OAuth library parses the form from it; it answers the
// request and returns false when the body is too large or too slow.
func readForm(w http.ResponseWriter, r *http.Request) bool {
	if _, err := reqbody.Read(w, r, reqbody.Limits{Max: maxFormBytes}); err != nil {
		reqbody.Refuse(w, err)
		return false
	}
	return true
}

// consent is the sign-in and consent page. On GET it shows the form and returns no user,
// which tells the library the response is written. On POST it returns the chosen user, or
// access_denied when the person declined.
func (p *Provider) consent(w http.ResponseWriter, r *http.Request) (string, error) {
	if r.Method == http.MethodPost {
		switch r.PostFormValue("decision") {
		case "allow":
			user := r.PostFormValue("login")
			if !slices.Contains(p.opts.Users, user) {
				return "", oauth2errors.ErrAccessDenied
			}
			return user, nil
		default:
			return "", oauth2errors.ErrAccessDenied
		}
	}
	renderPage(w, http.StatusOK, pageData{
		Heading: "Authorize " + p.opts.AppName,
		Text:    p.opts.AppName + " wants to create issues in your repositories. Sign in and choose.",
		Users:   p.opts.Users,
		Action:  r.URL.RequestURI(),
	})
	return "", nil
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if !readForm(w, r) {
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": err.Error()})
		return
	}
	if code, why := p.checkRefresh(r); code != "" {
		status := http.StatusBadRequest
		if code == "invalid_client" {
			status = http.StatusUnauthorized
		}
		writeJSON(w, status, map[string]string{"error": code, "error_description": why})
		return
	}
	if err := p.srv.HandleTokenRequest(w, r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
	}
}

// checkRefresh refuses a refresh that go-oauth2 would serve although it must not: one
// without the client's secret (go-oauth2 checks no client at a refresh), and one asking
// for a scope beyond what the user approved (go-oauth2 grants whatever a refresh asks
// for). A refresh may narrow the grant; one that names no scope gets it whole (RFC 6749
// §6). It returns the OAuth error code and why, "" when the request may go on.
func (p *Provider) checkRefresh(r *http.Request) (code, why string) {
	if r.Form.Get("grant_type") != string(oauth2.Refreshing) {
		return "", ""
	}
	id, secret, err := p.clientOf(r)
	if err != nil || id != p.opts.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.opts.ClientSecret)) != 1 {
		return "invalid_client", "a refresh needs the application's id and secret"
	}
	ti, _ := p.tokens.GetByRefresh(r.Context(), r.Form.Get("refresh_token"))
	if ti == nil {
		return "", "" // go-oauth2 refuses it: invalid_grant
	}
	consented := oauthgrant.Consented(ti)
	scope := consented
	if asked := r.Form.Get("scope"); asked != "" {
		if scope, err = p.scopes.Scope(asked, strings.Fields(consented), "what the user approved"); err != nil {
			return "invalid_scope", err.Error()
		}
	}
	r.Form.Set("scope", scope) // what go-oauth2 grants
	return "", ""
}

// clientOf reads the client's id and secret from a token request: HTTP Basic, else the
// body.
func (p *Provider) clientOf(r *http.Request) (string, string, error) {
	if id, secret, ok := r.BasicAuth(); ok {
		return id, secret, nil
	}
	return server.ClientFormHandler(r)
}

func (p *Provider) writeToken(w http.ResponseWriter, data map[string]any, header http.Header, status ...int) error {
	if tok, ok := data["access_token"].(string); ok && tok != "" {
		p.mu.Lock()
		if p.issued = append(p.issued, tok); len(p.issued) > maxIssued {
			p.issued = append(p.issued[:0], p.issued[len(p.issued)-maxIssued:]...)
		}
		p.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	for k := range header {
		w.Header().Set(k, header.Get(k))
	}
	code := http.StatusOK
	if len(status) > 0 && status[0] > 0 {
		code = status[0]
	}
	w.WriteHeader(code)
	return json.NewEncoder(w).Encode(data)
}

// login returns the user of the request's bearer token, or writes 401.
func (p *Provider) login(w http.ResponseWriter, r *http.Request) (string, bool) {
	ti, err := p.srv.ValidationBearerToken(r)
	if err != nil || ti == nil || ti.GetUserID() == "" ||
		ti.GetAccessCreateAt().Add(ti.GetAccessExpiresIn()).Before(time.Now()) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fakegithub"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		return "", false
	}
	return ti.GetUserID(), true
}

func (p *Provider) user(w http.ResponseWriter, r *http.Request) {
	login, ok := p.login(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"login": login})
}

func (p *Provider) createIssue(w http.ResponseWriter, r *http.Request) {
	login, ok := p.login(w, r)
	if !ok {
		return
	}
	var in struct {
		Title string `json:"title"`
	}
	body, err := reqbody.Read(w, r, reqbody.Limits{Max: 64 << 10})
	if err != nil {
		reqbody.Refuse(w, err)
		return
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Title == "" || len(in.Title) > maxTitle {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": fmt.Sprintf("a title of 1 to %d bytes is required", maxTitle)})
		return
	}
	repo := r.PathValue("owner") + "/" + r.PathValue("repo")
	p.mu.Lock()
	n := 1
	for _, is := range p.issues {
		if is.Repo == repo {
			n++
		}
	}
	is := Issue{Number: n, Repo: repo, Title: in.Title, Author: login,
		URL: fmt.Sprintf("http://%s/%s/issues/%d", r.Host, repo, n)}
	if p.issues = append(p.issues, is); len(p.issues) > maxIssues {
		p.issues = append(p.issues[:0], p.issues[len(p.issues)-maxIssues:]...)
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"number": is.Number, "title": is.Title, "html_url": is.URL, "user": map[string]string{"login": login},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

type pageData struct {
	Heading string
	Text    string
	Users   []string
	Action  string
}

var pageTemplate = template.Must(template.New("p").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fake GitHub</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style></head>
<body>
<p><strong>Fake GitHub</strong> (local demo provider)</p>
<h1 id="heading">{{.Heading}}</h1>
<p>{{.Text}}</p>
{{if .Users}}<form method="post" action="{{.Action}}">
<fieldset><legend>Sign in as</legend>
{{range $i, $u := .Users}}<label><input type="radio" name="login" id="login-{{$u}}" value="{{$u}}"{{if eq $i 0}} checked{{end}}> {{$u}}</label><br>
{{end}}</fieldset>
<p><button id="authorize" name="decision" value="allow" type="submit">Authorize</button>
<button id="deny" name="decision" value="deny" type="submit">Cancel</button></p>
</form>{{end}}
</body></html>
`))

func renderPage(w http.ResponseWriter, status int, d pageData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, d)
}

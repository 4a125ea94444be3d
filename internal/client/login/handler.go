package login

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Handler logs in to one server as one identity. It is the go-sdk's
// [auth.OAuthHandler] for the Streamable HTTP transport: TokenSource gives
// the cached or obtained token, Authorize runs a login when the server
// refuses. Logins are serialised; each is bounded.
type Handler struct {
	l        *Login
	server   string
	identity string

	flow sync.Mutex // one login at a time

	mu     sync.Mutex
	entry  *Entry            // the current login; nil: none yet
	src    *tokenSource      // the current login's token source
	fresh  string            // the access token the last login (or refresh after a 401) of this run obtained
	again  bool              // fresh came from a login after the server refused the fresh token before it
	stepUp string            // the access token a step-up obtained
	asked  []string          // the scopes the last step-up asked for
	tried  bool              // a refresh after a 401 was tried in this run
	failed error             // a login of this run that failed: not tried again
	nonces map[string]string // the DPoP nonce each address gave last
}

// Error is a login that failed or was refused, with the reason.
type Error struct {
	// Server is the server logged in to.
	Server string
	// Err is the reason.
	Err error
}

func (e *Error) Error() string { return "log in to " + e.Server + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// AsError returns the login error inside err, nil when there is none.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

func (h *Handler) fail(err error) *Error {
	if e := AsError(err); e != nil {
		return e
	}
	return &Error{Server: h.server, Err: err}
}

var _ auth.OAuthHandler = (*Handler)(nil)

// Server is the server the handler logs in to, as Key spells it.
func (h *Handler) Server() string { return h.server }

// Identity is the identity the handler logs in as.
func (h *Handler) Identity() string { return h.identity }

// Entry returns a copy of the current login, nil when there is none.
func (h *Handler) Entry() *Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src == nil {
		return nil
	}
	e := h.src.snapshot()
	return &e
}

// TokenSource gives the current login's token, refreshed before it
// expires; nil when there is no usable login, so that the server's refusal
// starts one.
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	src := h.src
	h.mu.Unlock()
	if src == nil || !src.usable() {
		return nil, nil
	}
	return src, nil
}

// current is the access token of the current login.
func (h *Handler) current() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.src == nil {
		return ""
	}
	return h.src.access()
}

// install makes e the current login; saved entries are written to the
// cache.
func (h *Handler) install(e *Entry, save bool) *tokenSource {
	h.l.tokens(e)
	src := newTokenSource(h, e)
	h.mu.Lock()
	h.entry, h.src = e, src
	h.mu.Unlock()
	if save {
		h.l.save(e)
	}
	return src
}

// Authorize logs in after the server refused a request: on a 401 with a
// Bearer challenge (a refresh first, when the login has a refresh token),
// and on a 403 insufficient_scope (once, asking for the larger scope). It
// returns nil when the request should be sent again.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer discard(resp)
	ch, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return h.fail(fmt.Errorf("the server answered %s with a WWW-Authenticate header that cannot be read: %v", resp.Status, err))
	}
	bearer := bearerChallenge(ch)
	insufficient := resp.StatusCode == http.StatusForbidden
	h.l.step(challengeStep(req, resp, bearer))
	switch {
	case insufficient && bearer["error"] != "insufficient_scope":
		return h.fail(forbidden(bearer))
	case resp.StatusCode == http.StatusUnauthorized && bearer == nil:
		return h.fail(fmt.Errorf("the server answered 401 Unauthorized without a Bearer or DPoP challenge: it does not ask for an OAuth login; send its credentials with %s", h.l.Settings.Name.Word(SettingHeaders)))
	}
	if err := h.bound(sentToken(req), insufficient, bearer); err != nil {
		return err
	}
	h.flow.Lock()
	defer h.flow.Unlock()
	sent := sentToken(req)
	if cur := h.current(); cur != "" && cur != sent {
		return nil // another connection logged in meanwhile: try its token
	}
	if !insufficient && h.refresh(sent) {
		return nil
	}
	// A token a login of this run just obtained, refused: the resource may
	// have moved to another authorization server. One more login finds
	// out; bound refuses a third.
	h.mu.Lock()
	again := !insufficient && sent != "" && sent == h.fresh
	h.mu.Unlock()
	if err := h.mayLogin(); err != nil {
		return err
	}
	if insufficient {
		fmt.Fprintf(h.l.errOut(), "mcp-tester: %s asks for more scope (%s): logging in again to ask for it\n", h.server, printable(bearer["scope"]))
	}
	if err := h.run(ctx, req, resp, insufficient, strings.Fields(bearer["scope"])); err != nil {
		return err
	}
	h.mu.Lock()
	h.again = again
	h.mu.Unlock()
	return nil
}

// mayLogin refuses a login this run may not make: only cached logins are
// allowed, or one failed already (the person saw it once already).
func (h *Handler) mayLogin() error {
	if h.l.Settings.CachedOnly {
		return h.fail(errors.New("the server asks for a login: run mcp-tester auth login first"))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed
}

// ErrUnreachable is the error of a [Handler.Login] whose first request
// got no answer from the server: it could not be reached, or did not
// answer within the client's time limit.
var ErrUnreachable = errors.New("the server could not be reached")

// Login logs in now, cached login or not: it sends the server a request
// without a token through client and runs the login its refusal calls
// for; a server that does not refuse is asked for its metadata at the
// well-known addresses. It is `mcp-tester auth login`.
func (h *Handler) Login(ctx context.Context, client *http.Client) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.server, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return h.fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return h.fail(fmt.Errorf("%w: %w", ErrUnreachable, err))
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		discard(resp)
		resp = &http.Response{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized", Header: http.Header{}, Body: http.NoBody, Request: req}
	}
	defer discard(resp)
	h.flow.Lock()
	defer h.flow.Unlock()
	ch, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	return h.run(ctx, req, resp, false, strings.Fields(bearerChallenge(ch)["scope"]))
}

// run runs one login with the flow lock held, bounded in time as a
// whole (discovery, registration, the browser, the token): by
// Settings.Timeout when given, the caller's time limit paused meanwhile;
// otherwise within what is left of the caller's limit (the command's
// --timeout), or DefaultTimeout when the caller has none.
func (h *Handler) run(ctx context.Context, req *http.Request, resp *http.Response, stepUp bool, asked []string) error {
	limit, own := h.l.Settings.Timeout, true
	if limit <= 0 {
		limit, own = callerLimit(ctx), false
	} else {
		resume := pauseClock(ctx)
		defer resume()
	}
	parent := ctx
	timeout := &loginTimeout{limit: limit, own: own, names: &h.l.Settings, caller: clockLimit(ctx)}
	ctx, cancel := context.WithTimeoutCause(ctx, limit, timeout)
	defer cancel()
	err := h.flowOf(ctx, req, resp, stepUp)
	if err != nil && ctx.Err() != nil {
		// Its own limit, or the caller's clock that it shares, ran out.
		if left, bounded := timeLeft(parent); asTimeout(ctx) != nil || !own && bounded && left <= 0 {
			err = timeout.with(err)
		}
	}
	if err != nil {
		return h.loginFailed(parent, err)
	}
	h.loggedIn(stepUp, asked)
	return nil
}

// callerLimit is the time a login has when the settings give none: a
// moment less than what is left of the caller's limit, so that the caller
// hears why the login ended, or DefaultTimeout when the caller has none.
func callerLimit(ctx context.Context) time.Duration {
	left, bounded := timeLeft(ctx)
	if bounded {
		return left - min(left/20, 500*time.Millisecond)
	}
	return DefaultTimeout
}

// flowOf runs the login's flow: a machine login, or the authorization
// code's, with the proof of possession the server's refusal resp asks for.
func (h *Handler) flowOf(ctx context.Context, req *http.Request, resp *http.Response, stepUp bool) error {
	p, err := newProofing(resp)
	if err != nil {
		return err
	}
	ctx = withProofing(ctx, p)
	if h.l.Settings.machine() {
		return h.machine(ctx, req, resp, p)
	}
	return h.authorizationCode(ctx, req, resp, stepUp, p)
}

// loginFailed tells of a login that failed with err and returns its error;
// a login that failed, in time or not, is not tried again in this run, but
// one its caller gave up on (parent cancelled) may be.
func (h *Handler) loginFailed(parent context.Context, err error) error {
	e := h.fail(err)
	h.l.step(Step{Kind: StepFailed, What: "the login failed", URL: h.server, Err: e.Error()})
	if !errors.Is(context.Cause(parent), context.Canceled) {
		h.mu.Lock()
		h.failed = e
		h.mu.Unlock()
	}
	return e
}

// loggedIn tells of a login that succeeded and keeps its token as the
// fresh one (and, for a step up, the scopes asked).
func (h *Handler) loggedIn(stepUp bool, asked []string) {
	h.mu.Lock()
	src := h.src
	h.mu.Unlock()
	if src != nil {
		h.l.step(Step{Kind: StepDone, What: fmt.Sprintf("logged in as identity %s with scopes %s; the access token is hidden", h.identity, strings.Join(src.snapshot().Scopes, " ")), URL: h.server})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed, h.again = nil, false
	if h.src != nil {
		h.fresh = h.src.access()
		if stepUp {
			h.stepUp, h.asked = h.fresh, asked
		}
	}
}

// refresh tries, once a run, to refresh a cached login the server
// refused; it reports whether a new token is there.
func (h *Handler) refresh(sent string) bool {
	h.mu.Lock()
	src := h.src
	if src == nil || sent == "" || sent == h.fresh || h.tried || !src.refreshable() {
		h.mu.Unlock()
		return false
	}
	h.tried = true
	h.mu.Unlock()
	if src.forceRefresh() != nil {
		return false
	}
	h.mu.Lock()
	h.fresh = src.access()
	h.mu.Unlock()
	return true
}

// bound refuses another login where one would not help: the server
// refused a token a login of this run just obtained (401), or still wants
// more scope after a step-up asked for it (403).
func (h *Handler) bound(sent string, insufficient bool, bearer map[string]string) error {
	if sent == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case insufficient && sent == h.stepUp:
		var granted []string
		if h.src != nil {
			granted = h.src.snapshot().Scopes
		}
		why := "the authorization server does not grant it to identity " + h.identity
		if wanted := strings.Fields(bearer["scope"]); len(wanted) > 0 && len(union(granted, wanted)) == len(granted) {
			why = "the server refuses a token with the very scope it names"
		}
		return h.fail(fmt.Errorf("the server still answers 403 insufficient_scope (it wants %q) after a login that asked for %q and was granted %q: giving up (%s)",
			printable(bearer["scope"]), strings.Join(h.asked, " "), strings.Join(granted, " "), why))
	case !insufficient && sent == h.fresh && h.again && h.src != nil && h.src.unexpired():
		return h.fail(errors.New("the server refused (401) the token of a login made a moment ago, twice: giving up (does the server accept tokens from the authorization server its metadata names, for this resource?)"))
	}
	return nil
}

// Transport returns base with the login's bounds enforced on responses: a
// refusal that another login would not cure is an error, not a response.
// With addToken, requests that carry no Authorization get the login's
// token (for the SSE transport, which has no OAuth handler).
func (h *Handler) Transport(base http.RoundTripper, addToken bool) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &boundTransport{h: h, base: base, addToken: addToken}
}

type boundTransport struct {
	h        *Handler
	base     http.RoundTripper
	addToken bool
}

func (t *boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.addToken && req.Header.Get("Authorization") == "" {
		if ts, _ := t.h.TokenSource(req.Context()); ts != nil {
			if tok, err := ts.Token(); err == nil {
				req = req.Clone(req.Context())
				tok.SetAuthHeader(req)
			}
		}
	}
	resp, err := t.send(req)
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	ch, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	bearer := bearerChallenge(ch)
	insufficient := resp.StatusCode == http.StatusForbidden && bearer["error"] == "insufficient_scope"
	if resp.StatusCode == http.StatusForbidden && !insufficient {
		return resp, nil
	}
	if err := t.h.bound(sentToken(req), insufficient, bearer); err != nil {
		discard(resp)
		return nil, err
	}
	if insufficient && req.GetBody != nil && sentToken(req) != "" {
		// Step up here rather than in the go-sdk's transport, which asks
		// its handler once per request: a request refused with 401 and,
		// with the token that login obtained, with 403 would not be.
		return t.stepUp(req, resp)
	}
	return resp, nil
}

// send sends req with the token it carries: a DPoP-bound token of the
// login with the DPoP scheme and a fresh proof (once more with the nonce
// the server asks for), any other as it is.
func (t *boundTransport) send(req *http.Request) (*http.Response, error) {
	tok := sentToken(req)
	key := t.h.proofKey(tok)
	if key == nil {
		return t.base.RoundTrip(req)
	}
	resp, err := t.h.sendProved(t.base, req, key, tok, resourceChallenge)
	var en *errNonce
	if errors.As(err, &en) {
		return nil, t.h.fail(fmt.Errorf("the server %s", en.why))
	}
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		if d := dpopParams(resp); d["error"] == "invalid_dpop_proof" {
			// Another login would make the same proofs: say why now.
			discard(resp)
			why := "no reason given"
			if d["error_description"] != "" {
				why = printable(d["error_description"])
			}
			if a := strings.Fields(d["algs"]); len(a) > 0 && !slices.Contains(a, proofAlg) {
				why += "; it takes " + printable(strings.Join(a, " ")) + ", mcp-tester signs with " + proofAlg
			}
			return nil, t.h.fail(fmt.Errorf("the server refused the DPoP proof (%s): giving up", why))
		}
	}
	return resp, err
}

// proofKey is the DPoP key of the current login when tok is its
// DPoP-bound token, nil otherwise.
func (h *Handler) proofKey(tok string) *proofKey {
	if tok == "" {
		return nil
	}
	h.mu.Lock()
	src := h.src
	h.mu.Unlock()
	if src == nil {
		return nil
	}
	return src.proofKeyFor(tok)
}

// stepUp logs in for the larger scope a 403 insufficient_scope names and
// sends the request again with the new token.
func (t *boundTransport) stepUp(req *http.Request, resp *http.Response) (*http.Response, error) {
	if err := t.h.Authorize(req.Context(), req, resp); err != nil {
		return nil, err
	}
	ts, _ := t.h.TokenSource(req.Context())
	if ts == nil {
		return nil, t.h.fail(errors.New("the step-up login left no token"))
	}
	tok, err := ts.Token()
	if err != nil {
		return nil, t.h.fail(err)
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, t.h.fail(err)
	}
	again := req.Clone(req.Context())
	again.Body = body
	tok.SetAuthHeader(again)
	resp, err = t.send(again)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	ch, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	bearer := bearerChallenge(ch)
	if err := t.h.bound(sentToken(again), bearer["error"] == "insufficient_scope", bearer); err != nil {
		discard(resp)
		return nil, err
	}
	return resp, nil
}

// authorizationCode runs the go-sdk's authorization code flow with a
// receiver for the browser's return made for this login.
func (h *Handler) authorizationCode(ctx context.Context, req *http.Request, resp *http.Response, stepUp bool, p *proofing) error {
	s := &h.l.Settings
	recv, redirect, err := listen(s.Name.Word(SettingRedirectURL), s.RedirectURL)
	if err != nil {
		return err
	}
	defer recv.close()
	h.mu.Lock()
	var had []string
	if stepUp && h.entry != nil {
		had = h.entry.Scopes
	}
	h.mu.Unlock()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return h.fetch(ctx, recv, redirect, args)
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "mcp-tester",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		// Keep the scopes of the login being stepped up, and add the ones
		// the person asked for.
		ScopeFilter: func(discovered []string) []string {
			return union(had, discovered, s.Scopes)
		},
		RequestRefreshToken: true,
		Client:              h.authClient(),
		NewTokenSource: func(_ context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			if err := checkToken(tok); err != nil {
				return nil, err
			}
			e := &Entry{Server: h.server, Identity: h.identity, Grant: GrantAuthorizationCode,
				ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle,
				Scopes: grantedScopes(tok, c.Scopes)}
			e.setToken(tok)
			if err := p.bind(e, tok); err != nil {
				return nil, err
			}
			return h.install(e, true), nil
		},
	}
	if s.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: s.ClientMetadataURL}
	}
	if s.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: s.ClientID}
		if s.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: s.ClientSecret}
		}
	}
	sdk, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return err
	}
	return s.explain(sdk.Authorize(ctx, req, asBearer(resp)))
}

// sendBrowser sends the person to the authorization address u: it opens
// the browser, unless u has warnings (suspicious) or the settings say not
// to; then the address the browser ends on is read, pasted, from the
// returned channel.
func (h *Handler) sendBrowser(ctx context.Context, w io.Writer, u string, suspicious bool) <-chan redirectResult {
	s := &h.l.Settings
	pasted := make(chan redirectResult, 1)
	switch {
	case suspicious && !s.NoBrowser:
		fmt.Fprintf(w, "mcp-tester: the browser is not opened for an address with warnings: open it yourself if you trust it\n")
	case s.NoBrowser:
		fmt.Fprintf(w, "mcp-tester: then paste the address the browser ends on (even if the page does not load) and press Enter:\n")
		in := h.l.In
		if in == nil {
			in = strings.NewReader("")
		}
		go func() { pasted <- readPasted(in) }()
	case h.l.Open != nil:
		go func() {
			if err := h.l.Open(ctx, u); err != nil && ctx.Err() == nil {
				fmt.Fprintf(w, "mcp-tester: the browser could not be opened (%v): open the address above yourself\n", err)
			}
		}()
	}
	return pasted
}

// readPasted reads the address the person pasted from in.
func readPasted(in io.Reader) redirectResult {
	line, err := readLine(in, maxRedirectQuery+1024)
	if err != nil {
		return redirectResult{err: fmt.Errorf("read the pasted address: %w", err)}
	}
	res, err := ParsePasted(line)
	return redirectResult{res: res, err: err}
}

// awaitRedirect waits, within ctx, for the browser to come back to
// redirect with this login's state (from recv) or for the address pasted;
// each request with another state is told of on w, the first few.
func awaitRedirect(ctx context.Context, w io.Writer, recv *receiver, pasted <-chan redirectResult, redirect, noBrowser string) (redirectResult, error) {
	ignored := 0
	note := func() {
		if ignored++; ignored <= maxIgnoredNotes {
			fmt.Fprintf(w, "mcp-tester: ignored a request to %s whose state is not this login's (a stale tab, or a forgery): still waiting\n", redirect)
		}
	}
	var r redirectResult
	inputEnded := ""
wait:
	for {
		select {
		case r = <-recv.results:
			break wait
		case r = <-pasted:
			if errors.Is(r.err, errNothingPasted) {
				// No address to read (a script, a job in the background):
				// the browser may still come back to the loopback address.
				inputEnded = "; " + errNothingPasted.Error()
				fmt.Fprintf(w, "mcp-tester: %v: still waiting for the browser to come back to %s\n", errNothingPasted, redirect)
				pasted = nil
				continue
			}
			break wait
		case <-recv.ignored:
			note()
		case <-ctx.Done():
			if context.Cause(ctx) == context.Canceled && ctx.Err() == context.Canceled {
				return r, ctx.Err()
			}
			why := ""
			if ignored > 0 {
				why = fmt.Sprintf(" with this login's state (%d request%s with another state ignored)", ignored, plural(ignored))
			}
			if inputEnded != "" {
				return r, fmt.Errorf("the browser did not come back to %s%s%s: login abandoned", redirect, why, inputEnded)
			}
			return r, fmt.Errorf("the browser did not come back to %s%s: login abandoned (%s lets you paste the address)", redirect, why, noBrowser)
		}
	}
	select {
	case <-recv.ignored: // one that came with the answer
		note()
	default:
	}
	return r, nil
}

// fetch is the browser step: it shows the authorization address, opens
// the browser (or reads the pasted address back) and waits, within the
// login's time, for the redirect that carries this login's state. A
// request to the loopback address with another state (a stale tab, or a
// forgery by another program on the machine) is answered with an error
// page and ignored: the real one can still arrive.
func (h *Handler) fetch(ctx context.Context, recv *receiver, redirect string, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	au, err := url.Parse(args.URL)
	if err != nil {
		return nil, fmt.Errorf("the authorization address cannot be read: %w", err)
	}
	want := au.Query().Get("state")
	recv.drain()
	recv.expect(want)
	defer recv.expect("")
	w := h.l.errOut()
	fmt.Fprintf(w, "mcp-tester: log in to %s as %s: open this address in a browser:\n  %s\n", h.server, h.identity, termsafe.Line(args.URL))
	h.l.step(Step{Kind: StepAuthorization, What: "sent the browser to the authorization endpoint (PKCE S256, state)", URL: plainURL(au)})
	// The address comes from metadata the server pointed to: say where the
	// person will sign in, and do not open a suspicious one for them.
	suspicious := signInWarnings(w, args.URL, urlcheck.ServerAt(h.server))
	pasted := h.sendBrowser(ctx, w, args.URL, suspicious)
	if d, ok := ctx.Deadline(); ok {
		fmt.Fprintf(w, "mcp-tester: waiting up to %s for the browser to come back to %s\n", roundWait(time.Until(d)), redirect)
	} else {
		fmt.Fprintf(w, "mcp-tester: waiting for the browser to come back to %s\n", redirect)
	}
	r, err := awaitRedirect(ctx, w, recv, pasted, redirect, h.l.Settings.Name.Word(SettingNoBrowser))
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.res.State != want {
		// A pasted address: the person gave it.
		return nil, errors.New("the address pasted came back with a state that is not the one this login sent: refused (a stale or forged redirect); log in again")
	}
	fmt.Fprintf(w, "mcp-tester: the browser is back; asking for the token\n")
	h.l.step(Step{Kind: StepAuthorization, What: "the browser came back with an authorization code (hidden) and this login's state", URL: redirect})
	return r.res, nil
}

// maxIgnoredNotes bounds the notes about ignored requests one login
// prints.
const maxIgnoredNotes = 3

// roundWait rounds a wait for a person to read.
func roundWait(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// signInWarnings names the host of the sign-in page and prints the
// warnings about its address (punycode, mixed scripts, a raw IP address,
// plain http, user information, this machine or a private network when the
// server is elsewhere); it reports whether there were any. The address's
// own parameters (state, code_challenge) are not credentials.
func signInWarnings(w io.Writer, address string, server urlcheck.Server) bool {
	rep, err := urlcheck.Check(address, server)
	if err != nil {
		fmt.Fprintf(w, "mcp-tester: warning: the sign-in address: %s\n", termsafe.Line(err.Error()))
		return true
	}
	host := rep.Host
	if rep.UnicodeHost != "" {
		host += " (" + rep.UnicodeHost + ")"
	}
	fmt.Fprintf(w, "mcp-tester: you will sign in at %s\n", termsafe.Line(host))
	suspicious := false
	for _, wn := range rep.Warnings {
		if wn.Code == urlcheck.Credentials {
			continue
		}
		suspicious = true
		fmt.Fprintf(w, "mcp-tester: warning: the sign-in address: %s\n", termsafe.Line(wn.Message))
	}
	return suspicious
}

// explain adds what to do to the go-sdk's terse refusals.
func (s *Settings) explain(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "does not implement PKCE"):
		return fmt.Errorf("%w: refused, since its metadata lists no code_challenge_methods_supported and a login without PKCE can be stolen", err)
	case strings.Contains(msg, "does not match issuer URL"), strings.Contains(msg, "does not match expected issuer"):
		return fmt.Errorf("%w: refused, since another server may be answering for the authorization server", err)
	case strings.Contains(msg, "no configured client registration methods"):
		return fmt.Errorf("%w: give a pre-registered client with %s (and its secret), or %s", err, s.Name.Word(SettingClientID), s.Name.Word(SettingClientMetadataURL))
	case strings.Contains(msg, "got metadata resource"):
		return fmt.Errorf("%w: refused, since the protected resource metadata is for another server", err)
	}
	return err
}

// forbidden is the error for a 403 that no login can cure.
func forbidden(bearer map[string]string) error {
	if d := bearer["error_description"]; d != "" {
		return fmt.Errorf("the server answered 403 Forbidden: %s", printable(d))
	}
	return errors.New("the server answered 403 Forbidden: this identity may not do that")
}

// bearerChallenge returns the parameters of the Bearer challenge, else
// those of the DPoP one (RFC 9449 §7.1), nil when there is neither.
func bearerChallenge(cs []oauthex.Challenge) map[string]string {
	if b := findChallenge(cs, "bearer"); b != nil {
		return b
	}
	return findChallenge(cs, "dpop")
}

// sentToken is the access token a request carried, with the Bearer or
// the DPoP scheme.
func sentToken(req *http.Request) string {
	if req == nil {
		return ""
	}
	v := req.Header.Get("Authorization")
	for _, scheme := range []string{"bearer ", "dpop "} {
		if len(v) > len(scheme) && strings.EqualFold(v[:len(scheme)], scheme) {
			return strings.TrimSpace(v[len(scheme):])
		}
	}
	return ""
}

// discard reads a little of a response body and closes it.
func discard(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}
}

// union returns the scopes of every list, first appearance first.
func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// grantedScopes is the token's "scope" when the server said, otherwise
// the scopes asked for.
func grantedScopes(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok {
		return strings.Fields(s)
	}
	return slices.Clone(asked)
}

// tokenSource is a login's token: refreshed, through the token endpoint
// the login used, before it expires, and written to the cache when it
// changes.
type tokenSource struct {
	l   *Login
	h   *Handler
	cfg *oauth2.Config // nil: the token cannot be refreshed
	ctx context.Context
	key *proofKey // the DPoP key of a DPoP-bound token, else nil

	mu     sync.Mutex
	entry  Entry
	margin time.Duration // refresh this long before expiry
}

// maxMargin is how long before expiry a token is refreshed at most; a
// token that lives shorter is refreshed half-way.
const maxMargin = time.Minute

func newTokenSource(h *Handler, e *Entry) *tokenSource {
	s := &tokenSource{l: h.l, h: h, entry: *e, ctx: context.WithValue(context.Background(), oauth2.HTTPClient, h.authClient())}
	if e.Grant == GrantAuthorizationCode && e.TokenURL != "" && e.ClientID != "" {
		s.cfg = &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: e.AuthStyle}}
	}
	if e.DPoPKey != "" {
		// Decoded entries were checked; a key that cannot be read leaves
		// the token unproved, and the server's refusal starts a login.
		if key, err := parseProofKey(e.DPoPKey); err == nil {
			s.key = key
			if u, err := url.Parse(e.TokenURL); err == nil && e.TokenURL != "" {
				// Refreshes prove possession of the same key.
				s.ctx = withProofing(s.ctx, &proofing{key: key, forced: htu(u)})
			}
		}
	}
	s.setMargin(e.Saved)
	return s
}

// proofKeyFor is the DPoP key when tok is the source's DPoP-bound token.
func (s *tokenSource) proofKeyFor(tok string) *proofKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == nil || !isDPoP(s.entry.TokenType) || s.entry.AccessToken != tok {
		return nil
	}
	return s.key
}

// setMargin picks the refresh margin of a token obtained at from.
func (s *tokenSource) setMargin(from time.Time) {
	s.margin = maxMargin
	if !s.entry.Expiry.IsZero() && !from.IsZero() {
		s.margin = min(maxMargin, s.entry.Expiry.Sub(from)/2)
	}
}

// Token returns the token, refreshed first when it expires within the
// margin. A token that expired and cannot be refreshed is an invalid_grant
// error, on which the go-sdk sends the request without a token, so that
// the server's refusal starts a login.
func (s *tokenSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.l.now()
	tok := s.entry.Token()
	if tok.Expiry.IsZero() || now.Add(s.margin).Before(tok.Expiry) {
		return tok, nil
	}
	if s.cfg != nil && s.entry.RefreshToken != "" {
		nt, err := s.refreshLocked()
		if err == nil {
			return nt, nil
		}
		if now.Before(tok.Expiry) {
			return tok, nil // keep using it while it lasts
		}
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return nil, re
		}
		return nil, err
	}
	if now.Before(tok.Expiry) {
		return tok, nil
	}
	return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the cached token expired and cannot be refreshed"}
}

func (s *tokenSource) refreshLocked() (*oauth2.Token, error) {
	nt, err := s.cfg.TokenSource(s.ctx, &oauth2.Token{RefreshToken: s.entry.RefreshToken}).Token()
	if err != nil {
		return nil, fmt.Errorf("refresh the token: %w", err)
	}
	if err := checkToken(nt); err != nil {
		return nil, fmt.Errorf("refresh the token: %w", err)
	}
	if isDPoP(nt.TokenType) && s.key == nil {
		return nil, errors.New("refresh the token: the authorization server issued a DPoP token to a refresh without a DPoP proof: refused")
	}
	s.entry.setToken(nt)
	s.l.tokens(&s.entry)
	if !isDPoP(nt.TokenType) {
		s.entry.DPoPKey = "" // the server went back to Bearer tokens
	}
	if sc, ok := nt.Extra("scope").(string); ok {
		s.entry.Scopes = strings.Fields(sc)
	}
	now := s.l.now()
	s.setMargin(now)
	e := s.entry
	e.Saved = now
	s.l.save(&e)
	return s.entry.Token(), nil
}

// forceRefresh refreshes now.
func (s *tokenSource) forceRefresh() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg == nil || s.entry.RefreshToken == "" {
		return errors.New("the login has no refresh token")
	}
	_, err := s.refreshLocked()
	return err
}

func (s *tokenSource) refreshable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg != nil && s.entry.RefreshToken != ""
}

// usable reports whether Token can give a token.
func (s *tokenSource) usable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entry.Expiry.IsZero() || s.l.now().Before(s.entry.Expiry) || (s.cfg != nil && s.entry.RefreshToken != "")
}

func (s *tokenSource) unexpired() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entry.Expiry.IsZero() || s.l.now().Before(s.entry.Expiry)
}

func (s *tokenSource) access() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entry.AccessToken
}

func (s *tokenSource) snapshot() Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry
	e.Scopes = slices.Clone(e.Scopes)
	return e
}

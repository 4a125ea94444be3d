package fakegithub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

const redirect = "http://127.0.0.1:9/connect/github/callback"

func setup(t *testing.T) (*Provider, *httptest.Server, *oauth2.Config) {
	t.Helper()
	p, err := New(Options{ClientID: "cid", ClientSecret: "csecret", RedirectURL: redirect})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	cfg := &oauth2.Config{ClientID: "cid", ClientSecret: "csecret", RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL + AuthorizePath, TokenURL: srv.URL + TokenPath, AuthStyle: oauth2.AuthStyleInHeader}}
	return p, srv, cfg
}

var noRedirects = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       10 * time.Second,
}

// approve signs in as login on the consent page and returns the redirect it answers with.
func approve(t *testing.T, authURL, login, decision string) *url.URL {
	t.Helper()
	resp, err := noRedirects.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consent page: status %d", resp.StatusCode)
	}
	resp, err = noRedirects.PostForm(authURL, url.Values{"login": {login}, "decision": {decision}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("consent answer: status %d, want a redirect", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestCodeFlowWithPKCE(t *testing.T) {
	p, srv, cfg := setup(t)
	ctx := context.Background()
	verifier := oauth2.GenerateVerifier()
	loc := approve(t, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)), "octo-bob", "allow")
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != redirect || loc.Query().Get("state") != "st" {
		t.Fatalf("redirected to %s", loc)
	}
	code := loc.Query().Get("code")

	// A wrong verifier is refused (and uses the code up).
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); !isGrantError(err) {
		t.Fatalf("wrong verifier: err = %v, want invalid_grant", err)
	}

	loc = approve(t, cfg.AuthCodeURL("st2", oauth2.S256ChallengeOption(verifier)), "octo-bob", "allow")
	code = loc.Query().Get("code")
	if _, err := cfg.Exchange(ctx, code); err == nil {
		t.Fatal("exchange without a verifier succeeded")
	}
	loc = approve(t, cfg.AuthCodeURL("st3", oauth2.S256ChallengeOption(verifier)), "octo-bob", "allow")
	code = loc.Query().Get("code")
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	// The same code again is refused.
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier)); !isGrantError(err) {
		t.Fatalf("reused code: err = %v, want invalid_grant", err)
	}

	// The token works on the API, as octo-bob.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/repos/octo-bob/hello/issues", strings.NewReader(`{"title":"Hi"}`))
	tok.SetAuthHeader(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Number int `json:"number"`
		User   struct {
			Login string `json:"login"`
		} `json:"user"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.Number != 1 || created.User.Login != "octo-bob" {
		t.Fatalf("create issue: %d %+v", resp.StatusCode, created)
	}
	if is := p.Issues(); len(is) != 1 || is[0].Author != "octo-bob" || is[0].Repo != "octo-bob/hello" {
		t.Fatalf("issues = %+v", is)
	}
	if got := p.IssuedAccessTokens(); len(got) != 1 || got[0] != tok.AccessToken {
		t.Fatalf("IssuedAccessTokens = %v", got)
	}
}

func isGrantError(err error) bool {
	re, ok := err.(*oauth2.RetrieveError)
	return ok && re.ErrorCode == "invalid_grant"
}

func TestAuthorizeRefusesWeakOrForeignRequests(t *testing.T) {
	_, _, cfg := setup(t)
	verifier := oauth2.GenerateVerifier()
	base := cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier))
	change := func(k, v string) string {
		u, _ := url.Parse(base)
		q := u.Query()
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for name, u := range map[string]string{
		"no PKCE":         change("code_challenge", ""),
		"plain PKCE":      change("code_challenge_method", "plain"),
		"foreign client":  change("client_id", "someone-else"),
		"foreign address": change("redirect_uri", "http://127.0.0.1:9/evil"),
		"implicit grant":  change("response_type", "token"),
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := noRedirects.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Fatal("the consent page was shown for a bad request")
			}
			if loc := resp.Header.Get("Location"); strings.Contains(loc, "/evil") || strings.Contains(loc, "code=") {
				t.Fatalf("redirected to %q", loc)
			}
		})
	}
}

func TestDenyRedirectsWithAccessDenied(t *testing.T) {
	_, _, cfg := setup(t)
	loc := approve(t, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), "octo-alice", "deny")
	if loc.Query().Get("error") != "access_denied" || loc.Query().Get("code") != "" || loc.Query().Get("state") != "st" {
		t.Fatalf("deny redirected to %s", loc)
	}
}

// setupToken is setup plus a valid access token for octo-alice.
func setupToken(t *testing.T) (*Provider, *httptest.Server, *oauth2.Token) {
	p, srv, cfg := setup(t)
	verifier := oauth2.GenerateVerifier()
	loc := approve(t, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)), "octo-alice", "allow")
	tok, err := cfg.Exchange(context.Background(), loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	return p, srv, tok
}

func TestAPIRefusesBadTokens(t *testing.T) {
	_, srv, tok := setupToken(t)
	for _, auth := range []string{"", "Bearer nonsense", "Basic Y2lkOmNzZWNyZXQ=", "query"} {
		target := srv.URL + "/repos/a/b/issues"
		if auth == "query" {
			target += "?access_token=" + url.QueryEscape(tok.AccessToken)
			auth = ""
		}
		req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(`{"title":"x"}`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
}

// refresh posts a refresh to the token endpoint, with the client's secret when
// secret is set, and returns the status and the answer.
func refresh(t *testing.T, srv *httptest.Server, rt, scope, secret string) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
	if scope != "" {
		form.Set("scope", scope)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+TokenPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		req.SetBasicAuth("cid", secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// A refresh may narrow what the user approved, never widen it, and needs the
// application's secret: octo-alice approves repo; a refresh asking for
// read:user besides, or a scope GitHub never heard of, is refused with
// invalid_scope and nothing is issued; a refresh without the secret (a stolen
// refresh token) is refused with invalid_client. Before, each got a token.
func TestRefreshCannotWidenWhatWasApproved(t *testing.T) {
	p, srv, cfg := setup(t)
	cfg.Scopes = []string{"repo"}
	verifier := oauth2.GenerateVerifier()
	loc := approve(t, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)), "octo-alice", "allow")
	tok, err := cfg.Exchange(context.Background(), loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	issued := len(p.IssuedAccessTokens())
	for _, asked := range []string{"repo read:user", "user:email", "repo admin:org", "made-up"} {
		if status, out := refresh(t, srv, tok.RefreshToken, asked, "csecret"); status != http.StatusBadRequest || out["error"] != "invalid_scope" {
			t.Errorf("a refresh asking for %q: %d %v, want 400 invalid_scope", asked, status, out)
		}
	}
	for _, secret := range []string{"", "wrong"} {
		if status, out := refresh(t, srv, tok.RefreshToken, "", secret); status != http.StatusUnauthorized || out["error"] != "invalid_client" {
			t.Errorf("a refresh with secret %q: %d %v, want 401 invalid_client", secret, status, out)
		}
	}
	if n := len(p.IssuedAccessTokens()); n != issued {
		t.Fatalf("%d tokens issued to refused refreshes", n-issued)
	}
	status, out := refresh(t, srv, tok.RefreshToken, "", "csecret")
	if status != http.StatusOK || out["scope"] != "repo" {
		t.Fatalf("a refresh within what was approved: %d %v, want scope repo", status, out)
	}
}

// An unknown scope is refused at the authorization endpoint with invalid_scope,
// sent back to the application before anyone signs in.
func TestAuthorizeRefusesUnknownScopes(t *testing.T) {
	_, _, cfg := setup(t)
	cfg.Scopes = []string{"repo", "delete_everything"}
	resp, err := noRedirects.Get(cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc.Query().Get("error") != "invalid_scope" || loc.Query().Get("state") != "st" ||
		!strings.HasPrefix(resp.Header.Get("Location"), redirect+"?") {
		t.Fatalf("an unknown scope: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// Sign-ins cannot grow the provider's memory: one user's grants beyond the
// bound end the oldest, and the grants kept stay bounded however many codes
// are asked for. Before, every code and token stayed for its life.
func TestGrantsAreBounded(t *testing.T) {
	p, err := New(Options{ClientID: "cid", ClientSecret: "csecret", RedirectURL: redirect, MaxTokensPerUser: 4})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	cfg := &oauth2.Config{ClientID: "cid", ClientSecret: "csecret", RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL + AuthorizePath, TokenURL: srv.URL + TokenPath, AuthStyle: oauth2.AuthStyleInHeader}}
	for range 40 {
		approve(t, cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), "octo-alice", "allow")
	}
	if n := p.tokens.Len(); n > 4 {
		t.Fatalf("40 sign-ins of one user keep %d grants, want at most 4", n)
	}
}

// The tokens remembered for tests are the latest ones: sign-ins cannot grow the list.
func TestIssuedKeepsTheLatest(t *testing.T) {
	p, _, _ := setup(t)
	for i := range maxIssued + 10 {
		if err := p.writeToken(httptest.NewRecorder(), map[string]any{"access_token": fmt.Sprint("t", i)}, http.Header{}); err != nil {
			t.Fatal(err)
		}
	}
	got := p.IssuedAccessTokens()
	if len(got) != maxIssued || got[len(got)-1] != fmt.Sprint("t", maxIssued+9) {
		t.Fatalf("%d tokens kept, the last %q", len(got), got[len(got)-1])
	}
}

// Issues are bounded: a title over 256 bytes is refused, and the provider keeps the
// latest 1000 issues however many are created.
func TestIssuesAreBounded(t *testing.T) {
	p, srv, tok := setupToken(t)
	create := func(title string) int {
		body, _ := json.Marshal(map[string]string{"title": title})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/repos/octo-alice/hello/issues", strings.NewReader(string(body)))
		tok.SetAuthHeader(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := create(strings.Repeat("x", maxTitle+1)); code != http.StatusUnprocessableEntity {
		t.Fatalf("a title of %d bytes: %d, want 422", maxTitle+1, code)
	}
	for i := range maxIssues + 5 {
		if code := create(fmt.Sprint("issue ", i)); code != http.StatusCreated {
			t.Fatalf("issue %d: %d", i, code)
		}
	}
	if is := p.Issues(); len(is) != maxIssues || is[len(is)-1].Title != fmt.Sprint("issue ", maxIssues+4) {
		t.Fatalf("%d issues kept", len(is))
	}
}

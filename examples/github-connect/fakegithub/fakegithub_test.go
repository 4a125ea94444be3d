package fakegithub

import (
	"context"
	"encoding/json"
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

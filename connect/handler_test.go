package connect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/internal/server/reqbody"
	"github.com/askback/askback/internal/testsupport/bodylimit"
	"github.com/askback/askback/keys"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// start opens link in browser b and presses the button; it returns the final response
// after following every redirect (provider and callback included).
func start(t *testing.T, b *http.Client, link string) (*http.Response, string) {
	t.Helper()
	resp, err := b.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `id="continue"`) {
		return resp, page
	}
	u, _ := url.Parse(link)
	resp, err = b.PostForm(u.Scheme+"://"+u.Host+u.Path, url.Values{"t": {u.Query().Get("t")}})
	if err != nil {
		t.Fatal(err)
	}
	return resp, body(t, resp)
}

func TestFlowStoresTokenForTheLinkUser(t *testing.T) {
	f := newFixture(t)
	link, err := f.c.Link("alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	resp, page := start(t, f.browserAs(t, "alice"), link)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Connected — return to your assistant") {
		t.Fatalf("status %d, page:\n%s", resp.StatusCode, page)
	}
	tok, err := f.c.TokenFor(context.Background(), "alice", "github")
	if err != nil || tok.AccessToken != "access-1" {
		t.Fatalf("TokenFor(alice) = %v, %v", tok, err)
	}
	if _, err := f.c.TokenFor(context.Background(), "bob", "github"); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("TokenFor(bob) err = %v, want ErrNotConnected", err)
	}
	// The provider saw PKCE with S256, a state, and the connector's own callback.
	q := f.provider.lastAuth
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
		t.Errorf("authorization request without S256 PKCE: %v", q)
	}
	if len(q.Get("state")) < 40 {
		t.Errorf("state %q is too short to be unguessable", q.Get("state"))
	}
	if q.Get("redirect_uri") != f.srv.URL+"/connect/github/callback" {
		t.Errorf("redirect_uri = %q", q.Get("redirect_uri"))
	}
	if strings.Contains(page, "access-1") {
		t.Error("the final page shows the token")
	}
}

// The attack: Alice's link in Bob's browser. Refused on the page and on the button's
// POST (an attacker can send that directly); nothing reaches the provider or the store.
func TestLinkOfAnotherUserIsRefused(t *testing.T) {
	f := newFixture(t)
	link, _ := f.c.Link("alice", "github")
	bob := f.browserAs(t, "bob")

	resp, err := bob.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, resp)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "This link is for a different account") {
		t.Fatalf("GET: status %d, page:\n%s", resp.StatusCode, page)
	}
	if strings.Contains(page, `id="continue"`) {
		t.Fatal("the refusal page offers to continue")
	}

	u, _ := url.Parse(link)
	resp, err = bob.PostForm(f.srv.URL+u.Path, url.Values{"t": {u.Query().Get("t")}})
	if err != nil {
		t.Fatal(err)
	}
	body(t, resp)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("POST: status %d, want 403", resp.StatusCode)
	}
	if f.store.Len() != 0 || f.provider.lastAuth != nil {
		t.Fatalf("refused link reached the provider or the store (stored %d)", f.store.Len())
	}
}

func TestSignedOutBrowserIsSentToSignIn(t *testing.T) {
	f := newFixture(t)
	link, _ := f.c.Link("alice", "github")
	b := f.browserAs(t, "")
	b.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := b.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body(t, resp)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Path != "/signin" {
		t.Fatalf("status %d location %q, want a redirect to /signin", resp.StatusCode, loc)
	}
	u, _ := url.Parse(link)
	if back := loc.Query().Get("return"); back != u.RequestURI() {
		t.Fatalf("return = %q, want the link %q", back, u.RequestURI())
	}
}

func TestLinkChecks(t *testing.T) {
	f := newFixture(t)
	link, _ := f.c.Link("alice", "github")
	u, _ := url.Parse(link)
	tok := u.Query().Get("t")
	other := keys.Key{ID: "k1", Secret: []byte(strings.Repeat("x", 32))}
	forger, err := New(&Options{BaseURL: f.srv.URL + "/connect", Keys: []keys.Key{other}, BrowserAuth: headerAuth{},
		Store: tokenstore.NewMemory(), Providers: f.c.providers["github"].asSlice()})
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := forger.Link("alice", "github")
	for name, c := range map[string]struct {
		url  string
		want string
	}{
		"no token":        {f.srv.URL + "/connect/github", "This link is not valid"},
		"truncated":       {f.srv.URL + "/connect/github?t=" + tok[:len(tok)-4], "This link is not valid"},
		"forged key":      {forged, "This link is not valid"},
		"other provider":  {f.srv.URL + "/connect/gitlab?t=" + url.QueryEscape(tok), "Unknown service"},
		"unknown key id":  {f.srv.URL + "/connect/github?t=k9" + tok[2:], "This link is not valid"},
		"swapped payload": {f.srv.URL + "/connect/github?t=" + swapPayload(t, f, tok), "This link is not valid"},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := f.browserAs(t, "alice").Get(c.url)
			if err != nil {
				t.Fatal(err)
			}
			page := body(t, resp)
			if resp.StatusCode == http.StatusOK || !strings.Contains(page, c.want) {
				t.Fatalf("status %d, want a refusal %q; page:\n%s", resp.StatusCode, c.want, page)
			}
		})
	}
	f.clock.advance(10*time.Minute + time.Second)
	resp, _ := f.browserAs(t, "alice").Get(link)
	if page := body(t, resp); !strings.Contains(page, "This link has expired") {
		t.Fatalf("expired link: %s", page)
	}
	if f.store.Len() != 0 {
		t.Fatal("a refused link stored a token")
	}
}

// swapPayload puts the payload of a link made for bob into alice's token, keeping her
// signature.
func swapPayload(t *testing.T, f *fixture, tok string) string {
	bobLink, _ := f.c.Link("bob", "github")
	bu, _ := url.Parse(bobLink)
	bparts := strings.Split(bu.Query().Get("t"), ".")
	parts := strings.Split(tok, ".")
	return parts[0] + "." + bparts[1] + "." + parts[2]
}

func (p *Provider) asSlice() []Provider { return []Provider{*p} }

func TestCallbackChecks(t *testing.T) {
	t.Run("no flow cookie", func(t *testing.T) {
		f := newFixture(t)
		resp, _ := f.browserAs(t, "alice").Get(f.srv.URL + "/connect/github/callback?code=code-1&state=x")
		if page := body(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "not started here") {
			t.Fatalf("status %d: %s", resp.StatusCode, page)
		}
	})
	t.Run("browser user changed during the flow", func(t *testing.T) {
		f := newFixture(t)
		link, _ := f.c.Link("alice", "github")
		b := f.browserAs(t, "alice")
		// Stop at the provider: do not follow its redirect to the callback.
		b.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if strings.HasSuffix(req.URL.Path, "/callback") {
				return http.ErrUseLastResponse
			}
			return nil
		}
		resp, _ := start(t, b, link)
		callback := resp.Header.Get("Location")
		b.CheckRedirect = nil
		f.setBrowserUser(t, b, "bob")
		resp, err := b.Get(callback)
		if err != nil {
			t.Fatal(err)
		}
		if page := body(t, resp); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("status %d: %s", resp.StatusCode, page)
		}
		if f.store.Len() != 0 {
			t.Fatal("token stored although the browser user changed")
		}
	})
	t.Run("another session of the same user", func(t *testing.T) {
		f := newFixtureWith(t, sessionAuth{})
		link, _ := f.c.Link("alice", "github")
		b := f.browserAs(t, "alice")
		f.setCookie(t, b, "test_session", "session-1")
		b.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if strings.HasSuffix(req.URL.Path, "/callback") {
				return http.ErrUseLastResponse
			}
			return nil
		}
		resp, _ := start(t, b, link)
		callback := resp.Header.Get("Location")
		b.CheckRedirect = nil
		f.setCookie(t, b, "test_session", "session-2")
		resp, err := b.Get(callback)
		if err != nil {
			t.Fatal(err)
		}
		if page := body(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "another session") {
			t.Fatalf("status %d: %s", resp.StatusCode, page)
		}
		if f.store.Len() != 0 {
			t.Fatal("token stored from another session")
		}
		// In the session that started it, the same kind of flow completes.
		f.setCookie(t, b, "test_session", "session-1")
		if resp, page := start(t, b, link); !strings.Contains(page, "Connected") {
			t.Fatalf("status %d: %s", resp.StatusCode, page)
		}
	})
	t.Run("provider denied", func(t *testing.T) {
		f := newFixture(t)
		f.provider.deny = true
		link, _ := f.c.Link("alice", "github")
		resp, page := start(t, f.browserAs(t, "alice"), link)
		if !strings.Contains(page, "You did not allow access at GitHub") {
			t.Fatalf("status %d: %s", resp.StatusCode, page)
		}
		if f.store.Len() != 0 {
			t.Fatal("token stored after a denial")
		}
	})
	t.Run("expired flow", func(t *testing.T) {
		f := newFixture(t)
		link, _ := f.c.Link("alice", "github")
		b := f.browserAs(t, "alice")
		b.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if strings.HasSuffix(req.URL.Path, "/callback") {
				return http.ErrUseLastResponse
			}
			return nil
		}
		resp, _ := start(t, b, link)
		callback := resp.Header.Get("Location")
		f.clock.advance(11 * time.Minute)
		resp, err := b.Get(callback)
		if err != nil {
			t.Fatal(err)
		}
		if page := body(t, resp); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d: %s", resp.StatusCode, page)
		}
		if f.store.Len() != 0 {
			t.Fatal("token stored from an expired flow")
		}
	})
}

func TestCrossOriginPostIsRefused(t *testing.T) {
	f := newFixture(t)
	link, _ := f.c.Link("alice", "github")
	u, _ := url.Parse(link)
	req, _ := http.NewRequest(http.MethodPost, f.srv.URL+u.Path, strings.NewReader(url.Values{"t": {u.Query().Get("t")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := f.browserAs(t, "alice").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body(t, resp)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site POST: status %d, want 403", resp.StatusCode)
	}
}

func TestPagesCarrySecurityHeaders(t *testing.T) {
	f := newFixture(t)
	link, _ := f.c.Link("alice", "github")
	resp, err := f.browserAs(t, "alice").Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body(t, resp)
	for h, want := range map[string]string{
		"X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy = %q", resp.Header.Get("Content-Security-Policy"))
	}
}

func TestTokenForRefreshesAnExpiredToken(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	link, _ := f.c.Link("alice", "github")
	start(t, f.browserAs(t, "alice"), link)
	f.clock.advance(2 * time.Hour)
	// The store holds an expiry in real time; move it into the test clock's past.
	tok, _ := f.store.Get(ctx, "alice", "github")
	tok.Expiry = f.clock.now().Add(-time.Minute)
	f.store.Put(ctx, "alice", "github", tok)

	fresh, err := f.c.TokenFor(ctx, "alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	if fresh.AccessToken != "access-2" {
		t.Fatalf("TokenFor after expiry = %q, want the refreshed access-2", fresh.AccessToken)
	}
	stored, _ := f.store.Get(ctx, "alice", "github")
	if stored.AccessToken != "access-2" {
		t.Fatalf("the refreshed token was not stored: %q", stored.AccessToken)
	}
	// Without a refresh token an expired token means: not connected.
	f.store.Put(ctx, "bob", "github", &oauthToken{AccessToken: "old", Expiry: f.clock.now().Add(-time.Minute)})
	if _, err := f.c.TokenFor(ctx, "bob", "github"); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("expired token without refresh: err = %v, want ErrNotConnected", err)
	}
}

func TestNewRefusesUnsafeOptions(t *testing.T) {
	good := func() Options {
		return Options{
			BaseURL: "https://mcp.example.com/connect", Keys: []keys.Key{testKey}, BrowserAuth: headerAuth{},
			Store:     tokenstore.NewMemory(),
			Providers: []Provider{{Name: "github", OAuth2: oauthConfig("https://github.example/authorize", "https://github.example/token")}},
		}
	}
	if _, err := New(ptr(good())); err != nil {
		t.Fatalf("good options refused: %v", err)
	}
	for name, change := range map[string]func(*Options){
		"plain http off loopback": func(o *Options) { o.BaseURL = "http://mcp.example.com/connect" },
		"relative base":           func(o *Options) { o.BaseURL = "/connect" },
		"query in base":           func(o *Options) { o.BaseURL = "https://mcp.example.com/connect?x=1" },
		"no keys":                 func(o *Options) { o.Keys = nil },
		"short key":               func(o *Options) { o.Keys = []keys.Key{{ID: "k", Secret: []byte("short")}} },
		"bad key id":              func(o *Options) { o.Keys = []keys.Key{{ID: "k.1", Secret: testKey.Secret}} },
		"duplicate key id":        func(o *Options) { o.Keys = []keys.Key{testKey, testKey} },
		"no browser auth":         func(o *Options) { o.BrowserAuth = nil },
		"no store":                func(o *Options) { o.Store = nil },
		"no providers":            func(o *Options) { o.Providers = nil },
		"bad provider name":       func(o *Options) { o.Providers[0].Name = "Git/Hub" },
		"provider without client": func(o *Options) { o.Providers[0].OAuth2.ClientID = "" },
	} {
		t.Run(name, func(t *testing.T) {
			o := good()
			change(&o)
			if _, err := New(&o); err == nil {
				t.Fatal("New accepted the options")
			}
		})
	}
	o := good()
	o.BaseURL = "http://127.0.0.1:8080/connect"
	if _, err := New(&o); err != nil {
		t.Fatalf("http on loopback refused: %v", err)
	}
}

// A token store that fails (here: tokens sealed with another key of the same id) gives
// the tool, and so the MCP client, a neutral error; the cause goes to the server's log.
func TestTokenStoreFailureIsNeutral(t *testing.T) {
	ctx := context.Background()
	inner := tokenstore.NewMemory()
	other, _ := tokenstore.NewEncrypted(inner, keys.Key{ID: "ours", Secret: bytes.Repeat([]byte{9}, 32)})
	if err := other.Put(ctx, "alice", "github", &oauthToken{AccessToken: "secret-access"}); err != nil {
		t.Fatal(err)
	}
	ours, _ := tokenstore.NewEncrypted(inner, keys.Key{ID: "ours", Secret: bytes.Repeat([]byte{8}, 32)})
	var log bytes.Buffer
	c, err := New(&Options{BaseURL: "http://127.0.0.1:1/connect", Keys: []keys.Key{testKey}, BrowserAuth: headerAuth{}, Store: ours,
		Providers: []Provider{{Name: "github", OAuth2: oauthConfig("http://127.0.0.1:2/a", "http://127.0.0.1:2/t")}},
		Logger:    slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"},
		Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}}
	_, _, err = c.Require(ctx, req, "github")
	if !errors.Is(err, ErrTokenStore) {
		t.Fatalf("Require = %v, want ErrTokenStore", err)
	}
	for _, leak := range []string{"key", "open", "sealed", "alice", "token store"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("the client would read %q in %q", leak, err)
		}
	}
	if !strings.Contains(log.String(), "does not open") {
		t.Errorf("the cause is not logged: %q", log.String())
	}
}

func ptr(o Options) *Options { return &o }

// The start page reads its form within the server's limits: a form that
// trickles is answered 408 when the server's time for a body has passed,
// and one over 4 KiB is answered 413, on a plain http.Server without
// timeouts of its own.
func TestStartFormIsReadWithinTheServersLimits(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.c.ServeHTTP(w, reqbody.WithLimits(r, reqbody.Limits{Timeout: 300 * time.Millisecond}))
	}))
	t.Cleanup(srv.Close)
	link, _ := f.c.Link("alice", "github")
	u, _ := url.Parse(link)
	bodylimit.Stalls(t, srv.Listener.Addr().String(), fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nCookie: test_user=alice\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nt=", u.Path))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+u.Path, strings.NewReader("t="+strings.Repeat("a", 5000)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := f.browserAs(t, "alice").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body(t, resp)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a form of 5000 bytes: %d, want 413", resp.StatusCode)
	}
}

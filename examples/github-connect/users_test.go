package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/bodylimit"
)

func TestReadUsers(t *testing.T) {
	users, err := readUsers(strings.NewReader("# demo users\nalice:alice-mcp-token:pw\n\n bob:bob-mcp-token:p:w \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 2 || users[1] != (demoUser{"bob", "bob-mcp-token", "p:w"}) {
		t.Fatalf("users = %+v", users)
	}
	for _, bad := range []string{"alice", "alice:token-long", "alice::pw", ":token-long:pw", "alice:short:pw"} {
		if _, err := readUsers(strings.NewReader(bad)); err == nil {
			t.Errorf("readUsers(%q) accepted it", bad)
		}
	}
}

// The sign-in page sends the browser back only to a path on this server.
func TestSignInIsNoOpenRedirect(t *testing.T) {
	for in, want := range map[string]string{
		"/connect/github?t=abc":      "/connect/github?t=abc",
		"":                           "/signin",
		"https://evil.example/":      "/signin",
		"//evil.example/":            "/signin",
		"/\\evil.example/":           "/signin",
		"/ok\r\nSet-Cookie: x=1":     "/signin",
		"javascript:alert(1)":        "/signin",
		"/connect/github?t=a#frag":   "/connect/github?t=a#frag",
		"http:/evil.example":         "/signin",
		"/%2F%2Fevil.example/a?x=/b": "/%2F%2Fevil.example/a?x=/b",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// A cross-site form cannot sign a victim's browser into the attacker's account (login
// CSRF), which would turn the connect page's user check against the victim.
func TestSignInRefusesCrossSitePosts(t *testing.T) {
	s := newStack(t)
	form := url.Values{"name": {"bob"}, "password": {"bob-pw"}}.Encode()
	req, _ := http.NewRequest(http.MethodPost, s.appURL+"/signin", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Fatalf("cross-site sign-in: status %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	// A wrong password gets no session either.
	bad := url.Values{"name": {"bob"}, "password": {"alice-pw"}}.Encode()
	resp, err = http.Post(s.appURL+"/signin", "application/x-www-form-urlencoded", strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Fatalf("wrong password: status %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
}

func TestMCPRefusesUnknownBearerToken(t *testing.T) {
	s := newStack(t)
	req, _ := http.NewRequest(http.MethodPost, s.appURL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer alice-mcp-token-guess")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("unknown token: status %d, want 401", resp.StatusCode)
	}
}

// Whatever the return parameter holds, the sign-in page redirects to a path on this
// server.
func FuzzLocalPath(f *testing.F) {
	for _, s := range []string{"/connect/github?t=abc", "//evil.example", "/\\evil", "https://evil.example", "/a\r\nb", "/%2F%2Fx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := localPath(s)
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") || strings.ContainsAny(p, "\r\n\\") {
			t.Fatalf("localPath(%q) = %q", s, p)
		}
		// What a browser makes of the redirect: resolved against this server, it
		// stays on this server.
		base, _ := url.Parse("http://127.0.0.1:8080/signin")
		u, err := base.Parse(p)
		if err != nil || u.Host != "127.0.0.1:8080" || u.Scheme != "http" {
			t.Fatalf("localPath(%q) = %q resolves to %v (%v)", s, p, u, err)
		}
	})
}

// One user signing in over and over ends only their own oldest sessions: another
// user still signs in, and memory holds at most maxSessionsPerUser per user.
func TestSignInsOfOneUserLockNobodyOut(t *testing.T) {
	dir := &userDirectory{users: testUsers}
	s := newSessions(dir, false, time.Now, defaultThrottle)
	signIn := func(user string) *http.Cookie {
		t.Helper()
		w := httptest.NewRecorder()
		if err := s.start(w, user); err != nil {
			t.Fatalf("sign-in of %s: %v", user, err)
		}
		return w.Result().Cookies()[0]
	}
	userOf := func(c *http.Cookie) string {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(c)
		u, _ := s.User(r)
		return u
	}
	first := signIn("bob")
	var last *http.Cookie
	for range 10000 {
		last = signIn("bob")
	}
	alice := signIn("alice")
	if got := userOf(alice); got != "alice" {
		t.Fatalf("alice after 10,000 sign-ins by bob: signed in as %q", got)
	}
	if got := userOf(last); got != "bob" {
		t.Fatalf("bob's newest session: %q", got)
	}
	if got := userOf(first); got != "" {
		t.Fatalf("bob's oldest session is still valid (%q): it should have been ended", got)
	}
	s.mu.Lock()
	n, nb := len(s.byID), len(s.byUser["bob"])
	s.mu.Unlock()
	if nb != maxSessionsPerUser || n != maxSessionsPerUser+1 {
		t.Fatalf("%d sessions held (%d of bob), want %d of bob and one of alice", n, nb, maxSessionsPerUser)
	}
}

// The MCP endpoint refuses a body over the limit with 413 (the sign-in and connect
// pages read at most 4 KiB of their forms).
func TestHTTPBodyIsBounded(t *testing.T) {
	s := newStack(t)
	bodylimit.Refused(t, s.appURL+"/mcp", maxRequestBody, http.Header{"Authorization": {"Bearer alice-mcp-token"}})
}

package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/connect"
	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/examples/github-connect/fakegithub"
	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/keys"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var testUsers = []demoUser{
	{Name: "alice", Token: "alice-mcp-token", Password: "alice-pw"},
	{Name: "bob", Token: "bob-mcp-token", Password: "bob-pw"},
}

// clock is a settable time source shared by the server's connect pages and sessions.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// stack is the example server and the fake GitHub, on loopback ports.
type stack struct {
	appURL    string
	ghURL     string
	gh        *fakegithub.Provider
	store     *tokenstore.Memory
	clock     *clock
	wire      *wireLog
	callbacks *requestLog
}

// requestLog records the callback URLs the server received (the reused-code test replays
// one).
type requestLog struct {
	mu   sync.Mutex
	uris []string
}

func (l *requestLog) add(s string) {
	l.mu.Lock()
	l.uris = append(l.uris, s)
	l.mu.Unlock()
}

func (l *requestLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.uris) == 0 {
		return ""
	}
	return l.uris[len(l.uris)-1]
}

func newStack(t *testing.T) *stack {
	t.Helper()
	appLn := loopbackListener(t)
	ghLn := loopbackListener(t)
	s := &stack{
		appURL:    "http://" + appLn.Addr().String(),
		ghURL:     "http://" + ghLn.Addr().String(),
		store:     tokenstore.NewMemory(),
		clock:     &clock{},
		wire:      &wireLog{},
		callbacks: &requestLog{},
	}
	gh, err := fakegithub.New(fakegithub.Options{
		ClientID: "test-client", ClientSecret: "test-secret", AppName: "github-connect test",
		RedirectURL: s.appURL + "/connect/github/callback",
	})
	if err != nil {
		t.Fatal(err)
	}
	s.gh = gh
	a, err := newApp(config{
		PublicURL: s.appURL,
		Users:     testUsers,
		GitHub: githubConfig{
			AuthURL: s.ghURL + fakegithub.AuthorizePath, TokenURL: s.ghURL + fakegithub.TokenPath, APIURL: s.ghURL,
			ClientID: "test-client", ClientSecret: "test-secret",
		},
		Store: s.store,
		Keys:  []keys.Key{{ID: "test", Secret: bytes.Repeat([]byte{7}, 32)}},
		Now:   s.clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	appHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/callback") {
			s.callbacks.add(r.URL.RequestURI())
		}
		a.handler.ServeHTTP(w, r)
	})
	serve(t, appLn, appHandler)
	serve(t, ghLn, gh)
	return s
}

func loopbackListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func serve(t *testing.T, ln net.Listener, h http.Handler) {
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
}

// wireLog keeps every byte of every MCP request and response the test clients exchanged.
type wireLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *wireLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// recordingTransport adds the MCP bearer token and copies all traffic into the wire log.
type recordingTransport struct {
	token string
	log   *wireLog
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+rt.token)
	for k, v := range req.Header {
		rt.log.Write([]byte(k + ": " + strings.Join(v, ",") + "\n"))
	}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		rt.log.Write(body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	for k, v := range resp.Header {
		rt.log.Write([]byte(k + ": " + strings.Join(v, ",") + "\n"))
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, rt.log), resp.Body}
	return resp, nil
}

var urlCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
	Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}

// client connects an MCP client with the user's bearer token. Automatic round trips are
// off, so the test sees every question.
func (s *stack) client(t *testing.T, token string, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "1"}, &mcp.ClientOptions{
		Capabilities:   caps,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:             s.appURL + "/mcp",
		HTTPClient:           &http.Client{Transport: &recordingTransport{token: token, log: s.wire}, Timeout: 30 * time.Second},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect MCP client: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func createIssue(t *testing.T, cs *mcp.ClientSession, title string, answers mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:           "create_issue",
		Arguments:      map[string]any{"repo": "octo-alice/hello", "title": title},
		InputResponses: answers,
		RequestState:   state,
	})
	if err != nil {
		t.Fatalf("create_issue: %v", err)
	}
	return res
}

// askedLink checks that res is a URL question for GitHub and returns its link.
func (s *stack) askedLink(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.NeedsInput() {
		t.Fatalf("want a URL question, got a result: %s", resultText(res))
	}
	q, ok := res.InputRequests[connect.InputKey("github")].(*mcp.ElicitParams)
	if !ok || len(res.InputRequests) != 1 {
		t.Fatalf("want one elicitation under %q, got %#v", connect.InputKey("github"), res.InputRequests)
	}
	if q.Mode != "url" || !strings.HasPrefix(q.URL, s.appURL+"/connect/github?t=") {
		t.Fatalf("want a URL question for %s/connect/github, got mode %q url %q", s.appURL, q.Mode, q.URL)
	}
	// What a careful client shows before opening it: the server's own host, nothing
	// suspicious (http is fine on loopback, and the server is on this machine too), no
	// credential in the query.
	rep, err := urlcheck.Check(q.URL, urlcheck.ServerAt(s.appURL))
	if err != nil {
		t.Fatalf("urlcheck: %v", err)
	}
	if rep.Host != "127.0.0.1" || len(rep.Warnings) != 0 {
		t.Errorf("urlcheck of the link: host %q, warnings %+v", rep.Host, rep.Warnings)
	}
	for _, u := range testUsers {
		if strings.Contains(q.URL, u.Name) {
			t.Errorf("the link names user %q: %s", u.Name, q.URL)
		}
	}
	return q.URL
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var accepted = mcp.InputResponseMap{"connect_github": &mcp.ElicitResult{Action: "accept"}}

// connectInBrowser walks the browser, signed in as the link's user or not, through the
// connect page and the provider's consent, as githubUser.
func (s *stack) connectInBrowser(t *testing.T, b *browser, link, githubUser string) {
	t.Helper()
	b.open(link)
	b.waitFor(s.appURL + "/connect/github?t=")
	b.do(clickID("continue"))
	b.waitFor(s.ghURL + fakegithub.AuthorizePath)
	b.do(clickID("login-"+githubUser), clickID("authorize"))
	b.waitFor(s.appURL + "/connect/github/callback")
}

// The whole flow for one user: asked by URL, connected in the browser, issue created.
func TestConnectFlowInBrowser(t *testing.T) {
	s := newStack(t)
	alice := newBrowser(t)
	cs := s.client(t, "alice-mcp-token", urlCaps)

	link := s.askedLink(t, createIssue(t, cs, "First issue", nil, ""))

	// Not signed in yet: the link leads to the server's sign-in and back.
	alice.open(link)
	alice.fillSignIn(s.appURL, "alice", "alice-pw")
	alice.waitFor(s.appURL + "/connect/github?t=")
	if got := alice.body(); !strings.Contains(got, "signed in to the github-connect example server as alice") {
		t.Errorf("connect page does not say who is connecting:\n%s", got)
	}
	alice.do(clickID("continue"))
	alice.waitFor(s.ghURL + fakegithub.AuthorizePath)
	alice.do(clickID("login-octo-alice"), clickID("authorize"))
	alice.waitFor(s.appURL + "/connect/github/callback")
	if got := alice.text("heading"); got != "Connected — return to your assistant" {
		t.Fatalf("final page says %q; page:\n%s", got, alice.body())
	}

	res := createIssue(t, cs, "First issue", accepted, "")
	if res.NeedsInput() || res.IsError {
		t.Fatalf("repeated call: want the issue created, got needsInput=%v isError=%v %q", res.NeedsInput(), res.IsError, resultText(res))
	}
	if got := resultText(res); !strings.Contains(got, "Created issue #1 in octo-alice/hello") {
		t.Fatalf("repeated call says %q", got)
	}
	issues := s.gh.Issues()
	if len(issues) != 1 || issues[0].Author != "octo-alice" || issues[0].Title != "First issue" {
		t.Fatalf("provider has issues %+v, want one by octo-alice", issues)
	}

	// A later call needs no question at all.
	res = createIssue(t, cs, "Second issue", nil, "")
	if got := resultText(res); res.NeedsInput() || !strings.Contains(got, "Created issue #2") {
		t.Fatalf("third call: needsInput=%v %q", res.NeedsInput(), got)
	}
	assertNoTokenOnWire(t, s)
}

// assertNoTokenOnWire checks that no MCP message carried a third-party token.
func assertNoTokenOnWire(t *testing.T, s *stack) {
	t.Helper()
	wire := s.wire.String()
	if !strings.Contains(wire, "create_issue") {
		t.Fatal("the wire log is empty: the recorder saw no MCP traffic")
	}
	secrets := s.gh.IssuedAccessTokens()
	if len(secrets) == 0 {
		t.Fatal("the provider issued no token: nothing to look for")
	}
	for _, u := range []string{"alice", "bob"} {
		if tok, err := s.store.Get(context.Background(), u, "github"); err == nil {
			secrets = append(secrets, tok.AccessToken, tok.RefreshToken)
		}
	}
	for _, sec := range secrets {
		if sec != "" && strings.Contains(wire, sec) {
			t.Errorf("a third-party token appeared in MCP traffic")
		}
	}
}

// The attack from the specification: Alice sends her link to Bob. Bob's browser, signed
// in as Bob, is refused, and no token is stored for either of them.
func TestLinkOpenedByAnotherUserIsRefused(t *testing.T) {
	s := newStack(t)
	cs := s.client(t, "alice-mcp-token", urlCaps)
	link := s.askedLink(t, createIssue(t, cs, "Phish", nil, ""))

	bob := newBrowser(t)
	bob.signIn(s.appURL, "bob", "bob-pw")
	bob.open(link)
	if got := bob.text("heading"); got != "This link is for a different account" {
		t.Fatalf("Bob's browser shows %q, want a refusal; page:\n%s", got, bob.body())
	}
	if body := bob.body(); !strings.Contains(body, "Nothing was connected") {
		t.Errorf("refusal page does not say nothing was stored:\n%s", body)
	}
	if strings.Contains(bob.body(), "Continue") {
		t.Errorf("refusal page offers to continue")
	}
	// Bob never reached the provider, and nothing is stored for anyone.
	if n := s.store.Len(); n != 0 {
		t.Fatalf("%d tokens stored after the refused link", n)
	}
	if n := len(s.gh.IssuedAccessTokens()); n != 0 {
		t.Fatalf("the provider issued %d tokens", n)
	}

	// Alice's repeated call is asked again: her account is not connected.
	s.askedLink(t, createIssue(t, cs, "Phish", accepted, ""))
}

func TestExpiredLinkIsRefused(t *testing.T) {
	s := newStack(t)
	cs := s.client(t, "alice-mcp-token", urlCaps)
	link := s.askedLink(t, createIssue(t, cs, "Late", nil, ""))
	alice := newBrowser(t)
	alice.signIn(s.appURL, "alice", "alice-pw")
	s.clock.advance(11 * time.Minute)
	alice.open(link)
	if got := alice.text("heading"); got != "This link has expired" {
		t.Fatalf("expired link shows %q; page:\n%s", got, alice.body())
	}
	if s.store.Len() != 0 {
		t.Fatal("a token was stored through an expired link")
	}
}

func TestTamperedLinkIsRefused(t *testing.T) {
	s := newStack(t)
	cs := s.client(t, "alice-mcp-token", urlCaps)
	link := s.askedLink(t, createIssue(t, cs, "Tamper", nil, ""))
	alice := newBrowser(t)
	alice.signIn(s.appURL, "alice", "alice-pw")

	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	tok := u.Query().Get("t")
	// Change one character of the payload (the middle part).
	i := strings.Index(tok, ".") + 3
	swapped := byte('A')
	if tok[i] == 'A' {
		swapped = 'B'
	}
	u.RawQuery = url.Values{"t": {tok[:i] + string(swapped) + tok[i+1:]}}.Encode()
	alice.open(u.String())
	if got := alice.text("heading"); got != "This link is not valid" {
		t.Fatalf("tampered link shows %q; page:\n%s", got, alice.body())
	}
	if s.store.Len() != 0 {
		t.Fatal("a token was stored through a tampered link")
	}
}

// A callback whose state is not the one sealed in this browser's flow is refused.
func TestCallbackWithWrongStateIsRefused(t *testing.T) {
	s := newStack(t)
	cs := s.client(t, "alice-mcp-token", urlCaps)
	link := s.askedLink(t, createIssue(t, cs, "State", nil, ""))
	alice := newBrowser(t)
	alice.signIn(s.appURL, "alice", "alice-pw")
	alice.open(link)
	alice.do(clickID("continue"))
	alice.waitFor(s.ghURL + fakegithub.AuthorizePath)

	alice.open(s.appURL + "/connect/github/callback?code=forged-code&state=forged-state")
	if got := alice.text("heading"); got != "This answer does not match your request" {
		t.Fatalf("wrong state shows %q; page:\n%s", got, alice.body())
	}
	if s.store.Len() != 0 || len(s.gh.IssuedAccessTokens()) != 0 {
		t.Fatal("a token was obtained or stored through a forged callback")
	}
	s.askedLink(t, createIssue(t, cs, "State", accepted, ""))
}

// An authorization code that was already exchanged is refused by the provider, and the
// connect page stores nothing.
func TestReusedAuthorizationCodeIsRefused(t *testing.T) {
	s := newStack(t)
	cs := s.client(t, "alice-mcp-token", urlCaps)
	alice := newBrowser(t)
	alice.signIn(s.appURL, "alice", "alice-pw")

	s.connectInBrowser(t, alice, s.askedLink(t, createIssue(t, cs, "Code", nil, "")), "octo-alice")
	if got := alice.text("heading"); got != "Connected — return to your assistant" {
		t.Fatalf("first flow: %q", got)
	}
	used, err := url.Parse(s.callbacks.last())
	if err != nil {
		t.Fatal(err)
	}
	oldCode := used.Query().Get("code")
	if err := s.store.Delete(context.Background(), "alice", "github"); err != nil {
		t.Fatal(err)
	}

	// A new flow in the same browser, answered with the old code and the new state.
	link := s.askedLink(t, createIssue(t, cs, "Code", nil, ""))
	alice.open(link)
	alice.do(clickID("continue"))
	alice.waitFor(s.ghURL + fakegithub.AuthorizePath)
	at, err := url.Parse(alice.location())
	if err != nil {
		t.Fatal(err)
	}
	newState := at.Query().Get("state")
	alice.open(s.appURL + "/connect/github/callback?" + url.Values{"code": {oldCode}, "state": {newState}}.Encode())
	if got := alice.text("heading"); got != "Not connected" {
		t.Fatalf("reused code shows %q; page:\n%s", got, alice.body())
	}
	if s.store.Len() != 0 {
		t.Fatal("a token was stored from a reused code")
	}
}

// A client that did not declare URL elicitation gets a normal result, never a URL
// question.
func TestClientWithoutURLSupportGetsAResult(t *testing.T) {
	s := newStack(t)
	for name, caps := range map[string]*mcp.ClientCapabilities{
		"no elicitation": {},
		"forms only":     {Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	} {
		t.Run(name, func(t *testing.T) {
			cs := s.client(t, "alice-mcp-token", caps)
			res := createIssue(t, cs, "No URL", nil, "")
			if res.NeedsInput() || len(res.InputRequests) != 0 {
				t.Fatalf("client without URL support was asked: %#v", res.InputRequests)
			}
			if got := resultText(res); !strings.Contains(got, "cannot ask this client to open a link") {
				t.Fatalf("result does not say what to do: %q", got)
			}
		})
	}
	if strings.Contains(s.wire.String(), "/connect/github?t=") {
		t.Fatal("a connect link was sent to a client without URL support")
	}
}

// The MCP user comes from the bearer token: a request without one is refused before
// any tool runs.
func TestMCPRequiresBearerToken(t *testing.T) {
	s := newStack(t)
	resp, err := http.Post(s.appURL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no bearer token: status %d, want 401", resp.StatusCode)
	}
}

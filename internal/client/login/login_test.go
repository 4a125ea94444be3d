package login_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servers starts the test authorization server and the MCP server it
// protects on one loopback address, and returns the MCP URL. Unless opts
// gives passwords, its sign-in page is the test-only one on which a person
// signs in with a click (user=NAME).
func servers(t *testing.T, opts authserver.Options) (string, *authserver.Server) {
	t.Helper()
	return serversBehind(t, opts, func(h http.Handler) http.Handler { return h })
}

// serversBehind is servers with every request going through wrap first.
func serversBehind(t *testing.T, opts authserver.Options, wrap func(http.Handler) http.Handler) (string, *authserver.Server) {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })))
	t.Cleanup(srv.Close)
	opts.Issuer = srv.URL
	if opts.Passwords == nil {
		opts.ConsentWithoutSignIn = true
	}
	as, err := authserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	protected, err := authserver.Protected(as, srv.URL, false)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(authserver.MCPPath, protected)
	mux.Handle(authserver.ResourceMetadataPath, protected)
	mux.Handle("/", as)
	h = mux
	return srv.URL + authserver.MCPPath, as
}

// person is the browser of a person who signs in as user: it follows the
// authorization address to the tester's loopback address. It counts how
// often it was opened.
type person struct {
	user   string
	opened atomic.Int32
}

func (p *person) open(ctx context.Context, address string) error {
	p.opened.Add(1)
	u, err := url.Parse(address)
	if err != nil {
		return err
	}
	q := u.Query()
	q.Set("user", p.user)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// syncBuffer is a bytes.Buffer safe for the login's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newLogin(dir string, s login.Settings, p *person) (*login.Login, *syncBuffer) {
	out := &syncBuffer{}
	l := &login.Login{Settings: s, Cache: &login.Cache{Dir: dir}, ErrOut: out}
	if p != nil {
		l.Open = p.open
	}
	return l, out
}

// call connects through the target with the login, as every command does,
// and calls tool.
func call(t *testing.T, l *login.Login, server, tool string, args map[string]any) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := (&target.Target{URL: server, Login: l}).Open("")
	if err != nil {
		return "", err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "login-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, conn.Transport, nil)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

func TestLoginIsCachedAndReused(t *testing.T) {
	server, as := servers(t, authserver.Options{})
	dir := filepath.Join(t.TempDir(), "tokens")
	alice := &person{user: "alice"}
	l, out := newLogin(dir, login.Settings{}, alice)
	got, err := call(t, l, server, "whoami", nil)
	if err != nil {
		t.Fatalf("call: %v\n%s", err, out)
	}
	if got != "alice (scopes: mcp)" || alice.opened.Load() != 1 {
		t.Fatalf("got %q after %d browser openings, want alice's answer after 1", got, alice.opened.Load())
	}
	for _, want := range []string{"open this address in a browser", "code_challenge_method=S256", "state=", "waiting up to "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the login did not say %q:\n%s", want, out)
		}
	}
	// The cache: a directory and a file only the user can read.
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("token directory: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v, want one", files)
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", st.Mode().Perm())
	}
	// The next run uses the cached login: no browser, no token request.
	grants := len(as.Grants())
	nobody := &person{user: "mallory"}
	l2, out2 := newLogin(dir, login.Settings{}, nobody)
	if got, err := call(t, l2, server, "whoami", nil); err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("second run: %q, %v\n%s", got, err, out2)
	}
	if nobody.opened.Load() != 0 || len(as.Grants()) != grants || out2.String() != "" {
		t.Fatalf("the second run logged in again (browser %d, token requests %d→%d):\n%s", nobody.opened.Load(), grants, len(as.Grants()), out2)
	}
	// Another identity is another login.
	bob := &person{user: "bob"}
	l3, _ := newLogin(dir, login.Settings{Identity: "bob"}, bob)
	if got, err := call(t, l3, server, "whoami", nil); err != nil || got != "bob (scopes: mcp)" || bob.opened.Load() != 1 {
		t.Fatalf("identity bob: %q, %v, browser opened %d times", got, err, bob.opened.Load())
	}
	// --login logs in again despite the cache.
	again := &person{user: "alice"}
	l4, _ := newLogin(dir, login.Settings{Fresh: true}, again)
	if _, err := call(t, l4, server, "whoami", nil); err != nil || again.opened.Load() != 1 {
		t.Fatalf("a fresh login: %v, browser opened %d times", err, again.opened.Load())
	}
}

func TestTokenIsRefreshedBeforeItExpires(t *testing.T) {
	server, as := servers(t, authserver.Options{TokenTTL: 10 * time.Minute})
	dir := t.TempDir()
	l, out := newLogin(dir, login.Settings{}, &person{user: "alice"})
	if _, err := call(t, l, server, "whoami", nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before, err := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if err != nil || before == nil || before.RefreshToken == "" {
		t.Fatalf("cached login %+v, %v: want one with a refresh token", before, err)
	}
	// Thirty seconds before expiry the token is refreshed, not used.
	nobody := &person{user: "mallory"}
	l2, out2 := newLogin(dir, login.Settings{}, nobody)
	l2.Now = func() time.Time { return before.Expiry.Add(-30 * time.Second) }
	if got, err := call(t, l2, server, "whoami", nil); err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("after the clock moved: %q, %v\n%s", got, err, out2)
	}
	if g := as.Grants(); g[len(g)-1] != "refresh_token" || nobody.opened.Load() != 0 {
		t.Fatalf("token requests %v, browser opened %d times: want a refresh and no browser", g, nobody.opened.Load())
	}
	after, err := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if err != nil || after.AccessToken == before.AccessToken || after.RefreshToken == before.RefreshToken {
		t.Fatalf("the cache was not updated with the refreshed (and rotated) token: %v", err)
	}
	// Ten minutes earlier it was used as it was.
	grants := len(as.Grants())
	l3, _ := newLogin(dir, login.Settings{}, nobody)
	l3.Now = func() time.Time { return after.Expiry.Add(-9 * time.Minute) }
	if _, err := call(t, l3, server, "whoami", nil); err != nil || len(as.Grants()) != grants {
		t.Fatalf("a token with 9 minutes left was refreshed (%v)", err)
	}
}

func TestLoginsThatMustFailSayWhy(t *testing.T) {
	cases := []struct {
		name    string
		opts    authserver.Options
		timeout time.Duration
		want    string
	}{
		{"no PKCE", authserver.Options{NoPKCE: true}, 0, "does not implement PKCE: refused"},
		{"another issuer", authserver.Options{WrongIssuer: true}, 0, `metadata issuer "https://issuer.invalid" does not match issuer URL`},
		{"wrong state", authserver.Options{WrongState: true}, 500 * time.Millisecond, "did not come back to http://127.0.0.1:"},
		{"never back", authserver.Options{NeverRedirect: true}, 300 * time.Millisecond, "did not come back to http://127.0.0.1:"},
		{"unknown user", authserver.Options{Users: []string{"bob"}}, 0, "the authorization server refused the login: access_denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			server, _ := servers(t, c.opts)
			alice := &person{user: "alice"}
			l, out := newLogin(t.TempDir(), login.Settings{Timeout: c.timeout}, alice)
			_, err := call(t, l, server, "whoami", nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q\n%s", err, c.want, out)
			}
			if login.AsError(err) == nil {
				t.Errorf("%v is not a login error", err)
			}
			if n := alice.opened.Load(); n > 1 {
				t.Errorf("the browser was opened %d times for one failed login", n)
			}
		})
	}
}

func TestStepUpAsksOnceForTheLargerScope(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	dir := t.TempDir()
	alice := &person{user: "alice"}
	l, out := newLogin(dir, login.Settings{}, alice)
	got, err := call(t, l, server, "admin", nil)
	if err != nil || got != "alice (scopes: mcp admin)" || alice.opened.Load() != 2 {
		t.Fatalf("admin: %q, %v after %d logins\n%s", got, err, alice.opened.Load(), out)
	}
	if !strings.Contains(out.String(), `asks for more scope (mcp admin): logging in again`) {
		t.Errorf("the step-up was not announced:\n%s", out)
	}
	e, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if e == nil || !slices.Contains(e.Scopes, "admin") {
		t.Fatalf("cached scopes %v, want admin among them", e)
	}

	// An authorization server that never grants it: one step-up, then a
	// clear refusal.
	stingy, _ := servers(t, authserver.Options{Withhold: "admin"})
	bob := &person{user: "bob"}
	l2, out2 := newLogin(t.TempDir(), login.Settings{}, bob)
	_, err = call(t, l2, stingy, "admin", nil)
	if err == nil || !strings.Contains(err.Error(), `still answers 403 insufficient_scope (it wants "mcp admin") after a login that asked for "mcp admin" and was granted "mcp": giving up`) {
		t.Fatalf("got %v\n%s", err, out2)
	}
	if bob.opened.Load() != 2 {
		t.Fatalf("%d logins, want the first and one step-up", bob.opened.Load())
	}
}

func TestConnectionsShareOneLogin(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	alice := &person{user: "alice"}
	l, out := newLogin(t.TempDir(), login.Settings{}, alice)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := call(t, l, server, "whoami", nil); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("%v\n%s", err, out)
	}
	if n := alice.opened.Load(); n != 1 {
		t.Fatalf("8 connections opened the browser %d times, want once", n)
	}
}

func TestPastedAddress(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	in, paste := io.Pipe()
	lines := make(chan string, 16)
	l := &login.Login{Settings: login.Settings{NoBrowser: true}, Cache: &login.Cache{Dir: t.TempDir()}, In: in, ErrOut: lineWriter(lines)}
	l.Open = func(context.Context, string) error {
		t.Error("a browser was opened with --no-browser")
		return nil
	}
	// The person opens the address elsewhere, signs in, and pastes the
	// address the browser ended on (which did not load there).
	go func() {
		for line := range lines {
			address, ok := strings.CutPrefix(line, "  ")
			if !ok {
				continue
			}
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := noFollow.Get(address + "&user=alice")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			fmt.Fprintln(paste, resp.Header.Get("Location"))
			return
		}
	}()
	got, err := call(t, l, server, "whoami", nil)
	if err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// lineWriter sends each line written to it.
func lineWriter(lines chan<- string) io.Writer {
	r, w := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return w
}

// With --no-browser and the input at its end (a script, a job in the
// background), there is nothing to paste, but the loopback address still
// listens: a browser on the same machine that the person opened the
// address in completes the login. The end of the input is said once.
func TestNoBrowserInputEndedWaitsForTheBrowser(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	lines := make(chan string, 16)
	l := &login.Login{Settings: login.Settings{NoBrowser: true}, Cache: &login.Cache{Dir: t.TempDir()}, In: strings.NewReader(""), ErrOut: lineWriter(lines)}
	l.Open = func(context.Context, string) error {
		t.Error("a browser was opened with --no-browser")
		return nil
	}
	said := make(chan []string, 1)
	go func() {
		var seen []string
		address := ""
		for line := range lines {
			seen = append(seen, line)
			if a, ok := strings.CutPrefix(line, "  "); ok {
				address = a
			}
			if address != "" && strings.Contains(line, "the input ended before an address was pasted: still waiting for the browser") {
				// The person's browser signs in and follows the redirect
				// back to the loopback address.
				resp, err := http.Get(address + "&user=alice")
				if err != nil {
					t.Error(err)
				} else {
					resp.Body.Close()
				}
				said <- seen
				return
			}
		}
	}()
	got, err := call(t, l, server, "whoami", nil)
	if err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("got %q, %v", got, err)
	}
	select {
	case <-said:
	default:
		t.Error("the end of the input was not told of")
	}
}

func TestPastedAddressThatIsNotOne(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	l := &login.Login{Settings: login.Settings{NoBrowser: true}, Cache: &login.Cache{Dir: t.TempDir()},
		In: strings.NewReader("I clicked it\n"), ErrOut: io.Discard}
	_, err := call(t, l, server, "whoami", nil)
	if err == nil || !strings.Contains(err.Error(), "carries no code=") {
		t.Fatalf("got %v, want the pasted line refused", err)
	}
}

func TestClientCredentials(t *testing.T) {
	server, _ := servers(t, authserver.Options{Clients: map[string]string{"robot": "s3cret"}})
	dir := t.TempDir()
	l, out := newLogin(dir, login.Settings{ClientCredentials: true, ClientID: "robot", ClientSecret: "s3cret"}, nil)
	l.Open = func(context.Context, string) error {
		t.Error("a machine login opened a browser")
		return nil
	}
	if got, err := call(t, l, server, "whoami", nil); err != nil || got != "client:robot (scopes: mcp)" {
		t.Fatalf("got %q, %v\n%s", got, err, out)
	}
	e, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if e == nil || e.Grant != login.GrantClientCredentials || e.ClientSecret != "" {
		t.Fatalf("cached %+v: want a client credentials login without the secret", e)
	}
	l2, _ := newLogin(t.TempDir(), login.Settings{ClientCredentials: true, ClientID: "robot", ClientSecret: "wrong"}, nil)
	if _, err := call(t, l2, server, "whoami", nil); err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("a wrong secret: %v", err)
	}
}

func TestOnlyCachedLoginsForCompletion(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	alice := &person{user: "alice"}
	l, _ := newLogin(t.TempDir(), login.Settings{CachedOnly: true}, alice)
	_, err := call(t, l, server, "whoami", nil)
	if err == nil || !strings.Contains(err.Error(), "run mcp-tester auth login first") || alice.opened.Load() != 0 {
		t.Fatalf("got %v with %d browser openings", err, alice.opened.Load())
	}
}

func TestSettingsThatCannotWork(t *testing.T) {
	for _, c := range []struct {
		s    login.Settings
		want string
	}{
		{login.Settings{ClientSecret: "x"}, "needs its client id"},
		{login.Settings{ClientCredentials: true}, "needs Settings.ClientID"},
		{login.Settings{ClientCredentials: true, ClientID: "a"}, "needs a client secret"},
		{login.Settings{ClientKeyFile: "k.pem"}, "add Settings.ClientCredentials"},
		{login.Settings{ClientMetadataURL: "http://example.com/c.json"}, "https URL"},
		{login.Settings{ClientMetadataURL: "https://example.com/"}, "with a path"},
		{login.Settings{RedirectURL: "http://example.com:8000/cb"}, "Settings.RedirectURL"},
		{login.Settings{Identity: "../etc"}, "identity"},
		{login.Settings{Scopes: []string{"a b"}}, "Settings.Scopes \"a b\": one scope each"},
		{login.Settings{IDTokenFile: "t"}, "needs Settings.IdPIssuer"},
		{login.Settings{AssertionFile: "a", ClientCredentials: true}, "a login of its own"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.s, err, c.want)
		}
	}
	if err := (&login.Settings{RedirectURL: "http://127.0.0.1:8976/callback", Scopes: []string{"mcp"}}).Validate(); err != nil {
		t.Errorf("good settings refused: %v", err)
	}
}

// The login's errors word its settings as the caller names them
// (Settings.Name), and as the fields of Settings when it names none.
func TestSettingsNamedInTheCallersTerms(t *testing.T) {
	flag := func(s login.Setting) string {
		if s == login.SettingClientKeyFile {
			return "--client-key"
		}
		return ""
	}
	s := login.Settings{ClientKeyFile: "k.pem", Name: flag}
	err := s.Validate()
	if err == nil || err.Error() != "--client-key signs client credentials: add Settings.ClientCredentials" {
		t.Errorf("got %v", err)
	}
	if got := login.SettingIdPIssuer.String(); got != "Settings.IdPIssuer" {
		t.Errorf("String() = %q", got)
	}
}

// A forged request to the loopback address (another program on the
// machine guessing the port, with a state of its own) is answered with an
// error page and ignored: the person's real return still completes the
// login.
func TestForgedCallbackIsIgnored(t *testing.T) {
	server, _ := servers(t, authserver.Options{})
	alice := &person{user: "alice"}
	forged := make(chan string, 1)
	open := func(ctx context.Context, address string) error {
		u, _ := url.Parse(address)
		redirect := u.Query().Get("redirect_uri")
		resp, err := http.Get(redirect + "?code=stolen&state=forged")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		forged <- fmt.Sprintf("%d %s", resp.StatusCode, b)
		return alice.open(ctx, address)
	}
	l, out := newLogin(t.TempDir(), login.Settings{}, nil)
	l.Open = open
	got, err := call(t, l, server, "whoami", nil)
	if err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("got %q, %v\n%s", got, err, out)
	}
	if f := <-forged; !strings.HasPrefix(f, "400 ") || !strings.Contains(f, "Not this login") {
		t.Errorf("the forged request was answered %s", f)
	}
	if !strings.Contains(out.String(), "ignored a request to http://127.0.0.1:") {
		t.Errorf("the login did not say it ignored one:\n%s", out)
	}
}

// dripping serves an MCP endpoint that asks for a login and protected
// resource metadata that never finishes arriving: one byte, then nothing
// until the client leaves.
func dripping(t *testing.T) string {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("{"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// A login ends within the time its caller has left (the command's
// --timeout), discovery that never finishes included; with a limit of its
// own (--login-timeout) it ends within that one. The caller's time is ten
// seconds: the login must have begun (the first request refused) before it
// runs out, which took more than the 1.5 s it once was on a busy machine.
func TestLoginEndsInTime(t *testing.T) {
	server := dripping(t)
	for _, c := range []struct {
		s        login.Settings
		deadline time.Duration
		want     string
	}{
		{login.Settings{}, 10 * time.Second, "the command had left (the request's time limit; Settings.Timeout gives a login a limit of its own)"},
		{login.Settings{Timeout: 300 * time.Millisecond}, 20 * time.Second, "the login did not end within 300ms (Settings.Timeout gives more time)"},
	} {
		l, out := newLogin(t.TempDir(), c.s, &person{user: "alice"})
		ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
		conn, err := (&target.Target{URL: server, Login: l}).Open("")
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "login-test", Version: "1"}, nil)
		_, err = client.Connect(ctx, conn.Transport, nil)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) || login.AsError(err) == nil {
			t.Errorf("%+v: %v, want a login error saying %q\n%s", c.s, err, c.want, out)
		}
	}
}

package ui

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guarded is a Server whose handler accepts the Host 127.0.0.1:8080.
func guarded(t *testing.T) (*Server, http.Handler) {
	t.Helper()
	s, err := New(Options{Token: "secret-token"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetListener(fakeAddr("127.0.0.1:8080"), "127.0.0.1:8080")
	return s, s.Handler()
}

type fakeAddr string

func (a fakeAddr) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (a fakeAddr) Close() error              { return nil }
func (a fakeAddr) Addr() net.Addr            { return addr(a) }

type addr string

func (a addr) Network() string { return "tcp" }
func (a addr) String() string  { return string(a) }

func TestGuards(t *testing.T) {
	_, h := guarded(t)
	for _, tc := range []struct {
		name, method, target, host, origin, cookie string
		want                                       int
	}{
		{"the address", "GET", "/secret-token/", "127.0.0.1:8080", "", "", http.StatusOK},
		{"the address without its last slash", "GET", "/secret-token", "127.0.0.1:8080", "", "", http.StatusSeeOther},
		{"a page", "GET", "/secret-token/log", "127.0.0.1:8080", "", "", http.StatusOK},
		{"a wrong token", "GET", "/secret-tokem/", "127.0.0.1:8080", "", "", http.StatusUnauthorized},
		{"the token longer", "GET", "/secret-token2/", "127.0.0.1:8080", "", "", http.StatusUnauthorized},
		{"the token later in the path", "GET", "/log/secret-token/", "127.0.0.1:8080", "", "", http.StatusUnauthorized},
		{"no token", "GET", "/", "127.0.0.1:8080", "", "", http.StatusUnauthorized},
		{"the token in the query", "GET", "/?token=secret-token", "127.0.0.1:8080", "", "", http.StatusUnauthorized},
		// The cookie the page set before it went by its address: it
		// grants nothing, so what another port of the host is sent of
		// the page's cookies cannot reach it.
		{"a cookie with the token", "GET", "/", "127.0.0.1:8080", "", "mcp_tester_ui_8080=secret-token", http.StatusUnauthorized},
		{"a cookie with the token, a command", "POST", "/connect", "127.0.0.1:8080", "http://127.0.0.1:8080", "mcp_tester_ui_8080=secret-token", http.StatusUnauthorized},
		{"localhost", "GET", "/secret-token/", "localhost:8080", "", "", http.StatusOK},
		{"another host", "GET", "/secret-token/", "rebound.example:8080", "", "", http.StatusMisdirectedRequest},
		{"another port", "GET", "/secret-token/", "127.0.0.1:9090", "", "", http.StatusMisdirectedRequest},
		{"a post from the page", "POST", "/secret-token/disconnect", "127.0.0.1:8080", "http://127.0.0.1:8080", "", http.StatusSeeOther},
		{"a post from elsewhere", "POST", "/secret-token/disconnect", "127.0.0.1:8080", "http://evil.example", "", http.StatusForbidden},
		{"a post from another port", "POST", "/secret-token/disconnect", "127.0.0.1:8080", "http://127.0.0.1:9090", "", http.StatusForbidden},
		{"a post with Origin null", "POST", "/secret-token/disconnect", "127.0.0.1:8080", "null", "", http.StatusForbidden},
		{"a post without Origin", "POST", "/secret-token/disconnect", "127.0.0.1:8080", "", "", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.target, nil)
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.cookie != "" {
				req.Header.Set("Cookie", tc.cookie)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("%s %s: %d; want %d (%s)", tc.method, tc.target, rec.Code, tc.want, rec.Body.String())
			}
			if csp := rec.Header().Get("Content-Security-Policy"); csp != cspValue {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if c := rec.Header().Get("Set-Cookie"); c != "" {
				t.Errorf("the page sets a cookie: %s", c)
			}
			if tc.want == http.StatusSeeOther && !strings.HasPrefix(rec.Header().Get("Location"), "/secret-token/") {
				t.Errorf("the redirect leaves the page's address: %s", rec.Header().Get("Location"))
			}
		})
	}
}

// Every link, form and style sheet of a page is at the page's address
// (its token first), so that each keeps working with no cookie.
func TestLinksCarryTheToken(t *testing.T) {
	s, h := guarded(t)
	s.calls = append(s.calls, &call{ID: 1, Kind: "tool", Name: "deploy", Started: testNow, Done: true, Ended: testNow})
	s.runs = append(s.runs, &run{ID: 1, Args: []string{"audit"}, Done: true, HTML: "r.html"})
	for _, path := range []string{"/", "/calls/1", "/log", "/runs/1"} {
		body := get(t, s, h, path).Body.String()
		n := 0
		for _, m := range regexp.MustCompile(`(?:href|action)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
			n++
			if !strings.HasPrefix(m[1], "/secret-token/") {
				t.Errorf("%s: %s is not at the page's address", path, m[0])
			}
		}
		if n == 0 {
			t.Errorf("%s has no link:\n%s", path, body)
		}
	}
}

// A request to another Host is told which Host it named, escaped, and
// the ones the page answers.
func TestWrongHostSaysWhich(t *testing.T) {
	_, h := guarded(t)
	req := httptest.NewRequest("GET", "/secret-token/", nil)
	req.Host = "rebound.example:8080\x1b[31m"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	want := `mcp-tester ui: Host "rebound.example:8080\x1b[31m" is not the page's: it answers 127.0.0.1:8080, [::1]:8080, localhost:8080 (DNS rebinding?)` + "\n"
	if rec.Code != http.StatusMisdirectedRequest || rec.Body.String() != want {
		t.Errorf("%d %q; want 421 %q", rec.Code, rec.Body.String(), want)
	}
}

func TestUnspecified(t *testing.T) {
	for addr, want := range map[string]bool{"0.0.0.0:80": true, "[::]:80": true, ":80": true, ":0": true, "127.0.0.1:0": false, "[::1]:80": false, "192.0.2.2:80": false, "localhost:80": false, "nohost": false} {
		if got := Unspecified(addr); got != want {
			t.Errorf("Unspecified(%s) = %v", addr, got)
		}
	}
}

const cspValue = csp

// The message log keeps the newest messages and counts those it let go.
func TestMessageLogIsCapped(t *testing.T) {
	l := newMessageLog(3)
	for i := 0; i < 10; i++ {
		l.add(message{Method: "m"})
	}
	if len(l.list) != 3 || l.dropped != 7 || l.list[0].Seq != 8 || l.list[2].Seq != 10 {
		t.Errorf("kept %d (first %d, last %d), dropped %d; want the last 3 and 7 dropped", len(l.list), l.list[0].Seq, l.list[2].Seq, l.dropped)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, "[::1]:80": true, "localhost:1": true, "0.0.0.0:80": false, "192.168.1.2:80": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%s) = %v", addr, got)
		}
	}
}

// The templates parse, and a call's details are let go once it is old.
func TestTemplatesAndForget(t *testing.T) {
	if len(pages()) == 0 {
		t.Fatal("no templates")
	}
	c := &call{Done: true, Result: "r", Texts: []string{"x"}}
	c.forget()
	if !c.Forgotten || c.Result != "" || c.Texts != nil {
		t.Errorf("forget kept %+v", c)
	}
	running := &call{Result: "r"}
	running.forget()
	if running.Forgotten {
		t.Error("a running call was forgotten")
	}
}

// Saving replaces a file that exists only when the person asks to, and a
// link is never followed.
func TestSaveKeepsFilesThatExist(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "profile")
	if err := os.WriteFile(kept, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkSavePath(kept, false); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("an existing file without replace: %v", err)
	}
	if err := checkSavePath(kept, true); err != nil {
		t.Errorf("an existing file with replace: %v", err)
	}
	if err := checkSavePath(filepath.Join(dir, "new.mcp"), false); err != nil {
		t.Errorf("a new file: %v", err)
	}
	if err := os.Symlink(kept, filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	if err := checkSavePath(filepath.Join(dir, "link"), false); err == nil {
		t.Error("a link to an existing file was taken for a new file")
	}
}

// What the page lists of saved files and runs keeps the newest.
func TestKeepNewest(t *testing.T) {
	list := []int{}
	for i := 1; i <= 250; i++ {
		list = keepNewest(append(list, i), 100)
	}
	if len(list) != 100 || list[0] != 151 || list[99] != 250 {
		t.Errorf("kept %d: %v…%v", len(list), list[0], list[len(list)-1])
	}
}

// A server that lists a prompt's name twice: the call takes the prompt
// whose page the person filled in (the first), not another of the name.
func TestPromptCalledIsThePromptShown(t *testing.T) {
	s, err := New(Options{Token: "secret-token"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	shown := &mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}
	other := &mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "whom", Required: true}}}
	s.conn = &conn{}
	s.conn.Prompts = []*mcp.Prompt{shown, other}
	if got := s.promptToCall("prompt", "greet"); got != shown {
		t.Errorf("the call would take %+v, the page shows %+v", got, shown)
	}
	if got := s.promptToCall("tool", "greet"); got != nil {
		t.Errorf("a tool call took the prompt %+v", got)
	}
}

// Saving a script shows what the script command warned of (a call still
// waiting has no result in the recording, a question nobody answered),
// in the note and under the saved script, not only "Saved …".
func TestSaveScriptShowsItsWarnings(t *testing.T) {
	dir := t.TempDir()
	warnings := []string{
		"session-1.jsonl:17: tools/call trigger-url-elicitation has no result: the recording ends first",
		"session-1.jsonl:20: the question got no answer: the recording ends first",
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	dial := func() (mcp.Transport, func(), error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
	sessionOptions := func(Target) (session.Options, error) { return session.Options{Target: &target.Target{Dial: dial}}, nil }
	s, err := New(Options{Token: "secret-token", Dir: t.TempDir(), WorkDir: dir, SessionOptions: sessionOptions, Run: func(_ context.Context, args []string, _, errOut io.Writer) int {
		if err := os.WriteFile(args[len(args)-1], []byte("call_tool x\n"), 0o600); err != nil {
			t.Error(err)
		}
		for _, w := range warnings {
			fmt.Fprintf(errOut, "warning: %s\n", w)
		}
		fmt.Fprintf(errOut, "%s: 1 call from session-1.jsonl; run it: mcp-tester test -s %[1]s\n", args[len(args)-1])
		return 0
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetListener(fakeAddr("127.0.0.1:8080"), "127.0.0.1:8080")
	if err := s.Connect(context.Background(), Target{Command: "s"}); err != nil {
		t.Fatal(err)
	}
	do := func(method, target string, body io.Reader) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/secret-token"+target, body)
		req.Host = "127.0.0.1:8080"
		if method == "POST" {
			req.Header.Set("Origin", "http://127.0.0.1:8080")
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec
	}
	if rec := do("POST", "/save", strings.NewReader("kind=script&path=s.mcp")); rec.Code != http.StatusSeeOther {
		t.Fatalf("save: %d %s", rec.Code, rec.Body)
	}
	page := html.UnescapeString(do("GET", "/", nil).Body.String())
	want := "Saved " + filepath.Join(dir, "s.mcp") + ", with 2 warnings: the script does not replay everything as the session went (see under “Saved script”)."
	if !strings.Contains(page, want) {
		t.Errorf("the page does not say %q:\n%s", want, page)
	}
	for _, w := range warnings {
		if !strings.Contains(page, "<li>"+w+"</li>") {
			t.Errorf("the page does not show the warning %q:\n%s", w, page)
		}
	}
	if strings.Contains(page, "run it:") {
		t.Errorf("the page shows the summary line as a warning:\n%s", page)
	}
}

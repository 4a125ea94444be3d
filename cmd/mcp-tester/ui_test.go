package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/server/listen"
	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/chromedp/chromedp"
)

// The tests in this file start `mcp-tester ui` as a person would, open the
// page it prints in headless Chromium, and drive it by the accessible
// names of its controls: the labels of the fields, the text of the
// buttons and links.

// uiPage is a running `mcp-tester ui` and the browser tab showing it.
type uiPage struct {
	t    *testing.T
	b    *browsertest.Browser
	url  string // with the token
	base string // the page's address without its last "/": scheme, host and the token
	dir  string // the folder ui runs in
	from int    // the browser's requests before this page's
}

// startUI runs mcp-tester ui with args in a new folder and returns the
// address it prints.
func startUI(t *testing.T, bin string, args ...string) (url, dir string) {
	t.Helper()
	return startUIEnv(t, bin, nil, args...)
}

// startUIEnv is startUI with more environment variables.
func startUIEnv(t *testing.T, bin string, env []string, args ...string) (url, dir string) {
	t.Helper()
	dir = t.TempDir()
	cmd := exec.Command(filepath.Join(bin, "mcp-tester"), append([]string{"ui", "--no-open"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("mcp-tester ui printed no address: %v\n%s", err, errOut.String())
	}
	const prefix = "mcp-tester ui: open "
	if !strings.HasPrefix(line, prefix+"http://") {
		t.Fatalf("mcp-tester ui printed %q; want %q and the address with its token", line, prefix)
	}
	return strings.TrimSpace(strings.TrimPrefix(line, prefix)), dir
}

func openUI(t *testing.T, b *browsertest.Browser, url, dir string) *uiPage {
	t.Helper()
	p := &uiPage{t: t, b: b, url: url, base: strings.TrimSuffix(url, "/"), dir: dir, from: len(b.Requests())}
	b.Do(chromedp.EmulateViewport(browsertest.ViewportWidth, browsertest.ViewportHeight), chromedp.Navigate(url), chromedp.WaitReady("body"))
	return p
}

// finders are the page-side helpers that find a control by its accessible
// name: a button or link by its text or aria-label, a field by its label.
const finders = `
function uiName(el) { return (el.getAttribute('aria-label') || el.textContent).trim().replace(/\s+/g, ' '); }
function uiControl(name) {
	for (const el of document.querySelectorAll('button, a')) if (uiName(el) === name) return el;
	return null;
}
function uiField(label) {
	for (const l of document.querySelectorAll('label')) {
		const text = l.textContent.trim().replace(/\s+/g, ' ');
		if (text === label || text === label + ' (required)') return l.control;
	}
	return null;
}
`

// eval evaluates expression with the finders.
func evalUI[T any](p *uiPage, expression string) T {
	p.t.Helper()
	return browsertest.Eval[T](p.b, finders+expression)
}

// click activates the button or link named name and waits for the next
// page to load.
func (p *uiPage) click(name string) {
	p.t.Helper()
	js, _ := json.Marshal(name)
	if ok := evalUI[bool](p, fmt.Sprintf(`(() => { const el = uiControl(%s); if (!el) return false; window.uiStale = true; el.click(); return true; })()`, js)); !ok {
		p.t.Fatalf("no button or link named %q on the page:\n%s", name, p.text())
	}
	p.waitLoaded()
}

// waitLoaded waits until the page the last click led to has loaded.
func (p *uiPage) waitLoaded() {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(p.b.Context(), 10*time.Second)
		fresh, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.uiStale !== true && document.readyState === 'complete'`))
		cancel()
		if err == nil && fresh {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatal("the next page did not load")
}

// fill types value into the field labelled label.
func (p *uiPage) fill(label, value string) {
	p.t.Helper()
	l, _ := json.Marshal(label)
	v, _ := json.Marshal(value)
	if ok := evalUI[bool](p, fmt.Sprintf(`(() => { const f = uiField(%s); if (!f) return false; f.value = %s; return true; })()`, l, v)); !ok {
		p.t.Fatalf("no field labelled %q on the page:\n%s", label, p.text())
	}
}

// choose picks the option shown as option in the choice labelled label.
func (p *uiPage) choose(label, option string) {
	p.t.Helper()
	l, _ := json.Marshal(label)
	o, _ := json.Marshal(option)
	if ok := evalUI[bool](p, fmt.Sprintf(`(() => { const f = uiField(%s); if (!f) return false; for (const opt of f.options) if (opt.textContent.trim() === %s) { f.value = opt.value; return true; } return false; })()`, l, o)); !ok {
		p.t.Fatalf("no choice %q in a field labelled %q:\n%s", option, label, p.text())
	}
}

// check ticks the checkbox labelled label.
func (p *uiPage) check(label string) {
	p.t.Helper()
	l, _ := json.Marshal(label)
	if ok := evalUI[bool](p, fmt.Sprintf(`(() => { const f = uiField(%s); if (!f) return false; f.checked = true; return true; })()`, l)); !ok {
		p.t.Fatalf("no checkbox labelled %q:\n%s", label, p.text())
	}
}

// text is what the page shows.
func (p *uiPage) text() string {
	p.t.Helper()
	return browsertest.Eval[string](p.b, `document.body.innerText`)
}

// see waits until the page shows want (it reloads itself while a call
// runs) and fails the test when it never does.
func (p *uiPage) see(want string) {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(p.b.Context(), 10*time.Second)
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === 'complete' ? document.body.innerText : ''`))
		cancel()
		if err == nil && strings.Contains(text, want) {
			return
		}
		if err == nil && strings.HasPrefix(text, "mcp-tester ui: ") {
			p.t.Fatalf("the page was refused while waiting for %q: %s", want, text)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the page never showed %q; it shows:\n%s", want, text)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOwnRequests fails the test when the tab requested anything but the
// page's own address (its token first).
//
// A page this browser showed before (a subtest's) may still make a request
// or two while the next one loads (it reloads itself while a task runs; on
// a loaded machine its last reload can come after the next page's start):
// a request to the address of such a page, already checked by its own
// test, is that page's, not this one's.
func (p *uiPage) checkOwnRequests() {
	p.t.Helper()
	all := p.b.Requests()
	earlier := map[string]bool{}
	for _, r := range all[:p.from] {
		if o := origin(r); o != "" {
			earlier[o] = true
		}
	}
	for _, r := range all[p.from:] {
		// The browser asks for an icon at the root by itself (refused:
		// it carries no token).
		if r == origin(p.base)+"/favicon.ico" {
			continue
		}
		if !strings.HasPrefix(r, p.base+"/") && !earlier[origin(r)] {
			p.t.Errorf("the page requested %s, not on its own address %s", r, p.base)
		}
	}
}

// origin is the scheme, host and port of the URL u ("" when it has none).
func origin(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[:i+3+j]
		}
		return u
	}
	return ""
}

// deployerHTTP starts the deployer over HTTP and returns its URL.
func deployerHTTP(t *testing.T, bin string) string {
	t.Helper()
	addr := freeAddr(t)
	startServer(t, addr, filepath.Join(bin, "deployer"), "-http", addr)
	return "http://" + addr + "/mcp"
}

// freeAddr is a free loopback address.
func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := listen.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// startServer runs a server until the test ends and waits until it
// listens on addr.
func startServer(t *testing.T, addr string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DEPLOY_STATE_KEY=0123456789abcdef0123456789abcdef")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i > 1200 {
			t.Fatalf("%s does not listen on %s", name, addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A person answers the deployer's questions in the page over stdio and
// HTTP, in both protocol eras: accepts once, declines once, reads each
// round, saves the session as a script, runs it, and sees it pass.
func TestUIDeployer(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer")
	browsertest.Require(t)
	httpURL := deployerHTTP(t, bin)
	b := browsers.New(t)
	for _, tc := range []struct {
		name, protocol string
		http           bool
		via            string
	}{
		{"stdio-2026", "2026-07-28", false, "input_required"},
		{"http-2025", "2025-11-25", true, "elicitation/create"},
		{"http-2026", "2026-07-28", true, "input_required"},
		{"stdio-2025", "2025-11-25", false, "elicitation/create"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := []string{"-c", filepath.Join(bin, "deployer")}
			if tc.http {
				target = []string{"-u", httpURL}
			}
			url, dir := startUI(t, bin, append(target, "--protocol", tc.protocol)...)
			p := openUI(t, b, url, dir)
			p.see("deployer")
			p.see(tc.protocol)

			p.click("Tool deploy")
			p.fill("service (required)", "auth-service")
			p.click("Call deploy")
			p.see("Roll out auth-service version 2.4.1")
			p.choose("Target environment (required)", "Production")
			p.check("I have reviewed the changes (required)")
			if tc.name == "stdio-2026" {
				b.Screenshot("ui-question")
			}
			p.click("Accept")
			p.see("Rolling out auth-service 2.4.1 to production.")
			p.see("Answered: accept")
			p.see(tc.via)
			if tc.via == "input_required" {
				p.see("went back untouched")
			}
			if tc.name == "stdio-2026" {
				b.Screenshot("ui-rounds")
			}

			p.click("Back to the server")
			p.click("Tool deploy")
			p.fill("service (required)", "auth-service")
			p.click("Call deploy")
			p.see("Roll out auth-service version 2.4.1")
			p.click("Decline")
			p.see("Answered: decline")
			p.see("not started")

			p.click("Back to the server")
			p.click("Save script")
			p.see("Saved ")
			script, err := os.ReadFile(filepath.Join(dir, "session.mcp"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"call_tool deploy", "elicit_response", "decline"} {
				if !strings.Contains(string(script), want) {
					t.Errorf("the saved script has no %q:\n%s", want, script)
				}
			}
			p.click("Run script")
			p.see("Passed (exit 0).")
			if tc.name == "stdio-2026" {
				b.Screenshot("ui-script-passed")
				// A tool the server runs as a task asks half-way.
				p.click("Back to the server")
				p.click("Tool rollout")
				p.fill("service", "auth-service")
				p.fill("version", "2.4.1")
				p.click("Call rollout")
				p.see("continue?")
				p.choose("How should the rollout go on?", "Continue")
				p.click("Accept")
				p.see("Rollout of auth-service 2.4.1 complete")
				p.see("Round 1 · task")

				// inspect's HTML report, run from the page.
				p.click("Back to the server")
				p.click("Run inspect")
				p.see("(exit ")
				p.click("Open the HTML report")
				p.see("deployer")
				if n := browsertest.Eval[int](b, `document.querySelectorAll("script").length`); n != 0 {
					t.Errorf("the report has %d scripts", n)
				}
			}
			p.checkOwnRequests()
		})
	}
}

// A request without the token, with another Host or from another Origin
// is refused; the page's address (the token first in its path) is the
// only way in, and it sets no cookie.
func TestUIRefusesStrangers(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/deployer")
	page, _ := startUI(t, bin)
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://" + u.Host
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, header map[string]string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, origin+path, strings.NewReader("command=touch+pwned"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	token := strings.Trim(u.Path, "/")
	if u.RawQuery != "" || token == "" || strings.Contains(token, "/") {
		t.Fatalf("the page's address %s: want the token as its path", page)
	}
	if res := do("GET", u.Path, nil); res.StatusCode != http.StatusOK || len(res.Cookies()) != 0 {
		t.Fatalf("the page's address: %s, cookies %v; want 200 and no cookie", res.Status, res.Cookies())
	}
	at := "/" + token
	for _, tc := range []struct {
		name   string
		method string
		path   string
		header map[string]string
		want   int
	}{
		{"the page", "GET", at + "/log", nil, http.StatusOK},
		{"no token", "GET", "/", nil, http.StatusUnauthorized},
		{"no token, a command", "POST", "/connect", map[string]string{"Origin": origin}, http.StatusUnauthorized},
		{"the token in a cookie", "POST", "/connect", map[string]string{"Origin": origin, "Cookie": "mcp_tester_ui_" + u.Port() + "=" + token}, http.StatusUnauthorized},
		{"wrong token", "GET", "/nope/", nil, http.StatusUnauthorized},
		{"another Host", "GET", at + "/", map[string]string{"Host": "evil.example:80"}, http.StatusMisdirectedRequest},
		{"another Origin", "POST", at + "/connect", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"another port's Origin", "POST", at + "/connect", map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"no Origin on a POST", "POST", at + "/connect", nil, http.StatusForbidden},
		{"cross-site", "POST", at + "/connect", map[string]string{"Origin": origin, "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same-site (another port)", "POST", at + "/connect", map[string]string{"Origin": origin, "Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
	} {
		res := do(tc.method, tc.path, tc.header)
		if res.StatusCode != tc.want {
			t.Errorf("%s: %s %s: %s; want %d", tc.name, tc.method, tc.path, res.Status, tc.want)
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", tc.name, csp)
		}
	}
}

// A listener on another port of the same host, which the browser visits
// after the page (typed in, and followed from the page), gets nothing
// that reaches the page: cookies are not kept apart by port, so the page
// sets none, and its address goes in no Referer to another origin.
// Everything the listener got, sent back to the page, reads no page and
// starts no command.
func TestUIAnotherPortGetsNothing(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester")
	browsertest.Require(t)
	page, dir := startUI(t, bin)
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://" + u.Host
	var mu sync.Mutex
	var got []*http.Request
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>another port</title><p>another port</p>")
	}))
	t.Cleanup(other.Close)
	otherURL := strings.Replace(other.URL, "127.0.0.1", u.Hostname(), 1)

	b := browsers.New(t)
	p := openUI(t, b, page, dir)
	p.see("Connect")
	p.click("Messages")
	p.see("Messages")
	// Typed in: the browser sends whatever it keeps for the host.
	b.Do(chromedp.Navigate(otherURL+"/typed"), chromedp.WaitReady("body"))
	// Followed from the page: a link the page showed (a server's URL
	// question, say) sends what the page's Referrer-Policy lets it.
	b.Do(chromedp.Navigate(page), chromedp.WaitReady("body"))
	p.see("Connect")
	js, _ := json.Marshal(otherURL + "/followed")
	browsertest.Eval[bool](b, `(() => { const a = document.createElement("a"); a.href = `+string(js)+`; document.body.append(a); setTimeout(() => a.click(), 0); return true; })()`)
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		var paths []string
		for _, r := range got {
			paths = append(paths, r.URL.Path)
		}
		mu.Unlock()
		if slices.Contains(paths, "/typed") && slices.Contains(paths, "/followed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser asked the other port for %q; want /typed and /followed", paths)
		}
		time.Sleep(50 * time.Millisecond)
	}

	secret := strings.Trim(u.Path, "/") + u.Query().Get("token")
	mu.Lock()
	defer mu.Unlock()
	for _, r := range got {
		seen := r.Method + " " + r.URL.String()
		for k, vs := range r.Header {
			seen += "\n" + k + ": " + strings.Join(vs, ", ")
		}
		if strings.Contains(seen, secret) || r.Header.Get("Cookie") != "" {
			t.Errorf("the other port got the page's token or a cookie:\n%s", seen)
		}
		// What the other port got, sent to the page as its own: a page,
		// and a command.
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, try := range []struct{ method, path, body string }{
			{"GET", "/", ""},
			{"GET", "/log", ""},
			{"POST", "/connect", "command=touch+" + url.QueryEscape(filepath.Join(dir, "pwned"))},
		} {
			req, _ := http.NewRequest(try.method, origin+try.path, strings.NewReader(try.body))
			for k, vs := range r.Header {
				switch k {
				case "Host", "Content-Length", "Connection", "Accept-Encoding":
				default:
					req.Header[k] = vs
				}
			}
			req.Header.Set("Origin", origin)
			req.Header.Del("Sec-Fetch-Site")
			if try.method == "POST" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			res, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s with what the other port got (%s): %s; want 401", try.method, try.path, r.URL, res.Status)
			}
		}
	}
	// (POST /connect answers once the command it starts has ended or answered.)
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the other port started a command through the page")
	}
}

// A hostile server's name, descriptions, questions and results, full of
// markup, script and control characters, are shown as text: nothing runs,
// no element is forged, and the page loads nothing from elsewhere.
func TestUIHostileServer(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/hostile")
	browsertest.Require(t)
	url, dir := startUI(t, bin, "-c", filepath.Join(bin, "hostile"))
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	harmless := func(where string) {
		t.Helper()
		if title := browsertest.Eval[string](b, `document.title`); strings.Contains(title, "pwned") {
			t.Errorf("%s: the server's script ran (title %q)", where, title)
		}
		if n := browsertest.Eval[int](b, `document.querySelectorAll("script, img, iframe, object, embed, [onerror], [src]").length`); n != 0 {
			t.Errorf("%s: the page has %d elements that load or run something", where, n)
		}
		if !strings.Contains(browsertest.Eval[string](b, `document.body.textContent`), "<script>") {
			t.Errorf("%s: the server's markup is not shown as text:\n%s", where, p.text())
		}
	}
	p.see("hostile")
	harmless("the server")
	p.click("Tool ask")
	harmless("the tool")
	p.click("Call ask")
	p.see("The server asks")
	harmless("the question")
	b.Screenshot("ui-hostile-question")
	// Its two questions come in one round, shown together.
	p.checkIn("Answer to question 1", "Decline")
	p.checkIn("Answer to question 2", "Decline")
	p.click("Send all 2 answers")
	p.see("Result")
	harmless("the result")
	p.click("Messages")
	harmless("the messages")
	p.checkOwnRequests()
}

// A URL question shows the link's domain plainly and opens nothing until
// the person says so: declined once, then opened (by the launcher
// MCP_TESTER_BROWSER names, which here writes the link down).
func TestUIURLQuestion(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/github-connect")
	browsertest.Require(t)
	addr, github := freeAddr(t), freeAddr(t)
	startServer(t, addr, filepath.Join(bin, "github-connect"), "-http", addr, "-fake-github", github, "-user", "alice:alice-mcp-token:alice-pw")
	opened := filepath.Join(t.TempDir(), "opened")
	launcher := filepath.Join(t.TempDir(), "launcher")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" > "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	url, dir := startUIEnv(t, bin, []string{"MCP_TESTER_BROWSER=" + launcher}, "-u", "http://"+addr+"/mcp", "-H", "Authorization: Bearer alice-mcp-token")
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	p.click("Tool create_issue")
	p.fill("repo", "octo-alice/hello")
	p.fill("title", "Hi")
	p.click("Call create_issue")
	p.see("This link goes to " + addr)
	b.Screenshot("ui-url-question")
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("the link was opened before the person consented")
	}
	p.click("Decline")
	p.see("you chose not to connect")

	p.click("Back to the server")
	p.click("Tool create_issue")
	p.fill("repo", "octo-alice/hello")
	p.fill("title", "Hi")
	p.click("Call create_issue")
	p.see("This link goes to " + addr)
	p.click("Open " + addr + " and accept")
	p.see("Answered: accept")
	link, err := os.ReadFile(opened)
	if err != nil {
		t.Fatalf("the link was not opened: %v", err)
	}
	if !strings.HasPrefix(string(link), "http://"+addr+"/connect/github?") {
		t.Errorf("opened %q; want the server's connect link", link)
	}
	p.checkOwnRequests()
}

// A form question starts with the schema's defaults, and an answer out of
// the schema's bounds is refused in the page, saying what to fix, before
// anything is sent; the fixed answer then goes.
func TestUIFormChecks(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/askserver")
	browsertest.Require(t)
	url, dir := startUI(t, bin, "-c", filepath.Join(bin, "askserver"))
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	p.click("Tool defaults")
	p.click("Call defaults with JSON")
	p.see("Settings?")
	if v := evalUI[string](p, `uiField("replicas (required)").value`); v != "3" {
		t.Errorf("replicas starts as %q; want the default 3", v)
	}
	p.fill("replicas", "42")
	p.click("Accept")
	p.see("Fix these before sending")
	p.see("Settings?")
	b.Screenshot("ui-refused-answer")
	p.fill("replicas", "5")
	p.click("Accept")
	p.see("got accept")
	p.see(`"replicas":5`)
}

// Started with no server, the page connects to the one the person names;
// a request for a model reply (sampling) is answered in its reply box.
func TestUIConnectAndSample(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/handbook")
	browsertest.Require(t)
	url, dir := startUI(t, bin)
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	p.fill("Command (stdio server)", filepath.Join(bin, "handbook"))
	p.click("Connect")
	p.see("Connected to ")
	p.click("Tool summarize")
	p.fill("text", "A long text about deploys.")
	p.click("Call summarize")
	p.see("model reply")
	p.fill("Reply", "Deploys, briefly.")
	p.click("Send reply")
	p.see("Summary by mcp-tester: Deploys, briefly.")
	p.checkOwnRequests()
}

// checkIn ticks the checkbox or radio button labelled label inside the
// group (fieldset) whose legend is group.
func (p *uiPage) checkIn(group, label string) {
	p.t.Helper()
	p.setIn(group, label, "")
}

// chooseIn picks option in the choice labelled label inside the group
// (fieldset) whose legend is group.
func (p *uiPage) chooseIn(group, label, option string) {
	p.t.Helper()
	p.setIn(group, label, option)
}

func (p *uiPage) setIn(group, label, option string) {
	p.t.Helper()
	g, _ := json.Marshal(group)
	l, _ := json.Marshal(label)
	o, _ := json.Marshal(option)
	if ok := evalUI[bool](p, fmt.Sprintf(`(() => {
		const norm = s => s.trim().replace(/\s+/g, ' ');
		for (const fs of document.querySelectorAll('fieldset')) {
			const lg = fs.querySelector(':scope > legend');
			if (!lg || norm(lg.textContent) !== %s) continue;
			for (const l of fs.querySelectorAll('label')) {
				if (norm(l.textContent) !== %s) continue;
				const c = l.control;
				if (%s === '') { if (c.type !== 'checkbox' && c.type !== 'radio') return false; c.checked = true; return true; }
				for (const opt of c.options || []) if (norm(opt.textContent) === %s) { c.value = opt.value; return true; }
				return false;
			}
		}
		return false; })()`, g, l, o, o)); !ok {
		p.t.Fatalf("no control labelled %q (option %q) in a group %q:\n%s", label, option, group, p.text())
	}
}

// A round that asks several questions shows them all in one form, each
// answered on its own (accepted with its form, declined or cancelled),
// and the answers go back together in one request.
func TestUISeveralQuestionsInOneRound(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/askserver")
	browsertest.Require(t)
	url, dir := startUI(t, bin, "-c", filepath.Join(bin, "askserver"))
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	p.click("Tool pair")
	p.click("Call pair with JSON")
	p.see("The server asks 2 questions in round 1")
	text := p.text()
	if !strings.Contains(text, "Question A?") || !strings.Contains(text, "Question B?") {
		t.Fatalf("the page does not show both questions of the round:\n%s", text)
	}
	p.chooseIn("Question 1 (key a)", "OK?", "Yes")
	p.checkIn("Answer to question 1", "Accept")
	p.checkIn("Answer to question 2", "Decline")
	b.Screenshot("ui-several-questions")
	p.click("Send all 2 answers")
	p.see(`a=accept {"ok":true}; b=decline`)
	p.see("2 requests sent for this call")
	text = p.text()
	if strings.Count(text, "Round 1 ·") != 2 {
		t.Errorf("the timeline does not show both questions in round 1:\n%s", text)
	}
	p.checkOwnRequests()
}

// The roots written in the connect form are declared, shown on the
// server's page, and sent when the server asks for them, in both eras
// (an input_required round, a roots/list request).
func TestUIRoots(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/handbook")
	browsertest.Require(t)
	url, dir := startUI(t, bin)
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	for _, era := range []string{"2026-07-28 (input_required rounds)", "2025-11-25 (elicitation/create)"} {
		p.fill("Command (stdio server)", filepath.Join(bin, "handbook"))
		p.fill("Roots", "file:///work/repo=repo\nfile:///work/docs")
		p.choose("Protocol version", era)
		p.click("Connect")
		p.see("Connected to ")
		p.see("Roots declared")
		p.see("file:///work/repo=repo, file:///work/docs")
		p.click("Tool list_roots")
		p.click("Call list_roots with JSON")
		p.see("2 root(s): file:///work/repo (repo), file:///work/docs")
		p.see("Asked for the roots; answered with 2 roots: file:///work/repo (repo), file:///work/docs.")
		if era[:4] == "2026" {
			p.see("input_required")
		} else {
			p.see("roots/list")
		}
		p.click("Back to the server")
	}
	// With no roots written, none are declared and the server says so.
	p.fill("Roots", "")
	p.click("Connect")
	p.see("none (the page does not declare roots)")
	p.click("Tool list_roots")
	p.click("Call list_roots with JSON")
	p.see("list_roots needs the roots capability")
	p.checkOwnRequests()
}

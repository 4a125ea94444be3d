package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/testbin"
	"github.com/chromedp/chromedp"
)

// pages keeps the HTML of every page a test looked at, to check at the
// end that no secret is in any.
type pages struct {
	p    *uiPage
	seen []string
}

// keep adds the page the browser shows.
func (k *pages) keep() {
	k.p.t.Helper()
	k.seen = append(k.seen, browsertest.Eval[string](k.p.b, `document.documentElement.outerHTML`))
}

// rawViews opens the raw JSON of every message the Messages page lists
// (by the links' accessible names) and keeps what each shows.
func (k *pages) rawViews() int {
	p := k.p
	p.t.Helper()
	p.press("link", "Messages")
	k.keep()
	links := browsertest.Eval[[]string](p.b, `Array.from(document.querySelectorAll('a[href*="/log/"]'), a => a.href)`)
	for _, href := range links {
		p.b.Do(chromedp.Navigate(href), chromedp.WaitReady("body"))
		k.keep()
	}
	return len(links)
}

// noSecrets fails the test when any page kept, or text, holds a secret.
func (k *pages) noSecrets(secrets []string, texts ...string) {
	k.p.t.Helper()
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		for _, page := range append(k.seen, texts...) {
			if strings.Contains(page, s) {
				i := strings.Index(page, s)
				k.p.t.Errorf("the secret %q shows: …%s…", s, page[max(0, i-200):min(len(page), i+len(s)+50)])
				break
			}
		}
	}
}

// cachedTokens are the tokens in the login cache under config.
func cachedTokens(t *testing.T, config string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(config, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		b, _ := os.ReadFile(path)
		var e map[string]any
		if json.Unmarshal(b, &e) == nil {
			for k, v := range e {
				if s, ok := v.(string); ok && (k == "access_token" || k == "refresh_token" || k == "client_secret") && len(s) >= 8 {
					out = append(out, s)
				}
			}
		}
		return nil
	})
	return out
}

// The page connects to a server that requires OAuth and lists the steps
// of the login (discovery, registration, the browser, the token, and
// later a refresh), and no token of the login, not even one the server
// puts in a question's link, shows in any page, any raw message or the
// saved recording.
func TestUILoginStepsAndHiddenTokens(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./examples/protected", "./internal/testsupport/fixtures/fakebrowser")
	browsertest.Require(t)
	const password = "letmein-correct-horse"
	t.Setenv("PROTECTED_PASSWORD", password)
	addr := freeAddr(t)
	tokens := filepath.Join(t.TempDir(), "tokens")
	// Tokens live 2 seconds: the call made after they expired refreshes.
	startServer(t, addr, filepath.Join(bin, "protected"), "-addr", addr, "-tokens-file", tokens, "-leak-token", "-ttl", "2s")
	url, dir := startUIEnv(t, bin, []string{"MCP_TESTER_BROWSER=" + filepath.Join(bin, "fakebrowser"), "FAKEBROWSER_USER=alice", "FAKEBROWSER_PASSWORD=" + password},
		"-u", "http://"+addr+"/mcp")
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	k := &pages{p: p}
	p.see("OAuth login")
	for _, want := range []string{
		"challenge", "the server asks for a login",
		"discovery", "fetched the protected resource metadata", "fetched the authorization server metadata",
		"registration", "registered the client (dynamic client registration)",
		"authorization", "sent the browser to the authorization endpoint", "the browser came back with an authorization code (hidden)",
		"token", "traded the authorization code (hidden) for an access token",
		"logged in as identity default with scopes mcp",
	} {
		p.see(want)
	}
	// The token was issued before the page said so: it expires within 2 s
	// of now, however long a busy machine took to get here.
	loggedIn := time.Now()
	p.axNeed("list", "Login steps")
	b.Screenshot("ui-login-steps")
	k.keep()

	// After the token expired, the next call refreshes it first.
	time.Sleep(time.Until(loggedIn.Add(2500 * time.Millisecond)))
	p.press("link", "Tool whoami")
	p.press("button", "Call whoami with JSON")
	p.see("alice (scopes: mcp)")
	k.keep()
	p.press("link", "Back to the server")
	p.see("traded the refresh token (hidden) for a new access token")
	k.keep()

	// A question whose link carries the caller's token.
	p.press("link", "Tool leaky")
	p.press("button", "Call leaky with JSON")
	p.see("This link goes to")
	k.keep()
	p.press("button", "Decline")
	p.see("Answered: decline")
	k.keep()

	p.press("link", "Back to the server")
	p.press("button", "Save recording")
	p.see("Saved ")
	k.keep()
	recording, err := os.ReadFile(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := k.rawViews(); n < 6 {
		t.Errorf("the Messages page links %d raw messages; want every message", n)
	}
	issued, _ := os.ReadFile(tokens)
	secrets := append(strings.Fields(string(issued)), cachedTokens(t, filepath.Join(dir, "config"))...)
	if len(secrets) < 3 {
		t.Fatalf("the server issued %d tokens (%q); want a login's and a refresh's", len(secrets), issued)
	}
	k.noSecrets(append(secrets, password), string(recording))
	p.checkOwnRequests()
}

// Every message both ways is in the Messages page, filtered by direction
// and by method (an answer under its request's), each with a link to its
// raw JSON; a password typed into a question's form, a password given as
// an argument and the server's echo of both show as [redacted] in the
// page, the raw messages and the saved recording.
func TestUITrafficFiltersAndHidesPasswords(t *testing.T) {
	bin := testbin.Need(t, "./cmd/mcp-tester", "./internal/testsupport/fixtures/askserver")
	browsertest.Require(t)
	url, dir := startUI(t, bin, "-c", filepath.Join(bin, "askserver"))
	b := browsers.New(t)
	p := openUI(t, b, url, dir)
	k := &pages{p: p}
	const (
		typed = "typed-Secret-pw-4711"
		given = "argument-Secret-pw-0815"
	)
	p.press("link", "Tool signin")
	p.press("button", "Call signin with JSON")
	p.see("Sign in to the shop.")
	p.typeInto("User (required)", "alice")
	p.typeInto("Password (required)", typed)
	p.press("button", "Accept")
	p.see("signin: accept")
	p.see("[redacted]")
	k.keep()

	p.press("link", "Back to the server")
	p.press("link", "Tool echo")
	p.typeInto("Arguments (a JSON object)", `{"user":"bob","password":"`+given+`"}`)
	p.press("button", "Call echo with JSON")
	p.see("arguments: ")
	k.keep()

	p.press("link", "Messages")
	text := p.text()
	for _, want := range []string{"client → server request tools/call", "server → client response tools/call", "took "} {
		if !strings.Contains(text, want) {
			t.Errorf("the Messages page does not show %q:\n%s", want, text)
		}
	}
	b.Screenshot("ui-messages")
	all := strings.Count(text, "Raw JSON")
	p.pick("Direction", "server → client (received)")
	p.pick("Method", "tools/call")
	p.press("button", "Filter")
	text = p.text()
	if strings.Contains(text, "client → server request") || !strings.Contains(text, "server → client response tools/call") {
		t.Errorf("filtered to the answers of tools/call, the page shows:\n%s", text)
	}
	if n := strings.Count(text, "Raw JSON"); n == 0 || n >= all {
		t.Errorf("the filter shows %d of %d messages", n, all)
	}
	if !regexp.MustCompile(`Showing \d+ of \d+ messages \(filtered\)`).MatchString(text) {
		t.Errorf("the page does not say how many it shows:\n%s", text)
	}
	k.keep()

	// The raw JSON of the first answer of tools/call, as a person opens it.
	p.b.Do(chromedp.Navigate(browsertest.Eval[string](b, `document.querySelector('a[href*="/log/"]').href`)), chromedp.WaitReady("body"))
	raw := browsertest.Eval[string](b, `document.body.innerText`)
	var msg map[string]any
	if err := json.Unmarshal([]byte(raw), &msg); err != nil || msg["jsonrpc"] != "2.0" {
		t.Errorf("the raw view is not the message as JSON (%v):\n%s", err, raw)
	}
	if ct := browsertest.Eval[string](b, `document.contentType`); ct != "application/json" {
		t.Errorf("the raw view is served as %s", ct)
	}

	b.Do(chromedp.Navigate(p.base+"/"), chromedp.WaitReady("body"))
	p.press("button", "Save recording")
	p.see("Saved ")
	recording, err := os.ReadFile(filepath.Join(dir, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recording), `"password":"[redacted]"`) {
		t.Errorf("the recording does not hide the password as the proxy does:\n%s", recording)
	}
	k.rawViews()
	k.noSecrets([]string{typed, given}, string(recording))
	p.checkOwnRequests()
}

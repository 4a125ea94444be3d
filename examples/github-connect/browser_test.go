package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/chromedp/chromedp"
)

// browser is one person's browser: a fresh browser context, so cookies (the server's
// sign-in, the flow cookie) belong to that person only.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// chromium is the one browser process of this test binary, started by the first test
// that needs it; each person gets a fresh browser context in it (own cookies and
// storage), which is much faster than a process per person. TestMain stops it.
var chromium browsertest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	chromium.Close()
	os.Exit(code)
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	return &browser{t: t, ctx: chromium.New(t).Context()}
}

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute) // against a hang
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser at %s: %v", b.location(), err)
	}
}

func (b *browser) open(url string) {
	b.t.Helper()
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		b.t.Fatalf("the test browser opens only loopback URLs, not %q", url)
	}
	b.do(chromedp.Navigate(url))
}

func (b *browser) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return loc
}

// waitFor waits, at most 2 minutes (a bound against a hang: Chromium on a
// busy machine is slow), until the page at a URL starting with prefix has
// loaded.
func (b *browser) waitFor(prefix string) {
	b.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		state, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.location.href, document.readyState]`))
		cancel()
		if err == nil && len(state) == 2 && strings.HasPrefix(state[0], prefix) && state[1] == "complete" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("browser did not reach %s; it is at %s", prefix, b.location())
}

func (b *browser) text(id string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute) // against a hang
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		b.t.Fatalf("read #%s at %s: %v", id, b.location(), err)
	}
	return s
}

func (b *browser) body() string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute) // against a hang
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		b.t.Fatalf("read the page at %s: %v", b.location(), err)
	}
	return s
}

// signIn signs the browser in to the example server at appURL.
func (b *browser) signIn(appURL, name, password string) {
	b.t.Helper()
	b.open(appURL + "/signin")
	b.fillSignIn(appURL, name, password)
	b.do(chromedp.WaitVisible(chromedp.ID("signed-in")))
}

// fillSignIn fills and sends the sign-in form the browser is showing.
func (b *browser) fillSignIn(appURL, name, password string) {
	b.t.Helper()
	b.waitFor(appURL + "/signin")
	b.do(
		chromedp.SendKeys(chromedp.ID("name"), name),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("signin")),
	)
}

// clickID clicks the element with the given id once it is visible.
func clickID(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.ID(id))
}

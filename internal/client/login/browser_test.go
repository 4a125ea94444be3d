package login_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/testsupport/browsertest"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
	"github.com/chromedp/chromedp"
)

// TestLoginInChromium logs in as a person does: headless Chromium opens the
// authorization address, the person clicks "Sign in as alice" on the
// consent page, the authorization server redirects to the tester's
// loopback address, and the page there says the login is done.
func TestLoginInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium: make test runs it, make check (-short) does not")
	}
	bctx, cancelTime := context.WithTimeout(browsertest.New(t).Context(), 60*time.Second)
	defer cancelTime()

	server, _ := servers(t, authserver.Options{})
	var consent, title, page string
	shown := make(chan error, 1)
	l, out := newLogin(t.TempDir(), login.Settings{}, nil)
	l.Open = func(_ context.Context, address string) error {
		err := chromedp.Do(bctx, chromedp.Navigate(address), chromedp.WaitVisible(chromedp.ID("as-alice")))
		if err == nil {
			consent, err = chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		}
		if err == nil {
			err = chromedp.Do(bctx, chromedp.Click(chromedp.ID("as-alice")), chromedp.WaitVisible(chromedp.CSS("h1")))
		}
		if err == nil {
			title, err = chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector("h1").innerText`))
		}
		if err == nil {
			page, err = chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		}
		shown <- err
		return err
	}
	got, err := call(t, l, server, "whoami", nil)
	if err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("got %q, %v\n%s", got, err, out)
	}
	if err := <-shown; err != nil {
		t.Fatalf("the browser step: %v", err)
	}
	if !strings.Contains(consent, "asks for: mcp") {
		t.Errorf("the consent page did not show the scope asked for: %q", consent)
	}
	if title != "Logged in" || !strings.Contains(page, "You can close this tab") {
		t.Errorf("the tester's page said %q / %q", title, page)
	}
}

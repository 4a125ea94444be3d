package login_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
	"github.com/chromedp/chromedp"
)

// chromiumPath is where scripts/ensure-chromium.sh installs the browser.
const chromiumPath = "/usr/bin/chromium"

// TestLoginInChromium logs in as a person does: headless Chromium opens the
// authorization address, the person clicks "Sign in as alice" on the
// consent page, the authorization server redirects to the tester's
// loopback address, and the page there says the login is done.
func TestLoginInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing in CI: run scripts/ensure-chromium.sh (make setup)", chromiumPath)
		}
		t.Skipf("%s is missing: run scripts/ensure-chromium.sh to run the browser test", chromiumPath)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancelTime := context.WithTimeout(bctx, 60*time.Second)
	defer cancelTime()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}

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

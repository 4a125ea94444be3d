package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is where scripts/ensure-chromium.sh installs the browser.
const chromiumPath = "/usr/bin/chromium"

// requireChromium skips the test when the browser is missing on a developer's machine,
// and fails it in CI (CI is set), where scripts/ensure-chromium.sh must have run.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing in CI: run scripts/ensure-chromium.sh (make setup) before the tests", chromiumPath)
		}
		t.Skipf("%s is missing: run scripts/ensure-chromium.sh to run the browser tests", chromiumPath)
	}
}

// browser is one person's browser: a fresh browser context, so cookies (the server's
// sign-in, the flow cookie) belong to that person only.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// chromium is the one browser process of this test binary, started by the first test
// that needs it; each person gets a fresh browser context in it (own cookies and
// storage), which is much faster than a process per person. TestMain stops it.
var chromium struct {
	once sync.Once
	ctx  context.Context
	err  error
	stop func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.stop != nil {
		chromium.stop()
	}
	os.Exit(code)
}

func startChromium() (context.Context, error) {
	chromium.once.Do(func() {
		dir, err := os.MkdirTemp("", "github-connect-chromium-")
		if err != nil {
			chromium.err = fmt.Errorf("chromium profile: %w", err)
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(chromiumPath),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(dir),
		)
		ctx, cancel := chromedp.NewContext(actx)
		chromium.stop = func() {
			cancel()
			cancelAlloc()
			os.RemoveAll(dir)
		}
		// The first run starts the browser; it must not carry a timeout (that would
		// end the browser with it).
		if err := chromedp.Do(ctx); err != nil {
			chromium.err = fmt.Errorf("start chromium: %w", err)
			return
		}
		chromium.ctx = ctx
	})
	return chromium.ctx, chromium.err
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	requireChromium(t)
	root, err := startChromium()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a browser context: %v", err)
	}
	return &browser{t: t, ctx: ctx}
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

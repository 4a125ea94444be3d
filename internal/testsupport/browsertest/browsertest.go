// Package browsertest is what the tests that open a page in a real browser
// share: a headless Chromium (installed by scripts/ensure-chromium.sh,
// driven through chromedp) started with the flags that keep it off the
// network on its own, the requests a page made, and screenshots kept as
// test artifacts.
//
// Screenshots go to the folder named by ASKBACK_ARTIFACTS (created if
// needed), else to the test's temporary folder; CI keeps that folder as an
// artifact of the run.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// ChromiumPath is where scripts/ensure-chromium.sh installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// ArtifactsEnv names the folder where tests keep what a person looks at
// after a run (screenshots).
const ArtifactsEnv = "ASKBACK_ARTIFACTS"

// Require skips the test when the browser is missing on a developer's
// machine, and fails it in CI (CI is set), where scripts/ensure-chromium.sh
// must have run.
func Require(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing in CI: run scripts/ensure-chromium.sh (make setup) before the tests", ChromiumPath)
		}
		t.Skipf("%s is missing: run scripts/ensure-chromium.sh to run the browser tests", ChromiumPath)
	}
}

// Options are the allocator options of a headless Chromium with its
// profile in dir: no sandbox (tests run as root), no GPU, and none of the
// background traffic (component updates, sync, QUIC probes) a browser
// starts by itself. A navigation keeps the tab's frame: no new frame and
// widget for each document (RenderDocument), no back/forward cache and no
// new browsing instance to feed it. The tests navigate hundreds of times
// (each click posts a form; the page of a running call reloads every
// second) and never go back; a new frame per document was about a third
// of each navigation's processor time (BENCHMARKS.md, "What make test
// costs"). What a page does and shows is the same either way.
func Options(dir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath),
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
		chromedp.Flag("disable-features", "RenderDocument,BackForwardCache,ProactivelySwapBrowsingInstance"),
		chromedp.Flag("disable-back-forward-cache", true),
		chromedp.UserDataDir(dir),
	}
}

// Browser is one browser tab for a test, in a browser context of its own
// (its own cookies, storage and cache, as a new profile would have), with
// the requests the tab made.
type Browser struct {
	t   testing.TB
	ctx context.Context

	mu       sync.Mutex
	requests []string
}

// Shared is one Chromium that the tests of a test binary share: started by
// the first test that asks for a browser, each test then gets a browser
// context of its own in it. A Chromium's start costs more processor time
// than most tests' pages (about 1.5 s on the 2-core machine), and a browser
// context keeps one test's cookies and storage from the next as a new
// profile would. The zero value is ready to use; TestMain calls Close after
// the tests.
type Shared struct {
	mu   sync.Mutex
	ctx  context.Context // the browser's first tab; its Err is set once the browser is gone
	stop func()
}

// New opens a tab in a browser context of its own for the test, closed
// when the test ends (skipping the test without Chromium, see Require). A
// browser that has gone (a crash) is started again.
func (s *Shared) New(t testing.TB) *Browser {
	t.Helper()
	Require(t)
	root, err := s.browser()
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a browser context: %v", err)
	}
	return listen(t, ctx)
}

// browser returns the shared browser's first tab, starting the browser if
// it has not started or has gone.
func (s *Shared) browser() (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx != nil && s.ctx.Err() == nil {
		return s.ctx, nil
	}
	if s.stop != nil {
		s.stop()
	}
	ctx, stop, err := startRetrying()
	if err != nil {
		return nil, err
	}
	s.ctx, s.stop = ctx, stop
	return ctx, nil
}

// Close stops the shared browser, if it started, and removes its profile.
func (s *Shared) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop()
		s.ctx, s.stop = nil, nil
	}
}

// New starts a browser of the test's own (skipping the test without
// Chromium, see Require), stopped when the test ends. Tests that can share
// one browser use Shared.
func New(t testing.TB) *Browser {
	t.Helper()
	Require(t)
	ctx, stop, err := startRetrying()
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	t.Cleanup(stop)
	return listen(t, ctx)
}

// listen keeps the requests of the tab ctx.
func listen(t testing.TB, ctx context.Context) *Browser {
	t.Helper()
	b := &Browser{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok && r.Request != nil {
			b.mu.Lock()
			b.requests = append(b.requests, r.Request.URL)
			b.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("listen to the browser's requests: %v", err)
	}
	return b
}

// startRetrying starts a browser with a new profile and returns its first
// tab and what stops it (and removes the profile). Chromium now and then
// exits before it listens when the machine is busy (its output then ends
// with crash reporter lines): one more try, in a profile of its own.
func startRetrying() (context.Context, func(), error) {
	ctx, stop, err := start()
	if err != nil {
		ctx, stop, err = start()
	}
	return ctx, stop, err
}

// start starts a browser with a new profile.
func start() (context.Context, func(), error) {
	dir, err := os.MkdirTemp("", "askback-chromium-")
	if err != nil {
		return nil, nil, fmt.Errorf("chromium profile: %w", err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), Options(dir)...)
	ctx, cancel := chromedp.NewContext(actx)
	stop := func() { cancel(); cancelAlloc(); os.RemoveAll(dir) }
	// The first action starts the browser: without a time limit, which
	// would end the browser with it.
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}

// Context is the browser tab's chromedp context.
func (b *Browser) Context() context.Context { return b.ctx }

// Open loads the file at path from its file:// URL and waits until it has
// loaded; it returns the URL.
func (b *Browser) Open(path string) string {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		b.t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(abs)
	b.Do(chromedp.EmulateViewport(ViewportWidth, ViewportHeight), chromedp.Navigate(url), chromedp.WaitReady("body"))
	return url
}

// Do runs actions in the tab, failing the test after 30 seconds or on an
// error.
func (b *Browser) Do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// Eval evaluates a JavaScript expression in the page (the test's, not the
// page's: the page itself runs no script) and returns its value.
func Eval[T any](b *Browser, expression string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expression, err)
	}
	return v
}

// Requests are the URLs the tab requested so far, in order.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// Viewport is the size of the browser's window, in CSS pixels.
const (
	ViewportWidth  = 1200
	ViewportHeight = 900
)

// maxShotHeight bounds a screenshot: the top of a long page is what a
// person looks at first, and a whole long page takes long to capture.
const maxShotHeight = 4000

// Screenshot keeps a PNG of the page (its top maxShotHeight pixels at
// most) as name.png in the artifacts folder (see Artifacts) and returns
// its path.
func (b *Browser) Screenshot(name string) string {
	b.t.Helper()
	height := Eval[float64](b, `document.documentElement.scrollHeight`)
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	shot, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		CaptureBeyondViewport: ptr(true),
		Clip:                  &page.Viewport{Width: ViewportWidth, Height: min(max(height, 1), maxShotHeight), Scale: 1},
	})
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(Artifacts(b.t), name+".png")
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

func ptr[T any](v T) *T { return &v }

// unsafeName is what a test's name may not keep in a folder name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Artifacts is the folder of the test's artifacts: ASKBACK_ARTIFACTS/TEST
// when the variable is set (TEST the test's name, subtests as folders),
// else the test's temporary folder.
func Artifacts(t testing.TB) string {
	t.Helper()
	root := os.Getenv(ArtifactsEnv)
	if root == "" {
		return t.TempDir()
	}
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = unsafeName.ReplaceAllString(p, "_")
	}
	dir := filepath.Join(append([]string{root}, parts...)...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("%s: %v", ArtifactsEnv, err)
	}
	return dir
}

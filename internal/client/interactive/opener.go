package interactive

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/askback/askback/internal/checks/urlcheck"
)

// BrowserEnv names the environment variable that replaces the system's
// browser launcher: the program it names is run with the URL as its only
// argument. Tests point it at a script that records the URL.
const BrowserEnv = "MCP_TESTER_BROWSER"

// Opener opens a link for the person, once they agreed to it.
type Opener interface {
	Open(ctx context.Context, url string) error
}

// Browser opens links with a launcher program: the one named by
// MCP_TESTER_BROWSER, or the system's (xdg-open, open, or the Windows URL
// handler). The URL is passed as a single argument, never through a shell.
type Browser struct {
	// Command is the launcher and its leading arguments; the URL is added
	// last.
	Command []string
	// Wait bounds how long the launcher may take; zero means 15 seconds.
	Wait time.Duration
}

// SystemBrowser returns the Browser for this system: getenv(BrowserEnv)
// when set, otherwise the launcher for goos ("linux", "darwin",
// "windows", ...).
func SystemBrowser(getenv func(string) string, goos string) *Browser {
	if c := strings.TrimSpace(getenv(BrowserEnv)); c != "" {
		return &Browser{Command: []string{c}}
	}
	switch goos {
	case "darwin":
		return &Browser{Command: []string{"open"}}
	case "windows":
		return &Browser{Command: []string{"rundll32", "url.dll,FileProtocolHandler"}}
	}
	return &Browser{Command: []string{"xdg-open"}}
}

// Open runs the launcher with the URL. It refuses anything that is not an
// http or https link with a host, and a URL that a launcher could read as
// an option.
func (b *Browser) Open(ctx context.Context, url string) error {
	if len(b.Command) == 0 {
		return errors.New("no browser launcher configured")
	}
	// Only what can be opened at all is checked here: the warnings,
	// the server's place among them, were shown before.
	if l := Inspect(url, urlcheck.LocalServer()); !l.Openable || strings.HasPrefix(url, "-") {
		return fmt.Errorf("refusing to open %q: only plain http and https links are opened", url)
	}
	wait := b.Wait
	if wait <= 0 {
		wait = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	args := append(append([]string{}, b.Command[1:]...), url)
	// No pipes: a browser started by the launcher may outlive it, and
	// would hold a pipe open.
	if err := exec.CommandContext(ctx, b.Command[0], args...).Run(); err != nil {
		return fmt.Errorf("start the browser with %s: %w", b.Command[0], err)
	}
	return nil
}

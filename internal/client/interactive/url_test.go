package interactive

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/checks/urlcheck"
)

func TestInspectWarnings(t *testing.T) {
	cases := []struct {
		url      string
		host     string
		openable bool
		warn     []string // each must appear in some warning
	}{
		{"https://mcp.example.com/connect/github", "mcp.example.com", true, nil},
		{"https://mcp.example.com/connect?access_token=abcdef0123456789abcdef", "mcp.example.com", true, []string{"looks like a credential"}},
		{"http://127.0.0.1:8080/connect", "127.0.0.1:8080", true, nil}, // this machine
		{"http://localhost:3000/x", "localhost:3000", true, nil},
		{"http://[::1]:3000/x", "[::1]:3000", true, nil},
		{"http://mcp.example.com/connect", "mcp.example.com", true, []string{"plain http"}},
		{"https://xn--gthub-n4a.com/login", "xn--gthub-n4a.com", true, []string{"punycode"}},
		{"https://login.XN--80ak6aa92e.com/", "login.XN--80ak6aa92e.com", true, []string{"punycode"}},
		{"https://gіthub.com/login", "gіthub.com", true, []string{"not plain ASCII", "mixes Latin and Cyrillic"}}, // Cyrillic і
		{"https://github.com@evil.example/login", "evil.example", true, []string{`carries "github.com@" before the host; the real host is evil.example`}},
		{"https://a@a.example.com@evil.example/", "evil.example", true, []string{"the real host is evil.example"}},
		{"https://evil.example/?next=https://good.example", "evil.example", true, nil},
		{"http://93.184.216.34/pay", "93.184.216.34", true, []string{"raw IP address", "plain http"}},
		{"javascript:alert(1)", "", false, []string{`only http and https links are opened; this one is "javascript:"`}},
		{"file:///etc/passwd", "", false, []string{"only http and https"}},
		{"https:///nohost", "", false, []string{"not an absolute URL with a host; it will not be opened"}},
		{"https://good.example/\x1b[2K\rhttps://evil.example", "", false, []string{"hidden or control characters"}},
		{"https://good.example/\u202emoc.elgoog", "", false, []string{"hidden or control characters"}},
		{"https://exa mple.com/", "", false, []string{"cannot be read"}},
	}
	for _, c := range cases {
		l := Inspect(c.url, urlcheck.LocalServer())
		if l.Host != c.host || l.Openable != c.openable {
			t.Errorf("%q: host %q openable %v, want %q %v", c.url, l.Host, l.Openable, c.host, c.openable)
		}
		all := strings.Join(l.Warnings, "\n")
		for _, w := range c.warn {
			if !strings.Contains(all, w) {
				t.Errorf("%q: warnings %q lack %q", c.url, l.Warnings, w)
			}
		}
		if len(c.warn) == 0 && len(l.Warnings) > 0 {
			t.Errorf("%q: unexpected warnings %q", c.url, l.Warnings)
		}
		if l.Openable && l.Before+l.Host+l.After != c.url {
			t.Errorf("%q: split %q|%q|%q does not give the URL back", c.url, l.Before, l.Host, l.After)
		}
		if strings.ContainsAny(l.URL, "\x1b\r\u202e") {
			t.Errorf("%q: shown URL keeps a control character: %q", c.url, l.URL)
		}
	}
}

func FuzzInspect(f *testing.F) {
	f.Add("https://mcp.example.com/connect/github")
	f.Add("http://user:pw@[::1]:80/x?y#z")
	f.Add("https://xn--e1afmkfd.xn--p1ai/")
	f.Fuzz(func(t *testing.T, raw string) {
		l := Inspect(raw, urlcheck.Server{})
		if l.Openable {
			if l.Before+l.Host+l.After != raw {
				t.Fatalf("%q: split does not give the URL back", raw)
			}
			if u, err := url.Parse(raw); err != nil || (l.Host != "" && l.Host != u.Host) {
				t.Fatalf("%q: highlighted %q, but the link goes to %v", raw, l.Host, u)
			}
			if !strings.HasPrefix(strings.ToLower(raw), "http://") && !strings.HasPrefix(strings.ToLower(raw), "https://") {
				t.Fatalf("%q: openable but not http(s)", raw)
			}
		}
		if strings.ContainsRune(l.URL, 0x1b) {
			t.Fatalf("%q: ESC in shown URL", raw)
		}
	})
}

// recorder writes a launcher script that appends its argument to a file.
func recorder(t *testing.T) (cmd, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "opened")
	cmd = filepath.Join(dir, "browser")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '" + log + "'\n"
	if err := os.WriteFile(cmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return cmd, log
}

func TestBrowserOpensOnlyWebLinks(t *testing.T) {
	cmd, log := recorder(t)
	b := SystemBrowser(func(k string) string {
		if k == BrowserEnv {
			return cmd
		}
		return ""
	}, "linux")
	ctx := context.Background()
	good := "https://mcp.example.com/connect?a=1&b=$(touch /tmp/pwned)"
	if err := b.Open(ctx, good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"file:///etc/passwd", "--help", "javascript:alert(1)", "https://x.example/\x1b[2K", "ssh://host"} {
		if err := b.Open(ctx, bad); err == nil {
			t.Errorf("Open(%q) succeeded; it must be refused", bad)
		}
	}
	got, _ := os.ReadFile(log)
	if string(got) != good+"\n" {
		t.Errorf("the launcher got %q, want exactly the one web link as one argument", got)
	}
}

func TestSystemBrowserPerOS(t *testing.T) {
	none := func(string) string { return "" }
	for goos, want := range map[string]string{"linux": "xdg-open", "freebsd": "xdg-open", "darwin": "open", "windows": "rundll32"} {
		if got := SystemBrowser(none, goos).Command[0]; got != want {
			t.Errorf("%s: %s, want %s", goos, got, want)
		}
	}
}

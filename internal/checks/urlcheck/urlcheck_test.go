package urlcheck

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func codes(r Report) []Code {
	var cs []Code
	for _, w := range r.Warnings {
		cs = append(cs, w.Code)
	}
	return cs
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		url         string
		host        string
		unicodeHost string
		want        []Code
	}{
		{"https://mcp.example.com/connect/github?t=k1.eyJwIjoiZ2l0aHViIn0.c2ln", "mcp.example.com", "", nil},
		{"http://127.0.0.1:8080/connect/github?t=abc", "127.0.0.1", "", nil},
		{"http://localhost:8080/x", "localhost", "", nil},
		{"http://[::1]:8080/x", "::1", "", nil},
		{"http://app.localhost/x", "app.localhost", "", nil},
		{"HTTPS://MCP.Example.COM/", "mcp.example.com", "", nil},
		{"http://mcp.example.com/connect", "mcp.example.com", "", []Code{PlainHTTP}},
		{"https://203.0.113.7/connect", "203.0.113.7", "", []Code{IPAddress}},
		{"http://203.0.113.7/connect", "203.0.113.7", "", []Code{IPAddress, PlainHTTP}},
		{"https://[2001:db8::1]/x", "2001:db8::1", "", []Code{IPAddress}},
		// The Cyrillic look-alike of "apple".
		{"https://xn--80ak6aa92e.com/login", "xn--80ak6aa92e.com", "аррӏе.com", []Code{Punycode}},
		// Latin "p" "a" "y" with a Cyrillic "а" inside: mixed scripts.
		{"https://xn--pypal-4ve.com/", "xn--pypal-4ve.com", "pаypal.com", []Code{Punycode, MixedScript}},
		{"https://bücher.example/", "bücher.example", "", []Code{NonASCIIHost}},
		{"https://xn--broken-.example/", "xn--broken-.example", "", []Code{Punycode}},
		{"https://trusted.example@evil.example/", "evil.example", "", []Code{UserInfo}},
		{"https://user:pw@mcp.example.com/", "mcp.example.com", "", []Code{UserInfo}},
		{"https://mcp.example.com/cb?access_token=abc&x=1", "mcp.example.com", "", []Code{Credentials}},
		{"https://mcp.example.com/cb#access_token=abc", "mcp.example.com", "", []Code{Credentials}},
		{"https://mcp.example.com/cb?state=1&client_secret=s", "mcp.example.com", "", []Code{Credentials}},
		{"https://mcp.example.com/x?q=ghp_0123456789abcdef0123", "mcp.example.com", "", []Code{Credentials}},
		{"https://mcp.example.com/x?id=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln", "mcp.example.com", "", []Code{Credentials}},
		{"https://s3.example.com/f?X-Amz-Signature=abc", "s3.example.com", "", []Code{Credentials}},
		{"javascript://example.com/%0aalert(1)", "example.com", "", []Code{Scheme, HiddenChars}},
		{"ftp://files.example.com/a", "files.example.com", "", []Code{Scheme}},
		{"http://xn--80ak6aa92e.com@203.0.113.7/?token=x", "203.0.113.7", "", []Code{IPAddress, PlainHTTP, UserInfo, Credentials}},
	} {
		t.Run(c.url, func(t *testing.T) {
			r, err := Check(c.url, LocalServer())
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if r.URL != c.url {
				t.Errorf("URL = %q, want the input unchanged", r.URL)
			}
			if r.Host != c.host {
				t.Errorf("Host = %q, want %q", r.Host, c.host)
			}
			if r.UnicodeHost != c.unicodeHost {
				t.Errorf("UnicodeHost = %q, want %q", r.UnicodeHost, c.unicodeHost)
			}
			if got := codes(r); !slices.Equal(got, c.want) {
				t.Errorf("warnings = %v, want %v (%+v)", got, c.want, r.Warnings)
			}
			for _, w := range r.Warnings {
				if w.Message == "" {
					t.Errorf("warning %s has no message", w.Code)
				}
			}
		})
	}
}

// Every spelling of an IP address a browser accepts is warned about: a
// raw address hides who runs the site, and an unusual spelling hides even
// which address it is (loopback included).
func TestCheckWarnsAboutEveryIPSpelling(t *testing.T) {
	for url, goesTo := range map[string]string{
		"https://3232235777/":         "192.168.1.1",
		"http://0x7f.1/":              "127.0.0.1",
		"http://0x7F000001/":          "127.0.0.1",
		"https://0177.0.0.1/":         "127.0.0.1",
		"https://0300.0250.01.01/":    "192.168.1.1",
		"http://127.1/":               "127.0.0.1",
		"https://10.1/":               "10.0.0.1",
		"https://192.168.257/":        "192.168.1.1",
		"https://127.0.0.1./":         "127.0.0.1",
		"http://0/":                   "0.0.0.0",
		"https://１２７．０．０．１/":          "127.0.0.1",
		"https://[::ffff:127.0.0.1]/": "127.0.0.1",
		"https://[::ffff:c0a8:101]/":  "192.168.1.1",
		"https://[2001:db8::1]/":      "2001:db8::1",
		"https://[fe80::1%25eth0]/":   "fe80::1%eth0",
		"https://1.2.3.4.5/":          "",
		"https://0x100000000/":        "",
		"https://256.1.1.1/":          "",
	} {
		r, err := Check(url, LocalServer())
		if err != nil {
			t.Errorf("Check(%q): %v", url, err)
			continue
		}
		if !has(r, IPAddress) {
			t.Errorf("Check(%q) gives no IP warning: %+v", url, r.Warnings)
			continue
		}
		msg := r.Warnings[slices.IndexFunc(r.Warnings, func(w Warning) bool { return w.Code == IPAddress })].Message
		if goesTo != "" && !strings.Contains(msg, goesTo) {
			t.Errorf("Check(%q): the warning %q does not say it goes to %s", url, msg, goesTo)
		}
		if goesTo == "" && !strings.Contains(msg, "no valid IP address") {
			t.Errorf("Check(%q): the warning %q does not say the address is invalid", url, msg)
		}
	}
	for _, name := range []string{"https://example.com/", "https://1.example.com/", "https://0x.example/", "https://a1/", "http://127.0.0.1/", "http://[::1]/"} {
		if r, _ := Check(name, LocalServer()); has(r, IPAddress) {
			t.Errorf("Check(%q) warns about an IP address: %+v", name, r.Warnings)
		}
	}
}

func FuzzBrowserIPv4(f *testing.F) {
	for _, s := range []string{"0x7f.1", "3232235777", "0177.0.0.1", "1.2.3.4.5", "0x", "09", "１２７．１"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		addr, numeric, err := browserIPv4(host)
		if !numeric && (err != nil || addr.IsValid()) {
			t.Fatalf("browserIPv4(%q) = %v, %v, %v: a name has no address and no error", host, addr, numeric, err)
		}
		if numeric && err == nil && !addr.Is4() {
			t.Fatalf("browserIPv4(%q) = %v: not an IPv4 address", host, addr)
		}
		if a, perr := netip.ParseAddr(host); perr == nil && a.Is4() && (err != nil || addr != a) {
			t.Fatalf("browserIPv4(%q) = %v, %v; the dotted form says %v", host, addr, err, a)
		}
	})
}

func TestCheckRefusesWhatIsNotAURL(t *testing.T) {
	for _, s := range []string{"", " https://a.example", "/connect/github", "mailto:a@example.com",
		"https://", "http://:80/", "https://a.example/" + strings.Repeat("a", maxURL), "ht tp://x"} {
		if r, err := Check(s, LocalServer()); err == nil {
			t.Errorf("Check(%.40q) = %+v, want an error", s, r)
		}
	}
}

func TestDecodePunycode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"bcher-kva", "bücher"},
		{"mnchen-3ya", "münchen"},
		{"e1afmkfd", "пример"},
		{"80ak6aa92e", "аррӏе"},
		{"pypal-4ve", "pаypal"},
	} {
		got, err := decodePunycode(c.in)
		if err != nil || got != c.want {
			t.Errorf("decodePunycode(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "abc-", "-> $1.00 <--", "ü-abc", "99999999999999", "zzzzzzzzzzzzzzzzzzzz", strings.Repeat("a", 64)} {
		if got, err := decodePunycode(bad); err == nil {
			t.Errorf("decodePunycode(%q) = %q, want an error", bad, got)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "a.localhost": true, "127.0.0.1": true, "127.9.9.9": true,
		"::1": true, "[::1]": true, "::ffff:127.0.0.1": true,
		"localhost.example.com": false, "10.0.0.1": false, "example.com": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"https://mcp.example.com/connect/github?t=abc",
		"http://xn--80ak6aa92e.com@203.0.113.7/?token=x#access_token=y",
		"https://xn--pypal-4ve.com/",
		"http://[::1]:8080/",
		"https://bücher.example/?q=ghp_0123456789abcdef0123",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Check(s, LocalServer())
		if err != nil {
			return
		}
		if r.URL != s || r.Host == "" {
			t.Fatalf("Check(%q) = %+v: URL must be the input and Host non-empty", s, r)
		}
		for _, w := range r.Warnings {
			if w.Code == "" || w.Message == "" {
				t.Fatalf("empty warning in %+v", r)
			}
		}
	})
}

func FuzzDecodePunycode(f *testing.F) {
	for _, s := range []string{"bcher-kva", "80ak6aa92e", "pypal-4ve", "-> $1.00 <--", "a-", "zz9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := decodePunycode(s)
		if err != nil {
			return
		}
		if !utf8.ValidString(out) {
			t.Fatalf("decodePunycode(%q) gave invalid UTF-8 %q", s, out)
		}
		if utf8.RuneCountInString(out) > maxLabel {
			t.Fatalf("decodePunycode(%q) gave %d runes", s, utf8.RuneCountInString(out))
		}
	})
}

// Characters a reader cannot see, or that reorder what is shown, are found
// anywhere in a URL, as written or percent-encoded.
func TestHidden(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want string
	}{
		{"https://example.com/a\u202eb", "U+202E (a bidirectional control) in the path, as it is"},
		{"https://example.com/a%E2%80%AEb", "U+202E (a bidirectional control) in the path, percent-encoded"},
		{"https://exa\u200bmple.com/", "U+200B (an invisible format character) in the host, as it is"},
		{"https://exa%e2%80%8bmple.com/", "U+200B (an invisible format character) in the host, percent-encoded"},
		{"https://example.com/?q=%1b%5b2J", "U+001B (a control character) in the query, percent-encoded"},
		{"https://example.com/#x\u2066y", "U+2066 (a bidirectional control) in the fragment, as it is"},
		{"https://u\u00ad@example.com/", "U+00AD (an invisible format character) in the user info, as it is"},
		{"https://example.com/a\u0085b", "U+0085 (a control character) in the path, as it is"},
		{"https://example.com/a\u2028b", "U+2028 (a line separator) in the path, as it is"},
	} {
		var got []string
		for _, h := range Hidden(c.raw) {
			got = append(got, h.String())
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("Hidden(%q) = %q, want [%q]", c.raw, got, c.want)
		}
		if rep, err := Check(c.raw, LocalServer()); err == nil && !has(rep, HiddenChars) {
			t.Errorf("Check(%q) has no hidden-characters warning: %+v", c.raw, rep.Warnings)
		}
	}
	for _, raw := range []string{"https://example.com/a%20b?q=x+y#f", "https://bücher.example/ä%C3%A4", "https://example.com/%zz"} {
		if h := Hidden(raw); len(h) != 0 {
			t.Errorf("Hidden(%q) = %v, want none", raw, h)
		}
	}
}

// A punycode host that decodes to a bidirectional control is warned of.
func TestHiddenInPunycode(t *testing.T) {
	rep, err := Check("https://xn--google31m-5ha0200g.example/login", LocalServer())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range rep.Warnings {
		found = found || (w.Code == HiddenChars && strings.Contains(w.Message, "U+202E (a bidirectional control) in the host decoded from punycode"))
	}
	if !found {
		t.Errorf("warnings %+v", rep.Warnings)
	}
}

// has reports whether r carries a warning with the code.
func has(r Report, c Code) bool {
	return slices.ContainsFunc(r.Warnings, func(w Warning) bool { return w.Code == c })
}

// Any text given as a server's URL: the check ends with a verdict, and
// what it accepts is a URL with an http or https scheme and a host.
func FuzzServerURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:65535x/mcp", "https://[::1]:70000/", "http://h:9 /mcp", "ftp://x", "http://@:1", "http://[]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if ServerURL(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Hostname() == "" {
			t.Fatalf("%q accepted: %v, %+v", raw, err, u)
		}
	})
}

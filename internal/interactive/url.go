package interactive

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Link is the link of a URL question as a person is shown it: the full
// URL split around its host (so the host can be highlighted), the warnings
// it deserves, and whether it may be opened at all.
//
// The link is only looked at, never fetched.
type Link struct {
	URL      string   // the full URL, cleaned for the terminal
	Before   string   // URL up to the host: scheme, "://" and any user part
	Host     string   // the host, with its port if it has one
	After    string   // the rest: path, query, fragment
	Warnings []string // reasons to be careful, in plain words
	// Openable is false for links the tester refuses to hand to a browser:
	// anything but http and https, links without a host, and links with
	// hidden characters.
	Openable bool
}

// Inspect reads a URL question's link. Its warnings follow the
// specification's advice to clients: punycode hosts, raw IP addresses,
// plain http to anything but this machine; and a user part before the
// host, which makes a link look as if it went elsewhere.
func Inspect(raw string) Link {
	l := Link{URL: Clean(raw)}
	l.Before = l.URL
	if l.URL != raw {
		l.Warnings = append(l.Warnings, "the link contains hidden or control characters (shown escaped); it will not be opened")
		return l
	}
	u, err := url.Parse(raw)
	if err != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the link cannot be read (%v); it will not be opened", err))
		return l
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		l.Warnings = append(l.Warnings, fmt.Sprintf("only http and https links are opened; this one is %q", u.Scheme+":"))
		return l
	}
	if u.Host == "" {
		l.Warnings = append(l.Warnings, "the link has no host; it will not be opened")
		return l
	}
	l.Before, l.Host, l.After = splitHost(raw)
	if l.Host != u.Host {
		// Not written the way it was read: show it whole, unhighlighted.
		l.Before, l.Host, l.After = raw, "", ""
	}
	host := strings.ToLower(u.Hostname())
	if u.User != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the link starts with a user part (%q before @): it goes to %s, not to that name", u.User.Username(), host))
	}
	for label := range strings.SplitSeq(host, ".") {
		if strings.HasPrefix(label, "xn--") {
			l.Warnings = append(l.Warnings, fmt.Sprintf("the host %s is written in punycode (xn--): it may imitate a name you know", host))
			break
		}
	}
	if !isASCII(host) {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the host %s contains letters outside ASCII: it may imitate a name you know", host))
	}
	ip := net.ParseIP(host)
	if ip != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the host is a raw IP address (%s), not a name", host))
	}
	if scheme == "http" && !isLoopback(host, ip) {
		l.Warnings = append(l.Warnings, "plain http: what you send there can be read and changed on the way")
	}
	l.Openable = true
	return l
}

// splitHost cuts a URL around the host of its authority: after "://" and
// any user part (up to the last @), before the path, query or fragment.
func splitHost(raw string) (before, host, after string) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw, "", ""
	}
	start := i + 3
	end := len(raw)
	if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
		end = start + j
	}
	if at := strings.LastIndexByte(raw[start:end], '@'); at >= 0 {
		start += at + 1
	}
	return raw[:start], raw[start:end], raw[end:]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLoopback(host string, ip net.IP) bool {
	if ip != nil {
		return ip.IsLoopback()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

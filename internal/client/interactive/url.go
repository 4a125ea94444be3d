package interactive

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/text/termsafe"
)

// Link is the link of a URL question as a person is shown it: the full
// URL split around its host (so the host can be highlighted), the warnings
// it deserves, and whether it may be opened at all.
//
// The link is only looked at, never fetched.
type Link struct {
	URL    string // the full URL, cleaned for the terminal
	Before string // URL up to the host: scheme, "://" and any user part
	Host   string // the host, with its port if it has one, as written
	After  string // the rest: path, query, fragment
	// Unicode is the host with its punycode labels decoded (cleaned), when
	// it had any: shown next to Host, never instead of it.
	Unicode  string
	Warnings []string // reasons to be careful, in plain words
	// Openable is false for links the tester refuses to hand to a browser:
	// anything but http and https, links without a host, and links with
	// hidden characters.
	Openable bool
}

// Inspect reads the link of a URL question the server from asked. Its
// warnings are those of internal/checks/urlcheck (punycode and mixed-script
// hosts, raw IP addresses, plain http to anything but this machine, a user
// part before the host, credentials in the query, a link to this machine
// or a private network from a server that is not there), and it refuses to
// open what a browser launcher should never get.
func Inspect(raw string, from urlcheck.Server) Link {
	l := Link{URL: termsafe.Line(raw)}
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
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		l.Warnings = append(l.Warnings, fmt.Sprintf("only http and https links are opened; this one is %q", u.Scheme+":"))
		return l
	}
	rep, err := urlcheck.Check(raw, from)
	if err != nil {
		l.Warnings = append(l.Warnings, termsafe.Line(err.Error())+"; it will not be opened")
		return l
	}
	for _, w := range rep.Warnings {
		l.Warnings = append(l.Warnings, termsafe.Line(w.Message))
	}
	l.Unicode = termsafe.Line(rep.UnicodeHost)
	l.Before, l.Host, l.After = splitHost(raw)
	if l.Host != u.Host {
		// Not written the way it was read: show it whole, unhighlighted.
		l.Before, l.Host, l.After = raw, "", ""
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

// Package urlcheck inspects a URL that a server asks the user to open (URL-mode
// elicitation) and reports what a client should show before asking for consent: the full
// URL, the host to highlight, and warnings about what makes a link suspicious: punycode or
// mixed-script host names, raw IP addresses, plain http to anything but this machine,
// user info in the URL, credentials or tokens in the query or fragment, and a link to
// this machine or a private network from a server that is not there (Server).
// ServerURL is the one check of the URL of a server a person gives.
//
// The functions are pure: they never resolve or fetch anything.
package urlcheck

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/askback/askback/internal/text/termsafe"
)

// Code names a kind of warning.
type Code string

// The warnings Check reports.
const (
	// ThisMachine: the link points at this machine (localhost, a name
	// under .localhost, a loopback or unspecified address, in any
	// spelling), and the server that sent it is not on this machine.
	ThisMachine Code = "this-machine"
	// PrivateNetwork: the link points at a private network (an address of
	// 10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16, fc00::/7 or
	// fe80::/10, or a name under .local, .home.arpa or .internal), and the
	// server that sent it is not known to be on that network.
	PrivateNetwork Code = "private-network"
	// Punycode: a host label is punycode ("xn--"): its letters may imitate another name.
	Punycode Code = "punycode"
	// NonASCIIHost: the host is written in Unicode; browsers will show or send its
	// punycode form.
	NonASCIIHost Code = "non-ascii-host"
	// MixedScript: a host label mixes letters of different scripts, such as Latin and
	// Cyrillic, the classic way to imitate a known name.
	MixedScript Code = "mixed-script"
	// IPAddress: the host is a raw IP address rather than a name (the usual
	// spellings of loopback excepted), in any spelling a browser accepts:
	// dotted, decimal ("3232235777"), hexadecimal ("0x7f.1"), octal
	// ("0177.0.0.1"), shortened ("127.1"), full-width digits, IPv6, IPv4
	// written as IPv6 ("::ffff:127.0.0.1"); or it ends in a number but is no
	// valid address.
	IPAddress Code = "ip-address"
	// PlainHTTP: the URL uses http to a host other than this machine.
	PlainHTTP Code = "plain-http"
	// UserInfo: the URL carries "user@" or "user:password@" before the host, which
	// can make "https://trusted.example@evil.example" look trusted.
	UserInfo Code = "userinfo"
	// Credentials: the query or fragment carries what looks like a credential or token.
	Credentials Code = "credentials"
	// Scheme: the URL is not http or https.
	Scheme Code = "scheme"
	// HiddenChars: the URL holds, as written or percent-encoded, characters a
	// reader cannot see or that reorder what is shown (controls,
	// bidirectional controls, zero-width characters): the link shown is
	// not the link followed.
	HiddenChars Code = "hidden-characters"
)

// Warning is one reason to be careful with a URL.
type Warning struct {
	Code    Code
	Message string
}

// Report is what a client shows about a URL before asking to open it.
type Report struct {
	// URL is the full URL, as given.
	URL string
	// Scheme is the URL's scheme, lower case.
	Scheme string
	// Host is the host name or address to highlight, lower case, without port.
	Host string
	// UnicodeHost is Host with punycode labels decoded, when any were; otherwise
	// empty. Show it next to Host, never instead of it.
	UnicodeHost string
	// Port is the explicit port, if any.
	Port string
	// Warnings lists what is suspicious, in the order of the codes above.
	Warnings []Warning
}

// maxURL bounds the input Check reads.
const maxURL = 8192

// Check inspects raw, a link the server from sent. It returns an error only
// when raw is not an absolute URL with a host; anything odd about a
// well-formed URL is a warning in the report.
func Check(raw string, from Server) (Report, error) {
	u, host, err := parseAbsolute(raw)
	if err != nil {
		return Report{}, err
	}
	r := Report{URL: raw, Scheme: strings.ToLower(u.Scheme), Host: host, Port: u.Port()}
	r.placeWarnings(from)
	ipWarns, isIP := ipWarnings(host)
	if !isIP {
		r.nameWarnings()
	}
	r.Warnings = append(r.Warnings, ipWarns...)
	r.schemeWarnings()
	if u.User != nil {
		r.userInfoWarnings(u.User)
	}
	for _, where := range []struct{ name, raw string }{{"query", u.RawQuery}, {"fragment", u.Fragment}} {
		for _, name := range credentialParams(where.raw) {
			r.warn(Credentials, "the %s parameter %q looks like a credential or token", where.name, name)
		}
	}
	if h := r.hidden(); len(h) > 0 {
		r.warn(HiddenChars, "%s", DescribeHidden(h))
	}
	return r, nil
}

// parseAbsolute parses raw, which must be an absolute URL with a host, of
// at most maxURL bytes, without spaces around it; host is its host, lower
// case, without port.
func parseAbsolute(raw string) (u *url.URL, host string, err error) {
	if len(raw) > maxURL {
		return nil, "", fmt.Errorf("URL is %d bytes long; refusing more than %d", len(raw), maxURL)
	}
	if strings.TrimSpace(raw) != raw || raw == "" {
		return nil, "", errors.New("URL is empty or has leading or trailing space")
	}
	u, err = url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("not a URL: %w", err)
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, "", fmt.Errorf("%q is not an absolute URL with a host", raw)
	}
	host = strings.ToLower(u.Hostname())
	if host == "" {
		return nil, "", fmt.Errorf("%q has no host", raw)
	}
	return u, host, nil
}

// warn adds a warning of code c.
func (r *Report) warn(c Code, format string, args ...any) {
	r.Warnings = append(r.Warnings, Warning{Code: c, Message: fmt.Sprintf(format, args...)})
}

// nameWarnings warns about a host that is a name: punycode (which it
// decodes into UnicodeHost), letters that are not ASCII, labels that mix
// scripts.
func (r *Report) nameWarnings() {
	host := r.Host
	unicodeHost, decoded, bad := decodeHost(host)
	if decoded {
		r.UnicodeHost = unicodeHost
		r.warn(Punycode, "the host %s is punycode for %q: check that it is the site you expect", host, unicodeHost)
	}
	if bad {
		r.warn(Punycode, "the host %s has a punycode label that does not decode", host)
	}
	if !isASCII(host) {
		r.warn(NonASCIIHost, "the host %q is not plain ASCII: its letters may imitate another name", host)
	}
	checkHost := host
	if decoded {
		checkHost = unicodeHost
	}
	for label := range strings.SplitSeq(checkHost, ".") {
		if scripts := MixedScripts(label); len(scripts) > 1 {
			r.warn(MixedScript, "the host label %q mixes %s letters", label, strings.Join(scripts, " and "))
		}
	}
}

// schemeWarnings warns about a scheme other than https, and plain http
// to a host that is not this machine.
func (r *Report) schemeWarnings() {
	switch r.Scheme {
	case "https":
	case "http":
		if !IsLoopback(r.Host) {
			r.warn(PlainHTTP, "the URL uses plain http to %s: anything sent can be read or changed on the way", r.Host)
		}
	default:
		r.warn(Scheme, "the URL uses the scheme %q, not https", r.Scheme)
	}
}

// userInfoWarnings warns about the user info before the host, which
// makes the host hard to see.
func (r *Report) userInfoWarnings(user *url.Userinfo) {
	if _, hasPass := user.Password(); hasPass {
		r.warn(UserInfo, "the URL carries a user name and password before the host")
	} else {
		r.warn(UserInfo, "the URL carries %q before the host; the real host is %s", user.Username()+"@", r.Host)
	}
}

// hidden lists the hidden characters of the URL and of the host decoded
// from punycode, which can decode to what is hidden too.
func (r *Report) hidden() []HiddenChar {
	h := Hidden(r.URL)
	for _, c := range r.UnicodeHost {
		if termsafe.Unsafe(c) && !slices.ContainsFunc(h, func(x HiddenChar) bool { return x.Rune == c && x.Part == decodedHost }) {
			h = append(h, HiddenChar{Rune: c, Part: decodedHost})
		}
	}
	return h
}

// IsLoopback reports whether host (a name or address, without port) is this machine:
// localhost, a name under .localhost, or a loopback address.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// decodeHost decodes the punycode labels of host. decoded reports whether any label was
// punycode and decoded; bad whether one failed to decode.
func decodeHost(host string) (unicodeHost string, decoded, bad bool) {
	labels := strings.Split(host, ".")
	for i, l := range labels {
		if !strings.HasPrefix(l, "xn--") {
			continue
		}
		u, err := decodePunycode(l[len("xn--"):])
		if err != nil {
			bad = true
			continue
		}
		labels[i] = u
		decoded = true
	}
	return strings.Join(labels, "."), decoded, bad
}

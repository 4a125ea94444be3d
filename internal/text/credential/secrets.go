package credential

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// MinSecret is the shortest text Secrets returns: a shorter one would hide
// ordinary words wherever it is hidden.
const MinSecret = 6

// Secrets returns the credentials a URL and "Name: value" header lines
// carry, as the text that would show them (decoded and as written): the
// password of the user information, the values of query parameters and the
// path segments [RedactURL] hides, and the values of the headers named like
// credentials or holding a token (the whole value and each word of it, the
// authorization scheme aside; for Basic, also the decoded "user:password"
// and the password; for Cookie and Set-Cookie, each cookie's value, however
// it is written). Errors from libraries quote a URL whole, so
// the one way to keep these out of every message is to hide each wherever it
// shows up.
func Secrets(rawURL string, headers []string) []string {
	var out []string
	add := func(vs ...string) {
		for _, v := range vs {
			if len(v) >= MinSecret {
				out = append(out, v)
			}
		}
	}
	if u, err := url.Parse(rawURL); err == nil && (u.Scheme != "" || u.Host != "") {
		add(urlSecrets(u)...)
	}
	for _, l := range headers {
		add(headerSecrets(l)...)
	}
	return out
}

// urlSecrets returns the credentials of u, long or short: its password,
// the values of its query parameters and its path segments that
// [RedactURL] hides, each decoded and as written.
func urlSecrets(u *url.URL) []string {
	var out []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
		}
	}
	out = append(out, querySecrets(u.RawQuery)...)
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if v, err := url.PathUnescape(seg); err == nil && Token(v) {
			out = append(out, seg, v)
		}
	}
	return out
}

// querySecrets returns the values of a raw query's parameters named like
// credentials or holding a token (as written, decoded and re-encoded), and
// those that do not decode.
func querySecrets(rawQuery string) []string {
	var out []string
	// A query's pairs are separated by "&", and by ";" for servers that
	// read it so (older Go, Python, Java): a value after a ";" is one a
	// server may take.
	for _, kv := range strings.FieldsFunc(rawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, raw, _ := strings.Cut(kv, "=")
		name, _ := url.QueryUnescape(k)
		v, err := url.QueryUnescape(raw)
		if err != nil {
			out = append(out, raw)
			continue
		}
		if Name(name) || Token(v) {
			out = append(out, raw, v, url.QueryEscape(v))
		}
	}
	return out
}

// headerSecrets returns the credentials of the header line l, long or
// short, if its name or value says it holds one: the value, each word of
// it but the authorization scheme, what a Basic value decodes to, and the
// values of cookies.
func headerSecrets(l string) []string {
	name, value, ok := strings.Cut(l, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || !Header(name, value) {
		return nil
	}
	out := []string{value}
	for _, w := range strings.Fields(value) {
		switch strings.ToLower(w) {
		case "bearer", "basic", "token", "digest", "negotiate":
			continue
		}
		out = append(out, w)
	}
	out = append(out, basicSecrets(value)...)
	return append(out, cookieValues(name, value)...)
}

// cookieValues returns the value of each cookie of a Cookie header, or of
// the cookie a Set-Cookie header sets, as written and without its quotes.
// It reads them as leniently as any server may: net/http drops a cookie
// whose value has a byte it does not allow (a backslash, a quote inside, a
// space), which a server that reads it otherwise takes, and may echo.
func cookieValues(name, value string) []string {
	var pairs []string
	switch strings.ToLower(name) {
	case "cookie":
		pairs = strings.Split(value, ";")
	case "set-cookie", "set-cookie2":
		first, _, _ := strings.Cut(value, ";")
		pairs = []string{first}
	default:
		return nil
	}
	var out []string
	for _, p := range pairs {
		if _, v, ok := strings.Cut(p, "="); ok {
			v = strings.TrimSpace(v)
			out = append(out, v, strings.Trim(v, `"`))
		}
	}
	return out
}

// basicSecrets returns what a Basic authorization value stands for, as a
// server that decodes it may echo it: "user:password" and the password.
func basicSecrets(value string) []string {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return nil
	}
	cred = strings.TrimSpace(cred)
	var dec []byte
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(cred); err == nil {
			dec = b
			break
		}
	}
	if dec == nil {
		return nil
	}
	out := []string{string(dec)}
	if _, pass, ok := strings.Cut(string(dec), ":"); ok {
		out = append(out, pass)
	}
	return out
}

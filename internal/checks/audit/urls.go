package audit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/askback/askback/internal/checks/urlcheck"
	"github.com/askback/askback/internal/text/lazyre"
)

// credentialParams are query parameter names that carry credentials.
var credentialParams = map[string]bool{
	"token": true, "access_token": true, "accesstoken": true, "id_token": true, "refresh_token": true,
	"auth": true, "authorization": true, "bearer": true, "jwt": true,
	"api_key": true, "apikey": true, "api-key": true, "key": true, "secret": true, "client_secret": true,
	"password": true, "passwd": true, "pass": true, "pwd": true,
	"session": true, "sessionid": true, "session_id": true, "sid": true,
	"sig_token": true, "code_verifier": true,
}

var emailLike = lazyre.New(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)

// urlProblems lists what is wrong with the URL of a URL-mode question
// that the server from sent: not https (loopback excepted for
// development), user info, credentials in the query or fragment, a JWT
// anywhere, an e-mail address, one of the audit's own credentials
// (secrets, from the headers it sent), or a link to this machine or a
// private network from a server that is not there (urlcheck's place
// warnings: the person's browser sent at services the server cannot reach).
func urlProblems(raw string, secrets []string, from urlcheck.Server) []string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return []string{fmt.Sprintf("%q is not a valid absolute URL", raw)}
	}
	var out []string
	if p := schemeProblem(u); p != "" {
		out = append(out, p)
	}
	if rep, err := urlcheck.Check(raw, from); err == nil {
		for _, w := range rep.Warnings {
			if w.Code == urlcheck.ThisMachine || w.Code == urlcheck.PrivateNetwork {
				out = append(out, w.Message)
			}
		}
	}
	if u.User != nil {
		out = append(out, "carries user info (user:password@) in the URL")
	}
	out = append(out, paramProblems("query", u.RawQuery)...)
	out = append(out, paramProblems("fragment", u.Fragment)...)
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if isJWT(seg) {
			out = append(out, "the path carries a JWT")
		}
	}
	if unescaped, err := url.PathUnescape(u.RawQuery + "#" + u.Path); err == nil && emailLike.MatchString(unescaped) {
		out = append(out, "carries an e-mail address (personal data)")
	}
	for _, s := range secrets {
		if carries(raw, s) {
			out = append(out, "carries a credential the client sent to the server")
		}
	}
	return out
}

// carries reports whether the URL raw holds the secret s (eight bytes or
// more), as it is or query-escaped.
func carries(raw, s string) bool {
	return len(s) >= 8 && (strings.Contains(raw, s) || strings.Contains(raw, url.QueryEscape(s)))
}

// schemeProblem says what is wrong with u's scheme: not https, or http on
// a host that is not loopback; "" when nothing is.
func schemeProblem(u *url.URL) string {
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopback(u.Hostname()) {
			return fmt.Sprintf("uses http on %s; only loopback hosts may skip https", u.Hostname())
		}
	default:
		return fmt.Sprintf("uses scheme %q; use https", u.Scheme)
	}
	return ""
}

// paramProblems lists the parameters of a query or fragment (where, raw)
// that carry a credential, by name or as a JWT.
func paramProblems(where, raw string) []string {
	var out []string
	vals, _ := url.ParseQuery(raw)
	for _, name := range paramNames(raw, vals) {
		if credentialParams[strings.ToLower(name)] {
			out = append(out, fmt.Sprintf("%s parameter %q carries a credential", where, name))
		}
		for _, v := range vals[name] {
			if isJWT(v) {
				out = append(out, fmt.Sprintf("%s parameter %q carries a JWT", where, name))
			}
		}
	}
	return out
}

// paramNames lists the names of vals in the order they first appear in raw,
// so that a URL's problems are reported in the same order on every run.
func paramNames(raw string, vals url.Values) []string {
	var names []string
	seen := make(map[string]bool, len(vals))
	for _, pair := range strings.Split(raw, "&") {
		key, _, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(key)
		if err != nil || seen[name] {
			continue
		}
		if _, ok := vals[name]; ok {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isJWT reports whether s is a JSON Web Token: three base64url parts whose
// first decodes to a JSON header naming an algorithm.
func isJWT(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return false
	}
	var h struct {
		Alg string `json:"alg"`
	}
	return json.Unmarshal(b, &h) == nil && h.Alg != ""
}

// headerSecrets returns the credential values of "Name: value" header
// lines: the whole value and, for "Scheme credentials", the credentials.
func headerSecrets(lines ...[]string) []string {
	var out []string
	for _, ls := range lines {
		for _, l := range ls {
			name, v, ok := strings.Cut(l, ":")
			if !ok || !credentialHeader(name) {
				continue
			}
			v = strings.TrimSpace(v)
			out = append(out, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(cred))
			}
		}
	}
	return out
}

func httpCanonical(name string) string {
	return textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
}

// credentialHeader reports whether a header of this name carries a
// credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "authorization" || n == "cookie" || n == "proxy-authorization" {
		return true
	}
	for _, w := range []string{"token", "key", "auth", "secret", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

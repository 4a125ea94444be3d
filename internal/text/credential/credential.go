// Package credential recognises credentials where a client may show them:
// by the name of the header, parameter or variable that carries them, and
// by the form of well-known tokens. The trace hides what it recognises, and
// the URL check warns about it.
//
// Recognising is deliberately generous for names (a trace that hides an
// "author" parameter loses little; one that shows an API key loses much)
// and strict for values (a token is recognised by a known prefix, as a JSON
// Web Token, or after an authorization scheme).
package credential

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// nameParts are the parts of a name that say it carries a credential.
var nameParts = []string{
	"key", "token", "secret", "auth", "session", "cookie", "passw", "pwd",
	"signature", "credential", "bearer", "jwt", "private", "dpop",
}

// exactNames are short names that carry credentials but are too short to
// look for inside other names.
// (state: OAuth's, which stands for the sign-in it belongs to.)
var exactNames = []string{"sig", "pass", "sid", "code", "otp", "pin", "state", "nonce"}

// notCredentials are names that match a part above but carry none: the
// challenges that ask for credentials.
var notCredentials = []string{"www-authenticate", "proxy-authenticate"}

// Name reports whether a header, query parameter or variable called name
// carries a credential: its name says key, token, secret, auth, session,
// cookie, password, signature, credential or DPoP (apikey, X-Goog-Api-Key,
// Ocp-Apim-Subscription-Key, GITHUB_TOKEN), it is one of a few short
// names (sig, sid, code, state), or one of its words is a term of
// [DefaultTerms] read as a name (X-Passphrase, X-Pat, X-Csrf, X-Otp,
// Tenant-Tok).
func Name(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, x := range notCredentials {
		if n == x {
			return false
		}
	}
	for _, x := range exactNames {
		if n == x {
			return true
		}
	}
	for _, p := range nameParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return defaults().MatchName(name) != ""
}

// tokenPrefixes are the prefixes of well-known token formats.
var tokenPrefixes = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", // GitHub
	"glpat-", "gloas-", "glrt-", // GitLab
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-", // Slack
	"sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", // OpenAI, Stripe
	"AKIA", "ASIA", // AWS access key ids
	"ya29.", "AIza", // Google
	"npm_", "pypi-", "hf_", "dop_v1_", "shpat_", "shpss_", "SG.",
}

// schemes are authorization schemes whose value follows them.
var schemes = []string{"bearer ", "basic ", "token ", "digest ", "dpop "}

// Token reports whether v has the form of a credential: a value after an
// authorization scheme ("Bearer …", "DPoP …"), a token with a well-known prefix
// (ghp_…, glpat-…, xoxb-…, sk-…, AKIA…) and enough characters after it, or
// a JSON Web Token.
func Token(v string) bool {
	for _, s := range schemes {
		if len(v) >= len(s) && strings.EqualFold(v[:len(s)], s) && len(strings.TrimSpace(v[len(s):])) > 0 {
			return true
		}
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+16 && !strings.ContainsAny(v, " \t\n") {
			return true
		}
	}
	return IsJWT(v)
}

// IsJWT reports whether v is three base64url parts whose first decodes to
// a JSON object with an "alg" member.
func IsJWT(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 || !strings.HasPrefix(parts[0], "eyJ") {
		return false
	}
	head, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(head, &h) != nil {
		return false
	}
	_, ok := h["alg"]
	return ok
}

// Header reports whether a header's value is a credential: its name says
// so ([Name]: Authorization, Cookie, X-Api-Key, X-Csrf, X-Passphrase,
// X-Pat, and MCP's session id, which lets whoever holds it speak in the
// session), its value is a token by its form ([Token]), or, in a header
// that is none of HTTP's and MCP's own (which carry no credentials), its
// value looks generated (see [Opaque]): a tenant's or a gateway's token
// under a name of its own (X-Tenant: 7f3c…) is one whatever the header is
// called.
//
// A header that mirrors a field of the JSON-RPC message it comes with
// (see [Mirrored]: Mcp-Method, Mcp-Name, Mcp-Param-…) is never one, however
// its value looks: a task id in Mcp-Name is the message's own content,
// which whoever reads the message needs, and a secret the message holds
// is the message's to hide.
func Header(name, value string) bool {
	if Mirrored(name) {
		return false
	}
	return Name(name) || Token(value) || !plainHeader(name) && Opaque(value)
}

// Mirrored reports whether the header called name is one of those the
// Streamable HTTP transport of MCP copies from the JSON-RPC message a
// request carries, for intermediaries to route by: Mcp-Method (the
// method), Mcp-Name (the tool's or prompt's name, the resource's URI, the
// task's id) and Mcp-Param-{name} (a tool argument a tool's schema marks
// with x-mcp-header).
func Mirrored(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return n == "mcp-method" || n == "mcp-name" || strings.HasPrefix(n, "mcp-param-")
}

// plainHeaders are the headers of HTTP and MCP that carry no credential.
var plainHeaders = []string{"accept", "accept-encoding", "accept-language", "cache-control", "connection",
	"content-encoding", "content-length", "content-type", "date", "etag", "host", "if-match",
	"if-none-match", "last-event-id", "last-modified", "location", "mcp-protocol-version", "origin",
	"referer", "server", "traceparent", "tracestate", "transfer-encoding", "user-agent", "vary"}

func plainHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, h := range plainHeaders {
		if n == h {
			return true
		}
	}
	return false
}

// Opaque reports whether v looks like a generated secret: one word of 16
// or more characters of the alphabets tokens are written in (letters,
// digits and - _ . ~ + / =), with letters and digits among them.
func Opaque(v string) bool {
	v = strings.TrimSpace(v)
	if len(v) < 16 {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case strings.IndexByte("-_.~+/=", c) >= 0:
		default:
			return false
		}
	}
	return letter && digit
}

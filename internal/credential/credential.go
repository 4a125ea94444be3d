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
var exactNames = []string{"sig", "pass", "sid", "code", "otp"}

// notCredentials are names that match a part above but carry none: the
// challenges that ask for credentials.
var notCredentials = []string{"www-authenticate", "proxy-authenticate"}

// Name reports whether a header, query parameter or variable called name
// carries a credential: its name says key, token, secret, auth, session,
// cookie, password, signature, credential or DPoP (apikey, X-Goog-Api-Key,
// Ocp-Apim-Subscription-Key, GITHUB_TOKEN), or it is one of a few short
// names (sig, sid, code).
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
	return false
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
	lv := strings.ToLower(v)
	for _, s := range schemes {
		if strings.HasPrefix(lv, s) && len(strings.TrimSpace(v[len(s):])) > 0 {
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

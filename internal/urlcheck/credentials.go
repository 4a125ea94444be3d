package urlcheck

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// credentialNames are query parameter names that carry secrets.
var credentialNames = []string{
	"access_token", "accesstoken", "id_token", "refresh_token", "token", "auth", "auth_token",
	"authorization", "api_key", "apikey", "api-key", "key", "secret", "client_secret",
	"password", "passwd", "pwd", "pass", "session", "sessionid", "session_id", "sid",
	"jwt", "bearer", "private_token", "x-amz-security-token", "x-amz-signature", "sig", "signature",
}

// credentialPrefixes are prefixes of well-known token formats.
var credentialPrefixes = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-",
	"sk-", "sk_live_", "rk_live_", "AKIA", "ASIA", "ya29.",
}

// credentialParams returns, sorted, the names of the parameters in a raw query (or
// fragment) whose name or value looks like a credential.
func credentialParams(raw string) []string {
	if raw == "" {
		return nil
	}
	vals, _ := url.ParseQuery(raw) // keep what parses; a malformed pair is skipped
	var names []string
	for name, vs := range vals {
		lname := strings.ToLower(name)
		hit := slices.Contains(credentialNames, lname) ||
			strings.HasSuffix(lname, "_token") || strings.HasSuffix(lname, "_secret") ||
			strings.HasSuffix(lname, "password")
		for _, v := range vs {
			if hit {
				break
			}
			hit = looksLikeToken(v)
		}
		if hit {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// looksLikeToken reports whether v has the form of a known token: a known prefix, a
// JSON Web Token, or a "Bearer" value.
func looksLikeToken(v string) bool {
	if strings.HasPrefix(strings.ToLower(v), "bearer ") {
		return true
	}
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+16 {
			return true
		}
	}
	return isJWT(v)
}

// isJWT reports whether v is three base64url parts whose first decodes to a JSON object
// with an "alg" member.
func isJWT(v string) bool {
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

package urlcheck

import (
	"net/url"
	"slices"
	"strings"

	"github.com/askback/askback/internal/text/credential"
)

// credentialNames are query parameter names that carry secrets. A warning
// must mean something, so names are matched exactly here; the trace, which
// loses little by hiding too much, uses the generous credential.Name.
var credentialNames = []string{
	"access_token", "accesstoken", "id_token", "refresh_token", "token", "auth", "auth_token",
	"authorization", "api_key", "apikey", "api-key", "key", "secret", "client_secret",
	"password", "passwd", "pwd", "pass", "session", "sessionid", "session_id", "sid",
	"jwt", "bearer", "private_token", "x-amz-security-token", "x-amz-signature", "sig", "signature",
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
		if credentialName(strings.ToLower(name)) || slices.ContainsFunc(vs, credential.Token) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// credentialName reports whether the parameter name lname (lower case)
// is a credential's: one of credentialNames, or a token, secret or
// password by its end.
func credentialName(lname string) bool {
	return slices.Contains(credentialNames, lname) ||
		strings.HasSuffix(lname, "_token") || strings.HasSuffix(lname, "_secret") ||
		strings.HasSuffix(lname, "password")
}

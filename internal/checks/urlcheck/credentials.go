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
		lname := strings.ToLower(name)
		hit := slices.Contains(credentialNames, lname) ||
			strings.HasSuffix(lname, "_token") || strings.HasSuffix(lname, "_secret") ||
			strings.HasSuffix(lname, "password")
		for _, v := range vs {
			if hit {
				break
			}
			hit = credential.Token(v)
		}
		if hit {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// stateKey is the field whose value a trace hides.
const stateKey = "requestState"

// Redact returns raw with every "requestState" string replaced by a note of
// its length, wherever it is nested, unless show is set. Text that is not
// JSON is returned as a JSON string noting its length, so that nothing
// unread slips through.
func Redact(raw json.RawMessage, show bool) json.RawMessage {
	if len(raw) == 0 || show {
		return raw
	}
	// Fast path: no key can spell requestState without these bytes (an
	// escaped key, such as "request\u0053tate", needs a backslash).
	if !bytes.Contains(raw, []byte(stateKey)) && !bytes.Contains(raw, []byte(`\`)) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b, _ := json.Marshal(fmt.Sprintf("[unreadable JSON: %d bytes]", len(raw)))
		return b
	}
	v = redactValue(v, 0)
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprintf("[unprintable: %d bytes]", len(raw)))
	}
	return b
}

// maxDepth bounds the walk; deeper values are dropped whole.
const maxDepth = 64

func redactValue(v any, depth int) any {
	if depth > maxDepth {
		return "[too deep]"
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == stateKey {
				if s, ok := x.(string); ok {
					v[k] = StateNote(s)
				} else {
					// Not a string, so not a valid state, but hidden all the same.
					b, _ := json.Marshal(x)
					v[k] = fmt.Sprintf("[requestState: %d bytes of JSON]", len(b))
				}
				continue
			}
			v[k] = redactValue(x, depth+1)
		}
	case []any:
		for i, x := range v {
			v[i] = redactValue(x, depth+1)
		}
	}
	return v
}

// StateNote is what a trace shows instead of a requestState.
func StateNote(s string) string {
	return fmt.Sprintf("[requestState: %d bytes]", len(s))
}

// sensitiveHeaders are the HTTP headers whose values a trace never shows.
var sensitiveHeaders = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"}

// RedactHeaders returns "Name: value" lines with the values of credential
// headers replaced by "[redacted]".
func RedactHeaders(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		name, _, ok := strings.Cut(l, ":")
		if !ok {
			out = append(out, "[unreadable header]")
			continue
		}
		name = strings.TrimSpace(name)
		if IsSensitiveHeader(name) {
			out = append(out, name+": [redacted]")
			continue
		}
		out = append(out, l)
	}
	return out
}

// IsSensitiveHeader reports whether a header carries credentials.
func IsSensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	for _, s := range sensitiveHeaders {
		if n == s {
			return true
		}
	}
	return strings.Contains(n, "token") || strings.Contains(n, "secret") || strings.Contains(n, "auth")
}

// RedactURL hides the password of a URL's user information and the values
// of query parameters named like credentials. Text that is not a URL is
// returned as it is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "redacted")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			n := strings.ToLower(k)
			if IsSensitiveHeader(k) || n == "key" || strings.HasSuffix(n, "key") || n == "sig" || n == "signature" || n == "password" || n == "code" {
				q[k] = []string{"redacted"}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

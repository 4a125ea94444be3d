package credential

import (
	"slices"
	"strings"
	"testing"
)

func TestSecrets(t *testing.T) {
	got := Secrets("http://alice:hunter2pass@h:1/mcp?access_token=ghp_abcdefghijklmnopqrstuvwxyz0123456789&page=2&k=a%2Bb%2Bsk-abcdefghijklmnopqrstuvwx",
		[]string{"Authorization: Bearer eyJhbGciOi.secret", "X-Goog-Api-Key: AIzaSyA-secret", "Accept: text/plain", "X-Key: abc"})
	for _, want := range []string{"hunter2pass", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Bearer eyJhbGciOi.secret", "eyJhbGciOi.secret", "AIzaSyA-secret"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets misses %q: %q", want, got)
		}
	}
	for _, not := range []string{"alice", "2", "text/plain", "Bearer", "abc"} {
		if slices.Contains(got, not) {
			t.Errorf("Secrets holds %q, which is no secret (or too short to hide): %q", not, got)
		}
	}
}

// A query parameter after a ";" is one some servers read: its value is a
// secret like one after a "&".
func TestSecretsSemicolonQuery(t *testing.T) {
	got := Secrets("http://h/mcp?x=1;api_key=semi-secret-77;y=2&z=3;token=another-one-88", nil)
	for _, want := range []string{"semi-secret-77", "another-one-88"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets misses %q: %q", want, got)
		}
	}
	h := NewHider(got)
	if out := h.Hide("/mcp?x=1;api_key=semi-secret-77;y=2"); strings.Contains(out, "semi-secret") {
		t.Errorf("hidden: %q", out)
	}
}

// A Basic credential is hidden as sent and as a server that decodes it
// echoes it: "user:password" and the password.
func TestSecretsBasicDecoded(t *testing.T) {
	got := Secrets("", []string{"Authorization: Basic YWxpY2U6aHVudGVyMlBhc3M="})
	for _, want := range []string{"YWxpY2U6aHVudGVyMlBhc3M=", "alice:hunter2Pass", "hunter2Pass"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets misses %q: %q", want, got)
		}
	}
}

// Each cookie's value is a secret, also one net/http would not parse.
func TestSecretsCookieValues(t *testing.T) {
	got := Secrets("", []string{`Cookie: a=1; sess=bad\slash999; q="quotedCook88"; sp=has space9`, `Set-Cookie: srv="quoted\value42"; Path=/; HttpOnly`})
	for _, want := range []string{`bad\slash999`, "quotedCook88", "has space9", `quoted\value42`} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets misses %q: %q", want, got)
		}
	}
	if slices.Contains(got, "/") || slices.Contains(got, "Path=/") {
		t.Errorf("a Set-Cookie attribute taken for a secret: %q", got)
	}
}

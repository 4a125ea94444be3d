package login_test

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/login"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

func TestParseRedirect(t *testing.T) {
	res, err := login.ParseRedirect("code=abc&state=xyz&iss=https%3A%2F%2Fas.example")
	if err != nil || res.Code != "abc" || res.State != "xyz" || res.Iss != "https://as.example" {
		t.Fatalf("got %+v, %v", res, err)
	}
	for q, want := range map[string]string{
		"error=access_denied&error_description=nope%1b%5b31m": `refused the login: access_denied (nope\x1b[31m)`,
		"state=xyz":                         "carries no code=",
		"code=a&code=b&state=x":             "names code 2 times",
		"code=a&error=server_error":         "both a code and an error",
		"code=a;b":                          "unreadable query",
		strings.Repeat("a", 9<<10):          "longer than",
		"code=a&state=x&state=y":            "names state 2 times",
		"error=" + strings.Repeat("e", 500): "…",
	} {
		if _, err := login.ParseRedirect(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: got %v, want %q", q, err, want)
		}
	}
}

func TestParsePasted(t *testing.T) {
	for _, line := range []string{
		"http://127.0.0.1:4242/callback?code=abc&state=xyz\n",
		"  code=abc&state=xyz  ",
		"http://127.0.0.1:4242/callback?code=abc&state=xyz#fragment",
	} {
		res, err := login.ParsePasted(line)
		if err != nil || res.Code != "abc" || res.State != "xyz" {
			t.Errorf("%q: got %+v, %v", line, res, err)
		}
	}
	if _, err := login.ParsePasted("\n"); err == nil {
		t.Error("an empty line was accepted")
	}
}

// FuzzParseRedirect: the redirect's query comes from whoever reaches the
// loopback address, and the pasted line from the clipboard.
func FuzzParseRedirect(f *testing.F) {
	f.Add("code=abc&state=xyz&iss=https%3A%2F%2Fas.example")
	f.Add("error=access_denied&error_description=x")
	f.Add("http://127.0.0.1:1/callback?code=a&state=b#c")
	f.Add("%zz&code=;")
	f.Fuzz(func(t *testing.T, s string) {
		for _, parse := range []func(string) (string, error){
			func(s string) (string, error) { r, err := login.ParseRedirect(s); return code(r), err },
			func(s string) (string, error) { r, err := login.ParsePasted(s); return code(r), err },
		} {
			c, err := parse(s)
			if err == nil && c == "" {
				t.Fatalf("%q: accepted without a code", s)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\x1b\r\n") {
				t.Fatalf("%q: the error carries control characters: %q", s, err)
			}
		}
	})
}

func code(r *auth.AuthorizationResult) string {
	if r == nil {
		return ""
	}
	return r.Code
}

package credential_test

import (
	"strings"
	"testing"

	"github.com/askback/askback/internal/text/credential"
)

func TestName(t *testing.T) {
	for _, n := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "apikey", "X-Goog-Api-Key",
		"Ocp-Apim-Subscription-Key", "x-functions-key", "X-Auth-Token", "X-Session", "GITHUB_TOKEN", "client_secret",
		"password", "X-Amz-Signature", "sig", "code", "private_token", "X-Credential", "DPoP", "DPoP-Nonce"} {
		if !credential.Name(n) {
			t.Errorf("Name(%q) = false, want true", n)
		}
	}
	for _, n := range []string{"Accept", "Content-Type", "Mcp-Protocol-Version", "User-Agent", "WWW-Authenticate", "q", "page", "cursor"} {
		if credential.Name(n) {
			t.Errorf("Name(%q) = true, want false", n)
		}
	}
}

func TestToken(t *testing.T) {
	for _, v := range []string{"ghp_0123456789abcdef0123", "github_pat_11ABCDEFG0123456789", "glpat-0123456789abcdefghij",
		"xoxb-1234567890-abcdefghij", "sk-proj-0123456789abcdef", "AKIAIOSFODNN7EXAMPLE", "AIzaSyA-0123456789abcdefghijk",
		"Bearer abc", "DPoP abc", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"} {
		if !credential.Token(v) {
			t.Errorf("Token(%q) = false, want true", v)
		}
	}
	for _, v := range []string{"ghp_", "sk-short", "cats", "production", "eyJub3QiOiJqd3QifQ.e30.x", "Bearer "} {
		if credential.Token(v) {
			t.Errorf("Token(%q) = true, want false", v)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, secret := range map[string]string{
		"https://u:hunter2@h.example/x":                           "hunter2",
		"https://h.example/x?access_token=s3cr3t&x=1":             "s3cr3t",
		"https://h.example/x?k=ghp_0123456789abcdef0123":          "ghp_0123456789abcdef0123",
		"https://h.example/x?apikey=abc123":                       "abc123",
		"https://h.example/x?X-Goog-Api-Key=zzz9":                 "zzz9",
		"https://h.example/hooks/xoxb-1234567890-abcdefghij/send": "xoxb-1234567890-abcdefghij",
		"https://h.example/cb?code=authc0de&state=1":              "authc0de",
		"https://example.com/mcp?sig=s1g&expires=1":               "s1g",
		"http://127.0.0.1:8080/mcp?Authorization=Bearer+b":        "Bearer",
	} {
		got := credential.RedactURL(in)
		if strings.Contains(got, secret) {
			t.Errorf("RedactURL(%q) = %q still shows %q", in, got, secret)
		}
	}
	for _, same := range []string{"http://127.0.0.1:8080/mcp?x=1", "not a url", "./server --port 0"} {
		if got := credential.RedactURL(same); got != same {
			t.Errorf("RedactURL(%q) = %q, want it unchanged", same, got)
		}
	}
}

func TestRedactCommand(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"GITHUB_TOKEN=ghp_0123456789abcdef0123 ./server", "GITHUB_TOKEN=[redacted] ./server"},
		{"DEBUG=1 PORT=8080 ./server", "DEBUG=[redacted] PORT=[redacted] ./server"},
		{"env API_KEY='a b c' ./server --verbose", "env API_KEY=[redacted] ./server --verbose"},
		{`API_KEY="x\"y" server`, "API_KEY=[redacted] server"},
		{"./server --api-key=abc --token def --name ok", "./server --api-key=[redacted] --token [redacted] --name ok"},
		{`npx remote -H "Authorization: Bearer abc" https://h.example/mcp`, `npx remote -H 'Authorization: [redacted]' https://h.example/mcp`},
		{"./server https://h.example/x?token=abc", "./server https://h.example/x?token=redacted"},
		{"./server sk-proj-0123456789abcdef;echo done", "./server [redacted];echo done"},
		{"./deployer -redis redis://:pw@127.0.0.1:6379/0", "./deployer -redis redis://:redacted@127.0.0.1:6379/0"},
		{"bin/deployer", "bin/deployer"},
		{"GITHUB_TOKEN=${GITHUB_TOKEN} ./server --token $T", "GITHUB_TOKEN=${GITHUB_TOKEN} ./server --token $T"},
	} {
		if got := credential.RedactCommand(c.in); got != c.want {
			t.Errorf("RedactCommand(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}

func FuzzRedactCommand(f *testing.F) {
	f.Add("A=b ./x", "s3cr3t")
	f.Add(`X='q "y' --token="z" 'unterminated`, "hunter2")
	f.Fuzz(func(t *testing.T, line, secret string) {
		_ = credential.RedactCommand(line)
		if len(secret) < 4 || strings.ContainsAny(secret, " \t\n;&|()<>'\"\\$`=") {
			return
		}
		for _, form := range []string{"TOKEN=" + secret + " ", "--api-key=" + secret + " ", "--token " + secret + " "} {
			got := credential.RedactCommand(form + line)
			if strings.HasPrefix(got, form) {
				t.Fatalf("RedactCommand(%q) = %q shows the secret", form+line, got)
			}
		}
	})
}

func FuzzRedactURL(f *testing.F) {
	f.Add("https://u:p@h.example/a?token=x#f")
	f.Fuzz(func(t *testing.T, s string) {
		_ = credential.RedactURL(s)
	})
}

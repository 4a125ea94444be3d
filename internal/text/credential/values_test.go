package credential_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/text/credential"
)

// The review's headers: named like a credential in words the substrings of
// Name missed, and a tenant's token under a name of its own.
func TestHeaderClass(t *testing.T) {
	for _, h := range [][2]string{
		{"X-Csrf", "abc"}, {"X-Passphrase", "correct horse"}, {"X-Pat", "abc"}, {"X-Xsrf-Header", "abc"},
		{"X-Tenant-Tok", "t1"}, {"TenantTkn", "t1"}, {"X-Otp", "123456"}, {"X-Pin", "1234"},
		{"X-Tenant", "7f3c9a0b2e4d4c1e9b8a6f5d"}, {"X-Org-Id", "org_8fK2mQ9xL4vB7nR1"},
	} {
		if !credential.Header(h[0], h[1]) {
			t.Errorf("Header(%q, %q) = false, want true", h[0], h[1])
		}
		if got := credential.Secrets("", []string{h[0] + ": " + h[1]}); len(h[1]) >= credential.MinSecret && len(got) == 0 {
			t.Errorf("Secrets(%s: %s) hides nothing", h[0], h[1])
		}
	}
	for _, h := range [][2]string{
		{"Accept", "application/json, text/event-stream"}, {"Content-Type", "application/json"},
		{"User-Agent", "mcp-tester/v0.9.0-dev1234567890"}, {"Mcp-Protocol-Version", "2025-11-25"},
		{"Last-Event-ID", "0_1234567890abcdef"}, {"X-Tenant", "acme"}, {"X-Patch", "yes"}, {"X-Path", "/a/b"},
	} {
		if credential.Header(h[0], h[1]) {
			t.Errorf("Header(%q, %q) = true, want false", h[0], h[1])
		}
	}
	for _, n := range []string{"pat", "state", "X-Passphrase", "csrf_token", "x_csrf"} {
		if !credential.Name(n) {
			t.Errorf("Name(%q) = false, want true", n)
		}
	}
	if got := credential.RedactURL("https://h/cb?pat=abcdef&state=s1234567&code=c123&x=1"); strings.Contains(got, "abcdef") ||
		strings.Contains(got, "s1234567") || strings.Contains(got, "c123") || !strings.Contains(got, "x=1") {
		t.Errorf("RedactURL = %s", got)
	}
}

// The headers that mirror a JSON-RPC message's own fields are never
// credentials, whatever their names or values look like: a task id in
// Mcp-Name hidden as one would be hidden in every message that names the
// task. The credentials around them still are.
func TestMirroredHeadersAreContent(t *testing.T) {
	taskID := "NF6H4GHUV4MGVX6RXCHUA5HGWC"
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJ0YXNrIjoiMSJ9.c2lnbmF0dXJlMTIzNDU2"
	for _, h := range [][2]string{
		{"Mcp-Name", taskID}, {"mcp-name", "786512e2-9e0d-44bd-8f29-789f320fe840"}, {"Mcp-Name", jwt},
		{"Mcp-Method", "tasks/get"}, {"Mcp-Param-Region", "eu9west4north2south1"}, {"Mcp-Param-Api-Key", "k3y0123456789abcdef"},
	} {
		if credential.Header(h[0], h[1]) {
			t.Errorf("Header(%q, %q) = true, want false", h[0], h[1])
		}
		if got := credential.Secrets("", []string{h[0] + ": " + h[1]}); len(got) != 0 {
			t.Errorf("Secrets(%s: %s) = %q, want none", h[0], h[1], got)
		}
	}
	got := credential.Secrets("", []string{"Mcp-Name: " + taskID, "Authorization: Bearer s3cr3t-t0ken", "Mcp-Session-Id: 1868a90c4f2b4e7d9a3c", "X-Api-Key: abcdef123"})
	for _, want := range []string{"s3cr3t-t0ken", "1868a90c4f2b4e7d9a3c", "abcdef123"} {
		if !slices.Contains(got, want) {
			t.Errorf("Secrets = %q, want %q among them", got, want)
		}
	}
	if slices.Contains(got, taskID) {
		t.Errorf("Secrets = %q: the task id is among them", got)
	}
	for _, h := range [][2]string{
		{"Mcp-Session-Id", "1868a90c4f2b4e7d9a3c"}, {"Authorization", "Bearer abc"}, {"Cookie", "sid=abcdef"},
		{"Proxy-Authorization", "Basic dTpw"}, {"X-Api-Key", "abc"},
	} {
		if !credential.Header(h[0], h[1]) {
			t.Errorf("Header(%q, %q) = false, want true", h[0], h[1])
		}
	}
}

func TestFieldAndValue(t *testing.T) {
	for _, f := range [][]string{{"password"}, {"pin"}, {"otp"}, {"code", "One-time code"}, {"card_number"},
		{"ssn"}, {"apiKey"}, {"pat"}, {"github_token"}, {"value", "", "Your social security number"}} {
		if !credential.Field(f[0], f[1:]...) {
			t.Errorf("Field(%q) = false, want true", f)
		}
	}
	for _, f := range []string{"environment", "confirm", "code", "path", "keyword", "author", "max_tokens", "token_count"} {
		if credential.Field(f) {
			t.Errorf("Field(%q) = true, want false", f)
		}
	}
	for _, v := range []string{"4111 1111 1111 1111", "4111-1111-1111-1111", "5500005555555559", "123-45-6789", "ghp_0123456789abcdef0123"} {
		if !credential.Value(v) {
			t.Errorf("Value(%q) = false, want true", v)
		}
	}
	for _, v := range []string{"4111 1111 1111 1112", "2026-12-05", "production", "12345", "123-456-789"} {
		if credential.Value(v) {
			t.Errorf("Value(%q) = true, want false", v)
		}
	}
}

func TestHideFields(t *testing.T) {
	in := map[string]any{"environment": "prod", "password": "hunter2!", "code": "123456",
		"nested": map[string]any{"card": "4111111111111111", "list": []any{"ghp_0123456789abcdef0123"}}}
	out, paths := credential.HideFields(in, func(name string) []string {
		if name == "code" {
			return []string{"One-time code", ""}
		}
		return nil
	})
	b, _ := json.Marshal(out)
	want := `{"code":"[redacted]","environment":"prod","nested":{"card":"[redacted]","list":["[redacted]"]},"password":"[redacted]"}`
	if string(b) != want {
		t.Errorf("HideFields = %s, want %s", b, want)
	}
	if strings.Join(paths, " ") != "code nested.card nested.list.0 password" {
		t.Errorf("paths = %q", paths)
	}
	if in["password"] != "hunter2!" {
		t.Error("HideFields changed its input")
	}
}

func TestHideMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"bob","password":"hunter2!","n":{"ssn":"123-45-6789"},"credentials":{"a":1}}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"bob","password":"[redacted]","n":{"ssn":"[redacted]"},"credentials":"[redacted]"}}}`},
		// A 2025-11-25 answer.
		{`{"jsonrpc":"2.0","id":2,"result":{"action":"accept","content":{"pin": 1234 ,"otp_code":"123456","env":"prod"}}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"action":"accept","content":{"pin": "[redacted]" ,"otp_code":"[redacted]","env":"prod"}}}`},
		// A 2026-07-28 answer, its key spelled with escapes.
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","inputResponses":{"k":{"action":"accept","content":{"pass\u0077ord":"s3cret-pass"}}}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","inputResponses":{"k":{"action":"accept","content":{"pass\u0077ord":"[redacted]"}}}}}`},
		// A result's text is the server's, not an answer.
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"password"}]}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"password"}]}}`},
	} {
		got, _ := credential.HideMessage([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("HideMessage(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	got, _ := credential.HidePart("params", []byte(`{"name":"x","arguments":{"api_key":"k-123456"}}`))
	if string(got) != `{"name":"x","arguments":{"api_key":"[redacted]"}}` {
		t.Errorf("HidePart = %s", got)
	}
}

// A reader that remembers the keys that are no plain words hides what
// HideMessage hides, the first time and every time after.
func TestNamesHideMessage(t *testing.T) {
	names := credential.NewNames()
	for range 2 {
		for _, m := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"s":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"vendor/apiKey":"k-123456","a/b":"c","x2/password":"hunter2!"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"p4ssw0rd":"hunter2!","n/a":"4111111111111111"}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"action":"accept","content":{"otp/code":"123456","env":"prod"}}}`,
		} {
			want, wantSecrets := credential.HideMessage([]byte(m))
			got, gotSecrets := names.HideMessage([]byte(m))
			if string(got) != string(want) || !slices.Equal(gotSecrets, wantSecrets) {
				t.Errorf("Names.HideMessage(%s)\n = %s %q\nwant %s %q", m, got, gotSecrets, want, wantSecrets)
			}
		}
	}
}

func FuzzHideMessage(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2!","n":[{"x":"4111111111111111"}]}}}`))
	f.Add([]byte(`{"result":{"action":"accept","content":{"pin":{"a":[1,2]},"b":"123-45-6789"}}}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		out, _ := credential.HideMessage(msg)
		if json.Valid(msg) && !json.Valid(out) {
			t.Fatalf("HideMessage(%s) = %s, not JSON", msg, out)
		}
	})
}

package fromcall_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/fromcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that asked for a password, a PIN, a one-time code and a card
// number, and a call with a token among its arguments: the script the
// session is recorded as holds none of them, says where each was, still
// parses, and is its owner's alone.
func TestRecordHidesSecrets(t *testing.T) {
	var log exchange.Log
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"user":     map[string]any{"type": "string"},
		"password": map[string]any{"type": "string"},
		"pin":      map[string]any{"type": "string"},
		"code":     map[string]any{"type": "string", "title": "One-time code"},
		"card":     map[string]any{"type": "string"},
	}}
	q := log.Add(exchange.Entry{Method: "tools/call", Name: "login", Key: "login", Round: 1,
		Params: &mcp.ElicitParams{Mode: "form", Message: "Sign in", RequestedSchema: schema},
		Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"user": "bob", "password": "hunter2-pass",
			"pin": "8642", "code": "913572", "card": "4111 1111 1111 1111"}}})
	step := fromcall.Step{Method: "tools/call", Name: "login", Args: map[string]any{"github_token": "not-a-known-form-1", "repo": "x/y", "note": "ghp_0123456789abcdef0123"},
		Questions: []exchange.Entry{q}, Result: toolText("signed in")}
	path := filepath.Join(t.TempDir(), "login.mcp")
	if err := fromcall.Append(path, nil, step); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	t.Logf("script:\n%s", src)
	for _, secret := range []string{"hunter2-pass", "8642", "913572", "4111", "not-a-known-form-1", "ghp_"} {
		if strings.Contains(src, secret) {
			t.Errorf("the script holds %q", secret)
		}
	}
	for _, want := range []string{
		`# the answer: "card", "code", "password", "pin" hidden (a secret); write the value in place of [redacted] before replaying`,
		`# the arguments: "github_token", "note" hidden (a secret); write the value in place of [redacted] before replaying`,
		`"user":"bob"`, `repo:"x/y"`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the script lacks %s", want)
		}
	}
	if _, err := script.ParseFile("login.mcp", b); err != nil {
		t.Errorf("the script does not parse: %v", err)
	}
	if st, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("the script's mode is %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

package login_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
)

// taintTokens rewrites the token endpoint's answers: every access token
// gets bad appended.
func taintTokens(bad string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != authserver.TokenPath {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				if tok, ok := m["access_token"].(string); ok {
					m["access_token"] = tok + bad
					body, _ = json.Marshal(m)
				}
			}
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

// A token with a control character in it (CR, LF, ESC, a C1 control) is
// refused before it is used or cached, with the reason: by a browser login
// and a machine's alike.
func TestTokenWithControlCharactersIsRefused(t *testing.T) {
	for _, c := range []struct{ bad, what string }{
		{"\r\nX-Injected: 1", "a control character (CR)"},
		{"\n", "a control character (LF)"},
		{"\x1b[2J", "a control character (ESC)"},
		{"\u0085", "a control character (U+0085)"},
		{"\x00", "a control character (0x00)"},
		{"é", "a character outside printable ASCII"},
	} {
		server, _ := serversBehind(t, authserver.Options{Clients: map[string]string{"robot": "s3cret"}}, taintTokens(c.bad))
		for _, s := range []login.Settings{{}, {ClientCredentials: true, ClientID: "robot", ClientSecret: "s3cret"}} {
			dir := filepath.Join(t.TempDir(), "tokens")
			l, out := newLogin(dir, s, &person{user: "alice"})
			_, err := call(t, l, server, "whoami", nil)
			if err == nil || !strings.Contains(err.Error(), "issued an access token with "+c.what) || !strings.Contains(err.Error(), "refused before caching") {
				t.Errorf("%q (machine %v): %v, want the token refused naming %s\n%s", c.bad, s.ClientCredentials, err, c.what, out)
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
				t.Errorf("%q: cached %v", c.bad, files)
			}
		}
	}
	// A cache file that holds one is not a login.
	good := `{"server":"http://127.0.0.1:9/mcp","identity":"default","grant":"authorization_code","access_token":"abc","token_type":"Bearer"}`
	if _, err := login.DecodeEntry([]byte(good)); err != nil {
		t.Fatalf("a good entry: %v", err)
	}
	bad := bytes.Replace([]byte(good), []byte(`"abc"`), []byte(`"abc\u001b[2J"`), 1)
	if _, err := login.DecodeEntry(bad); err == nil || !strings.Contains(err.Error(), "ESC") {
		t.Errorf("a cached token with ESC: %v", err)
	}
}

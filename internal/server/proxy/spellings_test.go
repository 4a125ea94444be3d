package proxy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// echoServer answers every request with a result whose text is what
// spell makes of the request: a server that echoes the client's
// credentials back, in whatever spelling.
func echoServer(spell func(r *http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &m)
		text, _ := json.Marshal(spell(r))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, m.ID, text)
	})
}

// A credential the client sends reaches the server, and the recording
// holds it in no spelling the server echoes it in, nor in the request's
// path.
func TestCredentialsInOtherSpellings(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`
	for _, c := range []struct {
		name   string
		path   string
		header http.Header
		echo   func(r *http.Request) string
		secret []string // what the recording must not hold
	}{{
		name:   "a query parameter after a semicolon",
		path:   "/mcp?x=1;api_key=semi-secret-77",
		echo:   func(r *http.Request) string { return "query " + r.URL.RawQuery },
		secret: []string{"semi-secret-77"},
	}, {
		name:   "a Basic credential, decoded",
		header: http.Header{"Authorization": {"Basic YWxpY2U6aHVudGVyMlBhc3M="}},
		echo: func(r *http.Request) string {
			u, p, _ := r.BasicAuth()
			return "hello " + u + ", your password is " + p
		},
		secret: []string{"hunter2Pass"},
	}, {
		name:   "cookie values net/http does not parse",
		header: http.Header{"Cookie": {`a=1; sess=bad\slash999; q="quoted\"inside88"`}},
		echo: func(r *http.Request) string {
			var vs []string
			for _, c := range strings.Split(r.Header.Get("Cookie"), ";") {
				_, v, _ := strings.Cut(c, "=")
				vs = append(vs, strings.Trim(v, `"`))
			}
			return "your cookies: " + strings.Join(vs, " ")
		},
		secret: []string{"slash999", "inside88"},
	}, {
		name:   "a bearer token in base64",
		header: http.Header{"Authorization": {"Bearer opaque-Tok3n-value"}},
		echo: func(r *http.Request) string {
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			return "token " + base64.StdEncoding.EncodeToString([]byte(tok)) + " claims " + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"`+tok+`"}`))
		},
		secret: []string{base64.StdEncoding.EncodeToString([]byte("opaque-Tok3n-value")), base64.RawURLEncoding.EncodeToString([]byte(`"opaque-Tok3n-value`))[4:20]},
	}} {
		t.Run(c.name, func(t *testing.T) {
			var reached bool
			r := newRig(t, echoServer(func(req *http.Request) string {
				reached = true
				return c.echo(req)
			}), nil)
			req, _ := http.NewRequest("POST", r.proxy.URL+c.path, strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			for k, vs := range c.header {
				req.Header[k] = vs
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if !reached || resp.StatusCode != 200 {
				t.Fatalf("the request did not pass: %d", resp.StatusCode)
			}
			for _, s := range c.secret {
				if strings.Contains(r.file.String(), s) {
					t.Errorf("the recording holds %q:\n%s", s, r.file.String())
				}
			}
		})
	}
}

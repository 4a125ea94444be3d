package ui

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/interactive"
	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// heard puts msg in the page's message log as observe does.
func heard(t *testing.T, s *Server, c *conn, sent bool, msg jsonrpc.Message) {
	t.Helper()
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.msgs.add(s.describe(c, sent, msg, b))
	s.mu.Unlock()
}

func request(t *testing.T, id int64, method, params string) *jsonrpc.Request {
	t.Helper()
	rid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		t.Fatal(err)
	}
	return &jsonrpc.Request{ID: rid, Method: method, Params: []byte(params)}
}

func response(t *testing.T, id int64, result string) *jsonrpc.Response {
	t.Helper()
	rid, _ := jsonrpc.MakeID(float64(id))
	return &jsonrpc.Response{ID: rid, Result: []byte(result)}
}

// get asks the guarded handler for the page's path (its address: the
// token, then path).
func get(t *testing.T, s *Server, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", s.at(path), nil)
	req.Host = "127.0.0.1:8080"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// The message log says each message's direction, kind and method (an
// answer its request's, with the time it took), filters by direction and
// method, and serves each message alone as JSON; a password the client
// sent, its echo by the server, a header's token and a requestState never
// show, in the page or in the raw message.
func TestMessageLogFiltersAndHides(t *testing.T) {
	s, h := guarded(t)
	now := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	s.opts.Now = func() time.Time { now = now.Add(5 * time.Millisecond); return now }
	const (
		password = "correct-horse-battery-staple"
		token    = "tok_live_abcdefghijklmnopqrstuvwxyz"
		state    = "STATE-abcdefghijklmnopqrstuvwxyz0123456789"
	)
	s.secrets().add(token) // as watch adds a header's
	c := &conn{}
	heard(t, s, c, true, request(t, 1, "tools/list", `{}`))
	heard(t, s, c, false, response(t, 1, `{"tools":[]}`))
	heard(t, s, c, true, request(t, 2, "tools/call", `{"name":"signin","arguments":{"user":"alice","password":"`+password+`"}}`))
	heard(t, s, c, false, response(t, 2, `{"content":[{"type":"text","text":"signed in with `+password+` and `+token+`"}],"requestState":"`+state+`"}`))
	heard(t, s, c, false, &jsonrpc.Request{Method: "notifications/message", Params: []byte(`{"level":"info","data":"hi"}`)})

	page := func(path string) string {
		t.Helper()
		rec := get(t, s, h, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		body := rec.Body.String()
		for _, secret := range []string{password, token, state} {
			if strings.Contains(body, secret) {
				t.Errorf("%s shows the secret %q:\n%s", path, secret, body)
			}
		}
		return body
	}
	all := page("/log")
	for _, want := range []string{"Showing 5 of 5 messages", "client → server</span> request tools/call id 2", "server → client</span> response tools/call id 2", "took 5ms", "notification notifications/message", `href="/secret-token/log/4"`, "[redacted]"} {
		if !strings.Contains(all, want) {
			t.Errorf("the log does not show %q:\n%s", want, all)
		}
	}
	sent := page("/log?dir=sent")
	if !strings.Contains(sent, "Showing 2 of 5") || strings.Contains(sent, "server → client</span>") {
		t.Errorf("the messages sent:\n%s", sent)
	}
	calls := page("/log?method=tools%2Fcall&dir=received")
	if !strings.Contains(calls, "Showing 1 of 5") || !strings.Contains(calls, "response tools/call id 2") {
		t.Errorf("the answers of tools/call:\n%s", calls)
	}

	rec := get(t, s, h, "/log/4")
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("raw message served as %q, nosniff %q", ct, rec.Header().Get("X-Content-Type-Options"))
	}
	raw := rec.Body.String()
	if !strings.Contains(raw, `"requestState"`) || strings.Contains(raw, state) || strings.Contains(raw, password) || strings.Contains(raw, token) {
		t.Errorf("raw message 4: %s", raw)
	}
	if raw3 := get(t, s, h, "/log/3").Body.String(); !strings.Contains(raw3, `"password":"[redacted]"`) || !strings.Contains(raw3, `"user":"alice"`) {
		t.Errorf("raw message 3: %s", raw3)
	}
	if rec := get(t, s, h, "/log/99"); rec.Code != http.StatusNotFound {
		t.Errorf("a message the log does not keep: %d", rec.Code)
	}
}

// After a refused answer the form shows again what the person entered,
// but for a field that looks like it asks for a secret.
func TestRefusedAnswerForgetsSecrets(t *testing.T) {
	fields := []*interactive.Field{{Name: "user"}, {Name: "password", Warning: "looks like a secret"}}
	vals := []interactive.Value{{Text: "alice"}, {Text: "hunter2-hunter2"}}
	got := withoutSecrets(fields, vals)
	if got[0].Text != "alice" || got[1].Text != "" || vals[1].Text != "hunter2-hunter2" {
		t.Errorf("withoutSecrets = %+v (from %+v)", got, vals)
	}
}

// A connection's credentials (a header's token, a key in the URL, a
// secret on the command line) are hidden from the page from the start,
// and go to its recording.
func TestWatchHidesTheTargetsCredentials(t *testing.T) {
	s, _ := guarded(t)
	const header, key, flag = "tok_live_abcdefgh12345678", "key-abcdefgh12345678", "pw-abcdefgh12345678"
	opts := &session.Options{Target: &target.Target{URL: "http://127.0.0.1:1/mcp?api_key=" + key, Headers: []string{"Authorization: Bearer " + header}}}
	secrets := s.watch(&conn{}, Target{URL: opts.Target.URL}, opts)
	cmd := &session.Options{Target: &target.Target{Command: "server --password " + flag}}
	secrets = append(secrets, s.watch(&conn{}, Target{Command: cmd.Target.Command}, cmd)...)
	page := s.secrets().hide("echo " + header + " " + key + " " + flag)
	for _, x := range []string{header, key, flag} {
		if strings.Contains(page, x) {
			t.Errorf("the page shows %q: %s", x, page)
		}
		if !contains(secrets, x) {
			t.Errorf("the recording is not told to hide %q (%q)", x, secrets)
		}
	}
}

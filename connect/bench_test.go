package connect

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/keys"
)

// interleave runs subject and baseline alternately in one loop, so that both see the
// same machine load, and reports each one's time per operation and their ratio
// (x-baseline).
func interleave(b *testing.B, subject, baseline func()) {
	b.Helper()
	var ts, tb time.Duration
	for b.Loop() {
		t0 := time.Now()
		subject()
		t1 := time.Now()
		baseline()
		t2 := time.Now()
		ts += t1.Sub(t0)
		tb += t2.Sub(t1)
	}
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "subject-ns/op")
	b.ReportMetric(float64(tb.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(ts)/float64(tb), "x-baseline")
}

func benchConnector(b *testing.B) *Connector {
	c, err := New(&Options{
		BaseURL: "http://127.0.0.1:1/connect", Keys: []keys.Key{testKey}, BrowserAuth: headerAuth{},
		Store:     tokenstore.NewMemory(),
		Providers: []Provider{{Name: "github", OAuth2: oauthConfig("http://127.0.0.1:2/a", "http://127.0.0.1:2/t")}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// Checking a link against one HMAC-SHA256 over the same bytes: the cost of parsing,
// decoding and the claims checks on top of the one MAC a link needs anyway.
func BenchmarkLinkCheck(b *testing.B) {
	c := benchConnector(b)
	link, _ := c.Link("alice", "github")
	u, _ := url.Parse(link)
	tok := u.Query().Get("t")
	key := c.keys.signing.link
	interleave(b, func() {
		if _, _, err := c.parseLinkToken(tok, "github"); err != nil {
			b.Fatal(err)
		}
	}, func() {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(tok))
		_ = m.Sum(nil)
	})
}

// The whole link page (link check, browser user check, page) against a handler that
// writes a fixed page of the same size: what the checks add to serving the page.
func BenchmarkLinkPage(b *testing.B) {
	c := benchConnector(b)
	link, _ := c.Link("alice", "github")
	u, _ := url.Parse(link)
	req := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
	req.AddCookie(&http.Cookie{Name: "test_user", Value: "alice"})
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d", rec.Code)
	}
	fixed := rec.Body.Bytes()
	static := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(fixed)
	})
	interleave(b, func() {
		c.ServeHTTP(httptest.NewRecorder(), req)
	}, func() {
		static.ServeHTTP(httptest.NewRecorder(), req)
	})
}

package login_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/login"
	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
)

// seen records what the requests to the servers carried.
type seen struct {
	mu       sync.Mutex
	requests []string // "METHOD PATH scheme proof?"
}

func (s *seen) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		proof := "-"
		if r.Header.Get("DPoP") != "" {
			proof = "proof"
		}
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path+" "+scheme+" "+proof)
		s.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (s *seen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// dpopServers is servers with what the requests carried recorded.
func dpopServers(t *testing.T, opts authserver.Options) (string, *authserver.Server, *seen) {
	t.Helper()
	rec := &seen{}
	server, as := serversBehind(t, opts, rec.wrap)
	return server, as, rec
}

func TestDPoPLogin(t *testing.T) {
	for _, nonce := range []bool{false, true} {
		name := "no nonce"
		if nonce {
			name = "nonce"
		}
		t.Run(name, func(t *testing.T) {
			server, as, rec := dpopServers(t, authserver.Options{DPoP: true, DPoPNonce: nonce})
			dir := t.TempDir()
			l, out := newLogin(dir, login.Settings{}, &person{user: "alice"})
			if got, err := call(t, l, server, "whoami", nil); err != nil || got != "alice (scopes: mcp)" {
				t.Fatalf("whoami: %q, %v\n%s", got, err, out)
			}
			e, err := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
			if err != nil || e == nil || e.TokenType != "DPoP" || e.DPoPKey == "" {
				t.Fatalf("cached login %v: want a DPoP token with its key", err)
			}
			// Every token request and every request with the token was
			// proved; the token went with the DPoP scheme, never Bearer.
			for _, r := range rec.list() {
				if strings.HasPrefix(r, "POST /token") && !strings.HasSuffix(r, "proof") {
					t.Errorf("a token request without a proof: %s", r)
				}
				if strings.Contains(r, " Bearer ") || (strings.Contains(r, " DPoP ") && !strings.HasSuffix(r, "proof")) {
					t.Errorf("a request to the server: %s", r)
				}
			}
			refusals := as.Refusals()
			nonces := 0
			for _, r := range refusals {
				if r == authserver.ErrNonce.Error() {
					nonces++
				} else {
					t.Errorf("a proof was refused: %s", r)
				}
			}
			if nonce && nonces != 2 {
				t.Errorf("%d nonce challenges (%q): want one from each server, then the remembered nonces", nonces, refusals)
			}
			// The next run uses the cached login and its key.
			nobody := &person{user: "mallory"}
			l2, out2 := newLogin(dir, login.Settings{}, nobody)
			if got, err := call(t, l2, server, "whoami", nil); err != nil || got != "alice (scopes: mcp)" || nobody.opened.Load() != 0 {
				t.Fatalf("cached: %q, %v, browser opened %d times\n%s", got, err, nobody.opened.Load(), out2)
			}
		})
	}
}

// A server without DPoP sees exactly the Bearer login it saw before.
func TestBearerWhereDPoPIsNotOffered(t *testing.T) {
	server, _, rec := dpopServers(t, authserver.Options{})
	dir := t.TempDir()
	l, out := newLogin(dir, login.Settings{}, &person{user: "alice"})
	if _, err := call(t, l, server, "whoami", nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, r := range rec.list() {
		if strings.HasSuffix(r, "proof") || strings.Contains(r, " DPoP ") {
			t.Errorf("DPoP to a server that does not offer it: %s", r)
		}
	}
	if e, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity); e == nil || e.DPoPKey != "" {
		t.Errorf("cached login %+v: want a Bearer one without a key", e)
	}
}

func TestDPoPRefreshProvesTheSameKey(t *testing.T) {
	server, as, _ := dpopServers(t, authserver.Options{DPoP: true, TokenTTL: time.Minute})
	dir := t.TempDir()
	l, out := newLogin(dir, login.Settings{}, &person{user: "alice"})
	if _, err := call(t, l, server, "whoami", nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	// Twenty seconds before expiry (within the proofs' window of the
	// server's clock) the token is refreshed with a proof of the same key.
	nobody := &person{user: "mallory"}
	l2, out2 := newLogin(dir, login.Settings{}, nobody)
	l2.Now = func() time.Time { return before.Expiry.Add(-20 * time.Second) }
	if got, err := call(t, l2, server, "whoami", nil); err != nil || got != "alice (scopes: mcp)" {
		t.Fatalf("after the clock moved: %q, %v\n%s", got, err, out2)
	}
	after, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if g := as.Grants(); g[len(g)-1] != "refresh_token" || after.AccessToken == before.AccessToken || after.DPoPKey != before.DPoPKey || after.TokenType != "DPoP" {
		t.Fatalf("token requests %v: want a refresh to a DPoP token bound to the same key", g)
	}
	if r := as.Refusals(); len(r) != 0 {
		t.Fatalf("proofs refused: %q", r)
	}
}

// Servers that ask for a new nonce in answer to every proof: the token
// request is sent twice, then the login fails and says why.
func TestDPoPNonceChurnGivesUp(t *testing.T) {
	server, as, rec := dpopServers(t, authserver.Options{DPoP: true, DPoPNonceChurn: true})
	l, out := newLogin(t.TempDir(), login.Settings{}, &person{user: "alice"})
	_, err := call(t, l, server, "whoami", nil)
	if err == nil || !strings.Contains(err.Error(), "refused the DPoP nonce it supplied itself") {
		t.Fatalf("err %v: want the nonce refusal\n%s", err, out)
	}
	tokenRequests := 0
	for _, r := range rec.list() {
		if strings.HasPrefix(r, "POST /token") {
			tokenRequests++
		}
	}
	if tokenRequests != 2 || len(as.Grants()) != 2 {
		t.Fatalf("%d token requests: want 2 (one retry with the nonce)", tokenRequests)
	}
}

// The token cache keeps the key with the token, readable by the user
// only, and refuses a DPoP token without its key.
func TestDPoPKeyIsCachedPrivately(t *testing.T) {
	server, _, _ := dpopServers(t, authserver.Options{DPoP: true})
	dir := t.TempDir()
	l, out := newLogin(dir, login.Settings{}, &person{user: "alice"})
	if _, err := call(t, l, server, "whoami", nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	st, err := os.Stat(files[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache file mode %v, %v: want 0600", st.Mode(), err)
	}
	e, _ := (&login.Cache{Dir: dir}).Load(server, login.DefaultIdentity)
	if strings.Contains(out.String(), e.DPoPKey) || strings.Contains(out.String(), e.AccessToken) {
		t.Errorf("the login printed its key or token:\n%s", out)
	}
}

// A 403 insufficient_scope in a DPoP challenge steps up as a Bearer one
// does, to a new DPoP-bound token.
func TestDPoPStepUp(t *testing.T) {
	server, as, _ := dpopServers(t, authserver.Options{DPoP: true})
	p := &person{user: "alice"}
	l, out := newLogin(t.TempDir(), login.Settings{}, p)
	if got, err := call(t, l, server, "admin", nil); err != nil || got != "alice (scopes: mcp admin)" || p.opened.Load() != 2 {
		t.Fatalf("admin: %q, %v, browser opened %d times: want a step-up\n%s", got, err, p.opened.Load(), out)
	}
	if r := as.Refusals(); len(r) != 0 {
		t.Fatalf("proofs refused: %q", r)
	}
}

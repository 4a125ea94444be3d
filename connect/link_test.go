package connect

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/internal/encoding/b64url"
	"github.com/askback/askback/keys"
)

func tokenOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("t")
}

func TestLinkTokenRoundTripAndRotation(t *testing.T) {
	f := newFixture(t)
	old := f.c
	link, err := old.Link("alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	tok := tokenOf(t, link)
	if _, _, err := old.parseLinkToken(tok, "github"); err != nil {
		t.Fatalf("own link refused: %v", err)
	}
	if _, _, err := old.parseLinkToken(tok, "gitlab"); err != errLinkProvider {
		t.Fatalf("link for github accepted for gitlab: %v", err)
	}

	// A new key first, the old one still verifying: old links stay valid, new links
	// are signed with the new key.
	newKey := keys.Key{ID: "k2", Secret: bytes.Repeat([]byte{2}, 32)}
	rotated, err := New(&Options{BaseURL: f.srv.URL + "/connect", Keys: []keys.Key{newKey, testKey}, BrowserAuth: headerAuth{},
		Store: tokenstore.NewMemory(), Providers: old.providers["github"].asSlice(), Now: f.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rotated.parseLinkToken(tok, "github"); err != nil {
		t.Fatalf("link of the previous key refused after rotation: %v", err)
	}
	fresh, _ := rotated.Link("alice", "github")
	if !strings.HasPrefix(tokenOf(t, fresh), "k2.") {
		t.Fatalf("new link not signed with the new key: %s", fresh)
	}
	// Once the old key is dropped, its links are refused.
	retired, _ := New(&Options{BaseURL: f.srv.URL + "/connect", Keys: []keys.Key{newKey}, BrowserAuth: headerAuth{},
		Store: tokenstore.NewMemory(), Providers: old.providers["github"].asSlice(), Now: f.clock.now})
	if _, _, err := retired.parseLinkToken(tok, "github"); err != errLinkSignature {
		t.Fatalf("link of a retired key: err = %v, want a signature error", err)
	}
}

func TestLinksDifferAndCarryNoUser(t *testing.T) {
	f := newFixture(t)
	a1, _ := f.c.Link("alice@example.com", "github")
	a2, _ := f.c.Link("alice@example.com", "github")
	if a1 == a2 {
		t.Fatal("two links for the same user are identical")
	}
	for _, l := range []string{a1, a2} {
		if strings.Contains(strings.ToLower(l), "alice") || strings.Contains(l, "example.com/") {
			t.Fatalf("link carries user data: %s", l)
		}
	}
	if _, err := f.c.Link("", "github"); err == nil {
		t.Fatal("link made without a user")
	}
}

func TestFlowCookieIsSealed(t *testing.T) {
	f := newFixture(t)
	fs := flowState{State: "s", Verifier: "verifier-secret", User: "alice", Expires: f.clock.now().Add(time.Minute).Unix()}
	v, err := f.c.sealFlow("github", fs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v, "verifier") || strings.Contains(v, "alice") {
		t.Fatal("sealed cookie is readable")
	}
	got, _, err := f.c.openFlow("github", v)
	if err != nil || *got != fs {
		t.Fatalf("openFlow = %+v, %v", got, err)
	}
	if _, _, err := f.c.openFlow("gitlab", v); err == nil {
		t.Fatal("a github flow cookie opened for gitlab")
	}
	raw := []byte(v)
	raw[len(raw)-3] ^= 1
	if _, _, err := f.c.openFlow("github", string(raw)); err == nil {
		t.Fatal("a changed cookie opened")
	}
	f.clock.advance(2 * time.Minute)
	if _, _, err := f.c.openFlow("github", v); err == nil {
		t.Fatal("an expired cookie opened")
	}
}

// otherSpellings returns spellings of the base64url text b64 that lenient
// decoders read as the same bytes: with line breaks, and with the unused low
// bits of the last character set.
func otherSpellings(b64 string) []string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	mid := len(b64) / 2
	out := []string{b64[:mid] + "\n" + b64[mid:], b64[:mid] + "\r\n" + b64[mid:], b64 + "\n"}
	if len(b64)%4 != 0 {
		last := strings.IndexByte(alphabet, b64[len(b64)-1])
		out = append(out, b64[:len(b64)-1]+string(alphabet[last|1]))
	}
	return out
}

// A link and a flow cookie pass in the one spelling the connector wrote, never
// in another spelling of the same bytes.
func TestOnlyCanonicalSpellingsPass(t *testing.T) {
	f := newFixture(t)
	link, err := f.c.Link("alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	tok := tokenOf(t, link)
	cut := strings.LastIndexByte(tok, '.')
	for _, sig := range otherSpellings(tok[cut+1:]) {
		if _, _, err := f.c.parseLinkToken(tok[:cut+1]+sig, "github"); err == nil {
			t.Errorf("link with signature spelled %q accepted", sig)
		}
	}
	v, err := f.c.sealFlow("github", flowState{State: "s", Verifier: "v", User: "alice", Expires: f.clock.now().Add(time.Minute).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	kid, body, _ := strings.Cut(v, ".")
	for _, b := range otherSpellings(body) {
		if _, _, err := f.c.openFlow("github", kid+"."+b); err == nil {
			t.Errorf("flow cookie spelled %q accepted", b)
		}
	}
}

func FuzzParseLinkToken(f *testing.F) {
	fx := newFixtureF(f)
	// A fixed, validly signed token (the same in every fuzzing process).
	seed, err := signLink(fx.keys.signing, linkClaims{Provider: "github", UserHash: fx.userHash(fx.keys.signing, "alice"),
		Expires: time.Now().Add(24 * time.Hour).Truncate(24 * time.Hour).Unix(), Nonce: "bm9uY2U"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add("k1..")
	f.Add("k1.e30.AAAA")
	f.Add("k1.eyJwIjoiZ2l0aHViIn0.")
	f.Fuzz(func(t *testing.T, s string) {
		cl, k, err := fx.parseLinkToken(s, "github")
		if err != nil {
			return
		}
		// Only tokens made with the key can pass: a mutation of the seed never does,
		// unless it is the seed itself.
		if s != seed {
			t.Fatalf("accepted a token that the connector did not sign: %q -> %+v", s, cl)
		}
		if k == nil || cl.Provider != "github" {
			t.Fatalf("accepted token without key or provider: %+v", cl)
		}
	})
}

func FuzzOpenFlow(f *testing.F) {
	fx := newFixtureF(f)
	want := flowState{State: "s", Verifier: "v", User: "alice", Expires: time.Now().Add(24 * time.Hour).Truncate(24 * time.Hour).Unix()}
	good, _ := fx.sealFlow("github", want)
	f.Add(good)
	f.Add("k1.")
	f.Add("k1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add(strings.Repeat("k", 3000))
	f.Fuzz(func(t *testing.T, s string) {
		fs, _, err := fx.openFlow("github", s)
		if err != nil {
			return
		}
		// Each fuzzing process seals good anew (a random nonce), so a cookie
		// of another process opens too: what opens must be what was sealed,
		// in the one spelling of its bytes.
		id, body, _ := strings.Cut(s, ".")
		raw, derr := b64url.Decode(body)
		if *fs != want || id != testKey.ID || derr != nil || b64url.Encode(raw) != body {
			t.Fatalf("opened a cookie that the connector did not seal, or not in its spelling: %q -> %+v", s, fs)
		}
	})
}

// newFixtureF is a connector for fuzz targets: no servers, fixed key.
func newFixtureF(f *testing.F) *Connector {
	c, err := New(&Options{
		BaseURL: "http://127.0.0.1:1/connect", Keys: []keys.Key{testKey}, BrowserAuth: headerAuth{},
		Store:     tokenstore.NewMemory(),
		Providers: []Provider{{Name: "github", OAuth2: oauthConfig("http://127.0.0.1:2/a", "http://127.0.0.1:2/t")}},
	})
	if err != nil {
		f.Fatal(err)
	}
	return c
}

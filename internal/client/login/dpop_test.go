package login

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askback/askback/internal/testsupport/fixtures/authserver"
	"golang.org/x/oauth2"
)

// claimsOf decodes a proof's header and claims without checking it.
func claimsOf(t *testing.T, proof string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		t.Fatalf("proof %q is not a JWT", proof)
	}
	for i, v := range []*map[string]any{&header, &claims} {
		data, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil || json.Unmarshal(data, v) != nil {
			t.Fatalf("proof part %d does not decode: %v", i, err)
		}
	}
	return header, claims
}

func TestProofIsWellFormedAndVerifies(t *testing.T) {
	key, err := newProofKey()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("HTTPS://MCP.Example.com/mcp/v1?session=abc#frag")
	now := time.Now()
	proof, err := key.proof(http.MethodPost, u, "the-access-token", "server-nonce", now)
	if err != nil {
		t.Fatal(err)
	}
	header, claims := claimsOf(t, proof)
	jwk, _ := header["jwk"].(map[string]any)
	if header["typ"] != "dpop+jwt" || header["alg"] != "ES256" || jwk == nil || jwk["d"] != nil || jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
		t.Errorf("header %v: want typ dpop+jwt, alg ES256, a public EC P-256 jwk", header)
	}
	want := map[string]any{"htm": "POST", "htu": "https://mcp.example.com/mcp/v1", "iat": float64(now.Unix()),
		"ath": accessTokenHash("the-access-token"), "nonce": "server-nonce"}
	for k, v := range want {
		if claims[k] != v {
			t.Errorf("claim %s = %v, want %v", k, claims[k], v)
		}
	}
	// ath is base64url(SHA-256(token)), RFC 9449 §4.2.
	if got := accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"); got != "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo" {
		t.Errorf("ath of the RFC's example token = %s", got)
	}
	// The fixture's checker, written apart, verifies the signature with
	// the jwk and every claim.
	req := httptest.NewRequest(http.MethodPost, u.String(), nil)
	req.Header.Set("DPoP", proof)
	c := &authserver.ProofChecker{Nonce: "server-nonce"}
	p, err := c.Check(req, "https://mcp.example.com/mcp/v1", "the-access-token")
	if err != nil {
		t.Fatalf("the checker refuses the proof: %v", err)
	}
	if p.JKT != key.thumbprint {
		t.Errorf("thumbprint %s, the checker's %s", key.thumbprint, p.JKT)
	}
	// A second proof is another one.
	again, _ := key.proof(http.MethodPost, u, "the-access-token", "server-nonce", now)
	_, claims2 := claimsOf(t, again)
	if claims2["jti"] == claims["jti"] || claims["jti"] == "" {
		t.Errorf("jti %v then %v: want a fresh one each time", claims["jti"], claims2["jti"])
	}
	// At a token endpoint no token is named.
	_, claims3 := claimsOf(t, mustProof(t, key, http.MethodPost, "http://127.0.0.1:1/token", ""))
	if _, ok := claims3["ath"]; ok {
		t.Errorf("a token request's proof has ath: %v", claims3)
	}
	if _, ok := claims3["nonce"]; ok {
		t.Errorf("a proof without a nonce has one: %v", claims3)
	}
}

func mustProof(t *testing.T, key *proofKey, method, address, token string) string {
	t.Helper()
	u, _ := url.Parse(address)
	p, err := key.proof(method, u, token, "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProofKeyRoundTripAndNeverPrinted(t *testing.T) {
	key, err := newProofKey()
	if err != nil {
		t.Fatal(err)
	}
	enc := key.encode()
	back, err := parseProofKey(enc)
	if err != nil || back.thumbprint != key.thumbprint {
		t.Fatalf("parse(encode(key)): %v, thumbprint %v", err, back)
	}
	for _, s := range []string{fmt.Sprint(key), fmt.Sprintf("%v %+v %#v %s", key, key, key, key)} {
		d, _ := key.priv.Bytes()
		if strings.Contains(s, enc) || strings.Contains(s, fmt.Sprint(d)) || strings.Contains(s, fmt.Sprintf("%x", d)) {
			t.Errorf("a printed key shows its private part: %s", s)
		}
	}
	for _, bad := range []string{"", "not base64!", base64.RawURLEncoding.EncodeToString([]byte("junk")), enc + "="} {
		if _, err := parseProofKey(bad); err == nil {
			t.Errorf("parseProofKey(%q) accepted", bad)
		}
	}
}

func TestValidNonce(t *testing.T) {
	for n, want := range map[string]bool{
		"eyJ7S_zG.eyJH0-Z.HX4w-7v": true, "!#[]~": true,
		"": false, "a b": false, `a"b`: false, `a\b`: false, "a\x7f": false, "é": false,
		strings.Repeat("n", maxNonce): true, strings.Repeat("n", maxNonce+1): false,
	} {
		if validNonce(n) != want {
			t.Errorf("validNonce(%q) = %v", n, !want)
		}
	}
}

// A server that asks for a new nonce in answer to every proof gets the
// request twice, not more, and the client says why it gave up.
func TestNonceRetryIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		asks   challenge
		refuse func(w http.ResponseWriter)
	}{
		{"resource", resourceChallenge, func(w http.ResponseWriter) {
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
		}},
		{"token endpoint", tokenEndpointChallenge, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"use_dpop_nonce"}`))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			var nonces []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := n.Add(1)
				_, claims := claimsOf(t, r.Header.Get("DPoP"))
				nonce, _ := claims["nonce"].(string)
				nonces = append(nonces, nonce)
				w.Header().Set("DPoP-Nonce", fmt.Sprintf("nonce-%d", i))
				tc.refuse(w)
			}))
			defer srv.Close()
			key, _ := newProofKey()
			h := &Handler{l: &Login{}}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/x", strings.NewReader("body"))
			resp, err := h.sendProved(http.DefaultTransport, req, key, "", tc.asks)
			if resp != nil || err == nil || !strings.Contains(err.Error(), "refused the DPoP nonce it supplied itself") {
				t.Fatalf("resp %v, err %v: want the second challenge reported", resp, err)
			}
			if n.Load() != 2 || nonces[0] != "" || nonces[1] != "nonce-1" {
				t.Fatalf("%d requests with nonces %q: want 2, the second with the nonce the first answer gave", n.Load(), nonces)
			}
			// The nonce is remembered for the address: the next request
			// starts with the latest one.
			if got := h.nonce(htu(req.URL)); got != "nonce-2" {
				t.Errorf("remembered nonce %q, want nonce-2", got)
			}
		})
	}
}

// A token endpoint gets proofs when its server lists ES256, or when the
// resource demands DPoP; a server that lists only algorithms the tester
// lacks gets Bearer token requests, unless the resource demands DPoP,
// which is then an error naming them.
func TestWhenTokenRequestsAreProved(t *testing.T) {
	const endpoint = "https://as.example/token"
	doc := func(algs string) []byte {
		return []byte(`{"issuer":"https://as.example","token_endpoint":"https://AS.example/token?x=1","dpop_signing_alg_values_supported":` + algs + `}`)
	}
	for _, tc := range []struct {
		name     string
		docs     [][]byte
		resource bool
		want     bool
		err      string
	}{
		{name: "no metadata, no demand"},
		{name: "ES256 listed", docs: [][]byte{doc(`["RS256","ES256"]`)}, want: true},
		{name: "no DPoP listed", docs: [][]byte{[]byte(`{"token_endpoint":"` + endpoint + `"}`)}},
		{name: "others listed", docs: [][]byte{doc(`["RS256"]`)}},
		{name: "others listed, resource demands", docs: [][]byte{doc(`["RS256","PS256"]`)}, resource: true, err: "signs DPoP proofs with RS256, PS256 only"},
		{name: "resource demands in its metadata", docs: [][]byte{[]byte(`{"resource":"https://mcp.example/mcp","dpop_bound_access_tokens_required":true}`)}, want: true},
		{name: "not JSON", docs: [][]byte{[]byte(`{"token_endpoint":`)}},
	} {
		p := &proofing{resource: tc.resource}
		for _, d := range tc.docs {
			p.learn(d)
		}
		got, err := p.proves(endpoint)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: proves %v, %v; want %v, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
	// The endpoints one login learns of are bounded.
	p := &proofing{}
	for i := range 3 * maxEndpoints {
		p.learn(fmt.Appendf(nil, `{"token_endpoint":"https://as%d.example/token","dpop_signing_alg_values_supported":["ES256"]}`, i))
	}
	if len(p.endpoints) != maxEndpoints {
		t.Errorf("%d endpoints remembered, want at most %d", len(p.endpoints), maxEndpoints)
	}
}

// A DPoP token that no proof asked for is refused; a Bearer one is kept
// without a key.
func TestBindRefusesAnUnprovedDPoPToken(t *testing.T) {
	p, err := newProofing(nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &Entry{}
	if err := p.bind(e, &oauth2.Token{AccessToken: "a", TokenType: "DPoP"}); err == nil || !strings.Contains(err.Error(), "without a DPoP proof") {
		t.Fatalf("bind of an unproved DPoP token: %v", err)
	}
	if err := p.bind(e, &oauth2.Token{AccessToken: "a", TokenType: "Bearer"}); err != nil || e.DPoPKey != "" {
		t.Fatalf("bind of a Bearer token: %v, key %q", err, e.DPoPKey)
	}
	p.proved = true
	if err := p.bind(e, &oauth2.Token{AccessToken: "a", TokenType: "dpop"}); err != nil || e.DPoPKey == "" {
		t.Fatalf("bind of a proved DPoP token: %v, key kept %v", err, e.DPoPKey != "")
	}
}

// Metadata is read on its way: a document over the bound reaches the
// go-sdk whole and teaches nothing; responses that are not metadata are
// not read.
func TestMetadataIsReadOnItsWay(t *testing.T) {
	big := `{"token_endpoint":"https://as.example/token","dpop_signing_alg_values_supported":["ES256"],"pad":"` + strings.Repeat("x", maxMetadata) + `"}`
	small := `{"token_endpoint":"https://as.example/token","dpop_signing_alg_values_supported":["ES256"]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server/big":
			_, _ = w.Write([]byte(big))
		case "/.well-known/oauth-authorization-server":
			_, _ = w.Write([]byte(small))
		default:
			_, _ = w.Write([]byte(small)) // the same document elsewhere is not metadata
		}
	}))
	defer srv.Close()
	h := &Handler{l: &Login{}}
	client := h.authClient()
	for _, tc := range []struct {
		path, body string
		learns     bool
	}{
		{"/.well-known/oauth-authorization-server/big", big, false},
		{"/other", small, false},
		{"/.well-known/oauth-authorization-server", small, true},
	} {
		p := &proofing{}
		req, _ := http.NewRequestWithContext(withProofing(t.Context(), p), http.MethodGet, srv.URL+tc.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != tc.body {
			t.Errorf("%s: the body arrived changed (%d bytes of %d)", tc.path, len(body), len(tc.body))
		}
		if got, _ := p.proves("https://as.example/token"); got != tc.learns {
			t.Errorf("%s: learned %v, want %v", tc.path, got, tc.learns)
		}
	}
}

// A request whose body cannot be sent again is not retried: the
// challenge goes up as it came.
func TestNonceChallengeOfABodyThatCannotBeResent(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("DPoP-Nonce", "nonce-1")
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	key, _ := newProofKey()
	h := &Handler{l: &Login{}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("body")))
	resp, err := h.sendProved(http.DefaultTransport, req, key, "tok", resourceChallenge)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || n.Load() != 1 {
		t.Fatalf("resp %v, err %v, %d requests: want the challenge back after one request", resp, err, n.Load())
	}
	discard(resp)
}

// A challenge without a usable nonce is not answered with another proof.
func TestNonceChallengeWithoutANonce(t *testing.T) {
	for _, nonce := range []string{"", "a nonce with spaces", strings.Repeat("n", maxNonce+1)} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			if nonce != "" {
				w.Header().Set("DPoP-Nonce", nonce)
			}
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		key, _ := newProofKey()
		h := &Handler{l: &Login{}}
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("body"))
		_, err := h.sendProved(http.DefaultTransport, req, key, "tok", resourceChallenge)
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), "without giving a usable one") || n.Load() != 1 {
			t.Errorf("nonce %.20q: %v after %d requests: want a refusal after one", nonce, err, n.Load())
		}
	}
}

// A server that refuses a proof is not logged in to again (the next login
// would make the same proofs): the command ends with the server's reason.
func TestRefusedProofEndsWithTheReason(t *testing.T) {
	for _, tc := range []struct{ challenge, want string }{
		{`DPoP error="invalid_dpop_proof", error_description="htu is not https://mcp.example/mcp", algs="ES256"`, `the server refused the DPoP proof (htu is not https://mcp.example/mcp): giving up`},
		{`DPoP error="invalid_dpop_proof", algs="EdDSA RS256"`, `the server refused the DPoP proof (no reason given; it takes EdDSA RS256, mcp-tester signs with ES256): giving up`},
	} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			if !strings.HasPrefix(r.Header.Get("Authorization"), "DPoP ") || r.Header.Get("DPoP") == "" {
				t.Errorf("a request without the DPoP scheme and proof: %q", r.Header)
			}
			w.Header().Set("WWW-Authenticate", tc.challenge)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		key, _ := newProofKey()
		l := &Login{Cache: &Cache{Dir: t.TempDir()}}
		e := &Entry{Server: srv.URL + "/mcp", Identity: DefaultIdentity, Grant: GrantClientCredentials, AccessToken: "tok", TokenType: "DPoP", DPoPKey: key.encode()}
		if err := l.Cache.Save(e); err != nil {
			t.Fatal(err)
		}
		h, err := l.Handler(srv.URL + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer tok")
		_, err = h.Transport(http.DefaultTransport, false).RoundTrip(req)
		srv.Close()
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) || n.Load() != 1 {
			t.Errorf("%v after %d requests, want %q after one", err, n.Load(), tc.want)
		}
	}
}

// FuzzProofingLearn: metadata comes from servers; reading it on its way
// never panics, remembers a bounded number of endpoints, and proves only
// where ES256 is listed or the resource demands DPoP.
func FuzzProofingLearn(f *testing.F) {
	f.Add([]byte(`{"token_endpoint":"https://as.example/token","dpop_signing_alg_values_supported":["ES256"]}`))
	f.Add([]byte(`{"dpop_bound_access_tokens_required":true}`))
	f.Add([]byte(`{"token_endpoint":"%zz","dpop_signing_alg_values_supported":[]}`))
	f.Add([]byte(`{"token_endpoint":"https://as.example/token","dpop_signing_alg_values_supported":["RS256"]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := &proofing{}
		p.learn(data)
		p.learn(data)
		if len(p.endpoints) > maxEndpoints {
			t.Fatalf("%d endpoints", len(p.endpoints))
		}
		for endpoint, algs := range p.endpoints {
			got, err := p.proves(endpoint)
			want := slices.Contains(algs, proofAlg) || p.resource
			if got != want && err == nil {
				t.Fatalf("proves(%q) = %v with algorithms %q, resource %v", endpoint, got, algs, p.resource)
			}
		}
	})
}

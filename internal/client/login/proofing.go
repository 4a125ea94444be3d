package login

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// proofing is the DPoP side of one login (or one refresh): its key, and
// whether its token requests carry proofs. They do when the authorization
// server's metadata lists ES256 in dpop_signing_alg_values_supported, or
// the resource asks for DPoP (a DPoP challenge, or
// dpop_bound_access_tokens_required in its metadata); otherwise the login
// is the plain Bearer one. The metadata is read on its way to the go-sdk,
// which does the discovery.
type proofing struct {
	key *proofKey

	mu        sync.Mutex
	resource  bool                // the resource asks for DPoP
	endpoints map[string][]string // token endpoint → the algorithms its server's metadata lists
	forced    string              // a token endpoint that gets proofs whatever (a DPoP login's refresh)
	proved    bool                // a token request carried a proof
}

type proofingKey struct{}

func withProofing(ctx context.Context, p *proofing) context.Context {
	return context.WithValue(ctx, proofingKey{}, p)
}

func proofingFrom(ctx context.Context) *proofing {
	p, _ := ctx.Value(proofingKey{}).(*proofing)
	return p
}

// newProofing starts the DPoP side of a login after the server's refusal
// resp (nil for none), with a fresh key.
func newProofing(resp *http.Response) (*proofing, error) {
	key, err := newProofKey()
	if err != nil {
		return nil, err
	}
	p := &proofing{key: key}
	if resp != nil {
		ch, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		p.resource = findChallenge(ch, "dpop") != nil
	}
	return p, nil
}

// maxEndpoints bounds the token endpoints one login learns of.
const maxEndpoints = 8

// learn reads a metadata document: an authorization server's token
// endpoint and DPoP algorithms, a resource's demand for DPoP.
func (p *proofing) learn(data []byte) {
	var md struct {
		TokenEndpoint string   `json:"token_endpoint"`
		Algs          []string `json:"dpop_signing_alg_values_supported"`
		Required      bool     `json:"dpop_bound_access_tokens_required"`
	}
	if json.Unmarshal(data, &md) != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if md.Required {
		p.resource = true
	}
	u, err := url.Parse(md.TokenEndpoint)
	if err != nil || md.TokenEndpoint == "" || md.Algs == nil {
		return
	}
	endpoint := htu(u)
	if len(p.endpoints) < maxEndpoints || p.endpoints[endpoint] != nil {
		if p.endpoints == nil {
			p.endpoints = map[string][]string{}
		}
		p.endpoints[endpoint] = slices.Clone(md.Algs)
	}
}

// proves reports whether a token request to endpoint carries a proof; an
// error when the resource asks for DPoP and the authorization server
// takes none the tester can sign.
func (p *proofing) proves(endpoint string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if endpoint == p.forced {
		return true, nil
	}
	algs, listed := p.endpoints[endpoint]
	switch {
	case listed && slices.Contains(algs, proofAlg):
		return true, nil
	case listed && p.resource:
		return false, fmt.Errorf("the server asks for DPoP-bound tokens, but its authorization server signs DPoP proofs with %s only, and mcp-tester signs with %s", printable(strings.Join(algs, ", ")), proofAlg)
	case listed:
		return false, nil // DPoP with algorithms the tester lacks: Bearer
	}
	return p.resource, nil
}

// bind makes e a DPoP login when the token is DPoP-bound: it keeps the
// key that proved the token request. A DPoP token that no proof asked for
// is refused.
func (p *proofing) bind(e *Entry, tok *oauth2.Token) error {
	if !isDPoP(tok.TokenType) {
		return nil
	}
	p.mu.Lock()
	proved := p.proved
	p.mu.Unlock()
	if !proved {
		return fmt.Errorf("the authorization server issued a DPoP token to a token request without a DPoP proof: refused")
	}
	e.DPoPKey = p.key.encode()
	return nil
}

// authTransport carries the requests of a login to the authorization
// server and metadata documents: it reads the metadata on its way, and
// proves the token requests of a login that uses DPoP.
type authTransport struct {
	h    *Handler
	base http.RoundTripper
}

// authClient is the client of the handler's logins: the Login's, with the
// DPoP transport.
func (h *Handler) authClient() *http.Client {
	c := *h.l.client()
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &authTransport{h: h, base: base}
	return &c
}

// RoundTrip sends req and tells the login of the step it was.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.send(req)
	t.h.l.step(requestStep(req, resp, err))
	return resp, err
}

func (t *authTransport) send(req *http.Request) (*http.Response, error) {
	p := proofingFrom(req.Context())
	if p == nil {
		return t.base.RoundTrip(req)
	}
	if req.Method == http.MethodPost {
		prove, err := p.proves(htuString(req))
		if err != nil {
			return nil, err
		}
		if prove {
			p.mu.Lock()
			p.proved = true
			p.mu.Unlock()
			resp, err := t.h.sendProved(t.base, req, p.key, "", tokenEndpointChallenge)
			var en *errNonce
			if errors.As(err, &en) {
				return nil, fmt.Errorf("the authorization server at %s %s", htuString(req), en.why)
			}
			return resp, err
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !strings.HasPrefix(req.URL.Path, "/.well-known/") {
		return resp, err
	}
	if media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); media != "application/json" {
		return resp, nil
	}
	// Read the document on its way, and hand the same bytes on.
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), rest), rest}
	if err == nil && len(data) <= maxMetadata {
		p.learn(data)
	}
	return resp, nil
}

// maxMetadata bounds a metadata document read on its way.
const maxMetadata = 1 << 20

// htuString is the address a proof names for req.
func htuString(req *http.Request) string { return htu(req.URL) }

// findChallenge returns the parameters of the challenge of scheme (lower
// case), nil when there is none.
func findChallenge(cs []oauthex.Challenge, scheme string) map[string]string {
	for _, c := range cs {
		if c.Scheme == scheme {
			if c.Params == nil {
				return map[string]string{}
			}
			return c.Params
		}
	}
	return nil
}

// dpopParams returns the parameters of a response's DPoP challenge, nil
// when it has none.
func dpopParams(resp *http.Response) map[string]string {
	ch, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	return findChallenge(ch, "dpop")
}

// asBearer returns resp with its DPoP challenge spelled as a Bearer one
// when it has no Bearer challenge: the go-sdk reads the scope and the
// error (insufficient_scope) of Bearer challenges only.
func asBearer(resp *http.Response) *http.Response {
	ch, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if findChallenge(ch, "bearer") != nil || findChallenge(ch, "dpop") == nil {
		return resp
	}
	r := *resp
	r.Header = resp.Header.Clone()
	r.Header.Del("WWW-Authenticate")
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		if len(v) > 5 && strings.EqualFold(v[:5], "dpop ") {
			v = "Bearer " + v[5:]
		}
		r.Header.Add("WWW-Authenticate", v)
	}
	return &r
}

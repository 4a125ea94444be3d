package login

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DPoP (RFC 9449) binds a login's tokens to a key pair of the login's
// own: every token request and, when the token is DPoP-bound, every
// request to the server carries a proof, a JWT signed with the key that
// names the request (method and address) and, for the server, the token.
// A stolen token is useless without the key, which is kept in the token
// cache with the token and never leaves this machine.

// proofAlg is the one algorithm the tester signs DPoP proofs with.
const proofAlg = "ES256"

// proofKey is a login's DPoP key pair (P-256). It never prints its
// private half.
type proofKey struct {
	priv       *ecdsa.PrivateKey
	jwk        map[string]string // the public key, as the proof's jwk header
	thumbprint string            // RFC 7638 SHA-256 thumbprint, base64url
}

// newProofKey makes a fresh key pair.
func newProofKey() (*proofKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("make a DPoP key: %w", err)
	}
	return keyOf(priv)
}

// keyOf completes a proof key from its private key.
func keyOf(priv *ecdsa.PrivateKey) (*proofKey, error) {
	pub, err := priv.PublicKey.ECDH()
	if err != nil || priv.Curve != elliptic.P256() {
		return nil, errors.New("a DPoP key must be an EC P-256 key")
	}
	raw := pub.Bytes() // 0x04 || X || Y, 32 bytes each
	b64 := base64.RawURLEncoding.EncodeToString
	k := &proofKey{priv: priv, jwk: map[string]string{"kty": "EC", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:65])}}
	// RFC 7638: the required members in lexicographic order, no spaces.
	canonical := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":%q,"y":%q}`, k.jwk["x"], k.jwk["y"])
	sum := sha256.Sum256([]byte(canonical))
	k.thumbprint = b64(sum[:])
	return k, nil
}

// parseProofKey reads a key as encode wrote it.
func parseProofKey(s string) (*proofKey, error) {
	der, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errors.New("the DPoP key is not base64url")
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, errors.New("the DPoP key is not a PKCS #8 private key")
	}
	priv, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("the DPoP key is not an EC key")
	}
	return keyOf(priv)
}

// encode spells the private key for the token cache: PKCS #8, base64url.
func (k *proofKey) encode() string {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		panic("login: a P-256 key that cannot be marshalled: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(der)
}

// String names the key by its thumbprint only.
func (k *proofKey) String() string { return "DPoP key " + k.thumbprint }

// GoString names the key by its thumbprint only, so that %#v shows no
// private key either.
func (k *proofKey) GoString() string { return k.String() }

// proof returns a DPoP proof for one request: method and address (its
// query and fragment left out), a fresh jti, the time, the access token's
// hash (ath) when one is presented and the server's nonce when it gave
// one.
func (k *proofKey) proof(method string, u *url.URL, accessToken, nonce string, now time.Time) (string, error) {
	claims := jwt.MapClaims{
		"jti": rand.Text(),
		"htm": method,
		"htu": htu(u),
		"iat": now.Unix(),
	}
	if accessToken != "" {
		claims["ath"] = accessTokenHash(accessToken)
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = k.jwk
	s, err := t.SignedString(k.priv)
	if err != nil {
		return "", fmt.Errorf("sign a DPoP proof: %w", err)
	}
	return s, nil
}

// htu is a request's address as a DPoP proof names it: scheme, host and
// path, without query and fragment.
func htu(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p
}

// accessTokenHash is a DPoP proof's ath: the base64url SHA-256 of the
// access token.
func accessTokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// isDPoP reports whether a token type is DPoP.
func isDPoP(tokenType string) bool { return strings.EqualFold(tokenType, "DPoP") }

// maxNonce bounds a server's nonce; validNonce checks its characters
// (RFC 9449: 1*NQCHAR).
const maxNonce = 512

func validNonce(n string) bool {
	if n == "" || len(n) > maxNonce {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if c < 0x21 || c == 0x22 || c == 0x5c || c > 0x7e {
			return false
		}
	}
	return true
}

// maxNonces bounds how many servers' nonces a handler remembers.
const maxNonces = 32

// nonce returns the nonce the server at address last gave.
func (h *Handler) nonce(address string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.nonces[address]
}

// rememberNonce keeps the nonce a response gives, if any, for its
// address; it reports whether there was a usable one.
func (h *Handler) rememberNonce(address string, resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if !validNonce(n) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.nonces[address]; !ok && len(h.nonces) >= maxNonces {
		clear(h.nonces) // nonces are cheap to get again
	}
	if h.nonces == nil {
		h.nonces = map[string]string{}
	}
	h.nonces[address] = n
	return true
}

// challenge tells whether a response asks for the proof again with the
// nonce it gives.
type challenge func(*http.Response) bool

// errNonce is a use_dpop_nonce challenge that another proof cannot
// answer: the server gave no usable nonce, or refused the one it gave.
type errNonce struct{ why string }

func (e *errNonce) Error() string { return e.why }

// sendProved sends req with a fresh proof made with key (and the access
// token's hash, when token is not empty), and once more, with a new
// proof, when the server answers with a use_dpop_nonce challenge and a
// nonce. A challenge that cannot be answered is an *errNonce, its
// response discarded.
func (h *Handler) sendProved(base http.RoundTripper, req *http.Request, key *proofKey, token string, asks challenge) (*http.Response, error) {
	address := htu(req.URL)
	for attempt := 0; ; attempt++ {
		p, err := key.proof(req.Method, req.URL, token, h.nonce(address), h.l.now())
		if err != nil {
			return nil, err
		}
		r := req.Clone(req.Context())
		r.Header.Set("DPoP", p)
		if token != "" {
			r.Header.Set("Authorization", "DPoP "+token)
		}
		if attempt > 0 && req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		resp, err := base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		fresh := h.rememberNonce(address, resp)
		if !asks(resp) {
			return resp, nil
		}
		switch {
		case !fresh:
			discard(resp)
			return nil, &errNonce{"asks for a DPoP nonce (use_dpop_nonce) without giving a usable one in a DPoP-Nonce header: giving up"}
		case attempt > 0:
			discard(resp)
			return nil, &errNonce{"refused the DPoP nonce it supplied itself (use_dpop_nonce twice): giving up"}
		case req.GetBody == nil && req.Body != nil && req.Body != http.NoBody:
			// A body that cannot be sent again: the challenge goes up
			// as it is.
			return resp, nil
		}
		discard(resp)
	}
}

// tokenEndpointChallenge is an authorization server's use_dpop_nonce
// error (RFC 9449 §8): a 400 whose JSON error says so. The body is put
// back for whoever reads the response.
func tokenEndpointChallenge(resp *http.Response) bool {
	if resp.StatusCode != http.StatusBadRequest || resp.Body == nil {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	if err != nil || len(data) > maxErrorBody {
		return false
	}
	var e struct {
		Error string `json:"error"`
	}
	return json.Unmarshal(data, &e) == nil && e.Error == "use_dpop_nonce"
}

// maxErrorBody bounds the error document of a token endpoint read here.
const maxErrorBody = 64 << 10

// resourceChallenge is a resource server's use_dpop_nonce challenge (RFC
// 9449 §9): a 401 with WWW-Authenticate: DPoP error="use_dpop_nonce".
func resourceChallenge(resp *http.Response) bool {
	if resp.StatusCode != http.StatusUnauthorized {
		return false
	}
	return dpopParams(resp)["error"] == "use_dpop_nonce"
}

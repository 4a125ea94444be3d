package connect

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/askback/askback/internal/encoding/b64url"
)

// A link token is "<key id>.<payload>.<mac>", payload and mac in unpadded base64url. The
// payload names the provider, a keyed hash of the user (so the URL carries no user
// data), the expiry and a random nonce; the mac is HMAC-SHA256 over the key id and the
// payload. Nothing in it grants access: the page still requires the browser user to be
// the same user.
type linkClaims struct {
	Provider string `json:"p"`
	UserHash string `json:"u"`
	Expires  int64  `json:"e"`
	Nonce    string `json:"n"`
}

// maxLinkToken bounds what the parser reads from a URL.
const maxLinkToken = 512

var (
	errLinkMalformed = errors.New("the link is malformed")
	errLinkSignature = errors.New("the link's signature does not match")
	errLinkExpired   = errors.New("the link has expired")
	errLinkProvider  = errors.New("the link was made for another provider")
)

func (c *Connector) userHash(k *derivedKey, user string) string {
	return b64url.Encode(mac(k.user, user)[:16])
}

// newLinkToken signs a link token for user and provider, valid for the link TTL.
func (c *Connector) newLinkToken(user, provider string) (string, error) {
	k := c.keys.signing
	nonce := make([]byte, 12)
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("connect: random nonce: %w", err)
	}
	return signLink(k, linkClaims{
		Provider: provider,
		UserHash: c.userHash(k, user),
		Expires:  c.now().Add(c.linkTTL).Unix(),
		Nonce:    b64url.Encode(nonce),
	})
}

func signLink(k *derivedKey, cl linkClaims) (string, error) {
	payload, err := json.Marshal(cl)
	if err != nil {
		return "", fmt.Errorf("connect: encode link: %w", err)
	}
	p := b64url.Encode(payload)
	return k.id + "." + p + "." + b64url.Encode(mac(k.link, k.id, p)), nil
}

// parseLinkToken checks a link token's form, key, signature, expiry and provider and
// returns its claims and the key that signed it.
func (c *Connector) parseLinkToken(tok, provider string) (*linkClaims, *derivedKey, error) {
	p, k, err := c.verifyLink(tok)
	if err != nil {
		return nil, nil, err
	}
	cl, err := decodeLinkClaims(p)
	if err != nil {
		return nil, nil, err
	}
	if !c.now().Before(time.Unix(cl.Expires, 0)) {
		return nil, nil, errLinkExpired
	}
	if cl.Provider != provider {
		return nil, nil, errLinkProvider
	}
	return cl, k, nil
}

// verifyLink checks a link token's form, key and signature, and returns its
// payload (still encoded) and the key that signed it.
func (c *Connector) verifyLink(tok string) (string, *derivedKey, error) {
	if tok == "" || len(tok) > maxLinkToken {
		return "", nil, errLinkMalformed
	}
	kid, rest, ok := strings.Cut(tok, ".")
	if !ok {
		return "", nil, errLinkMalformed
	}
	p, sig, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(sig, ".") {
		return "", nil, errLinkMalformed
	}
	k, ok := c.keys.byID[kid]
	if !ok {
		// An unknown key id is treated like a bad signature: the key may have been
		// retired, or the link forged.
		return "", nil, errLinkSignature
	}
	gotMAC, err := b64url.Decode(sig)
	if err != nil {
		return "", nil, errLinkMalformed
	}
	if !hmac.Equal(gotMAC, mac(k.link, kid, p)) {
		return "", nil, errLinkSignature
	}
	return p, k, nil
}

// decodeLinkClaims decodes a link's payload p strictly (no unknown field,
// nothing after it) into claims that name a provider, a user and an expiry.
func decodeLinkClaims(p string) (*linkClaims, error) {
	raw, err := b64url.Decode(p)
	if err != nil {
		return nil, errLinkMalformed
	}
	var cl linkClaims
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cl); err != nil || dec.More() {
		return nil, errLinkMalformed
	}
	if cl.Provider == "" || cl.UserHash == "" || cl.Expires == 0 {
		return nil, errLinkMalformed
	}
	return &cl, nil
}

// Link returns the URL that connects user's account at provider: a page of this server
// that checks the browser user before it starts the provider's OAuth flow. It expires
// after [Options.LinkTTL]. It carries no user data and grants nothing by itself, but
// send it only to the user it was made for, through URL-mode elicitation.
func (c *Connector) Link(user, provider string) (string, error) {
	if user == "" {
		return "", errors.New("connect: no user: links are made for the user established by MCP authorization")
	}
	if _, err := c.provider(provider); err != nil {
		return "", err
	}
	tok, err := c.newLinkToken(user, provider)
	if err != nil {
		return "", err
	}
	return c.linkURL(provider) + "?" + url.Values{"t": {tok}}.Encode(), nil
}

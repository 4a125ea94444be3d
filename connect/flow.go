package connect

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/askback/askback/internal/encoding/b64url"
)

// flowState is what the browser carries, sealed, between the start of the provider's
// OAuth flow and its callback: the state parameter and PKCE verifier of this flow, the
// user it is for, and its expiry. Sealing (AES-256-GCM, the provider name as additional
// data) keeps the verifier secret and the rest unforgeable.
type flowState struct {
	State    string `json:"s"`
	Verifier string `json:"v"`
	User     string `json:"u"`
	Link     string `json:"l"` // nonce of the link that started the flow
	// Session is a keyed hash of the browser session that started the flow, when
	// BrowserAuth is a SessionBinder.
	Session string `json:"b,omitempty"`
	Expires int64  `json:"e"`
}

// maxFlowCookie bounds what the parser reads from a cookie.
const maxFlowCookie = 2048

var errFlowCookie = errors.New("the sign-in cookie is missing, expired or not valid")

func (c *Connector) cookieName(provider string) string { return "askback_connect_" + provider }

func (c *Connector) cookiePath(provider string) string {
	return c.base.EscapedPath() + "/" + provider + "/callback"
}

func (c *Connector) sealFlow(provider string, fs flowState) (string, error) {
	k := c.keys.signing
	plain, err := json.Marshal(fs)
	if err != nil {
		return "", fmt.Errorf("connect: encode flow: %w", err)
	}
	aead, err := newAEAD(k.cookie)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("connect: random nonce: %w", err)
	}
	sealed := aead.Seal(nonce, nonce, plain, []byte(k.id+"|"+provider))
	return k.id + "." + b64url.Encode(sealed), nil
}

// openFlow opens the flow cookie v for provider and checks the flow state
// in it: complete and not expired.
func (c *Connector) openFlow(provider, v string) (*flowState, *derivedKey, error) {
	plain, k, err := c.unsealFlow(provider, v)
	if err != nil {
		return nil, nil, err
	}
	var fs flowState
	if err := json.Unmarshal(plain, &fs); err != nil {
		return nil, nil, errFlowCookie
	}
	if fs.State == "" || fs.Verifier == "" || fs.User == "" {
		return nil, nil, errFlowCookie
	}
	if !c.now().Before(time.Unix(fs.Expires, 0)) {
		return nil, nil, errFlowCookie
	}
	return &fs, k, nil
}

// unsealFlow checks the form and key of the flow cookie v for provider and
// returns what it seals, and the key.
func (c *Connector) unsealFlow(provider, v string) ([]byte, *derivedKey, error) {
	if v == "" || len(v) > maxFlowCookie {
		return nil, nil, errFlowCookie
	}
	kid, body, ok := strings.Cut(v, ".")
	if !ok {
		return nil, nil, errFlowCookie
	}
	k, ok := c.keys.byID[kid]
	if !ok {
		return nil, nil, errFlowCookie
	}
	sealed, err := b64url.Decode(body)
	if err != nil {
		return nil, nil, errFlowCookie
	}
	aead, err := newAEAD(k.cookie)
	if err != nil {
		return nil, nil, err
	}
	if len(sealed) < aead.NonceSize()+aead.Overhead() {
		return nil, nil, errFlowCookie
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(kid+"|"+provider))
	if err != nil {
		return nil, nil, errFlowCookie
	}
	return plain, k, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("connect: cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

func (c *Connector) setFlowCookie(w http.ResponseWriter, provider, value string) {
	http.SetCookie(w, &http.Cookie{
		Name:     c.cookieName(provider),
		Value:    value,
		Path:     c.cookiePath(provider),
		MaxAge:   int(c.flowTTL / time.Second),
		HttpOnly: true,
		Secure:   c.base.Scheme == "https",
		// Lax: the cookie comes back on the provider's top-level redirect to the
		// callback, and on nothing a third-party page could send in the background.
		SameSite: http.SameSiteLaxMode,
	})
}

func (c *Connector) clearFlowCookie(w http.ResponseWriter, provider string) {
	http.SetCookie(w, &http.Cookie{
		Name:     c.cookieName(provider),
		Value:    "",
		Path:     c.cookiePath(provider),
		MaxAge:   -1,
		HttpOnly: true,
		Secure:   c.base.Scheme == "https",
		SameSite: http.SameSiteLaxMode,
	})
}

// sessionHash returns a keyed hash of r's browser session, or "" when BrowserAuth does
// not name sessions (or r has none).
func (c *Connector) sessionHash(k *derivedKey, r *http.Request) string {
	sb, ok := c.auth.(SessionBinder)
	if !ok {
		return ""
	}
	id := sb.Session(r)
	if id == "" {
		return ""
	}
	return b64url.Encode(mac(k.user, "session", id)[:16])
}

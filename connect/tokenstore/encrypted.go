package tokenstore

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/encoding/b64url"
	"github.com/askback/askback/keys"
	"golang.org/x/oauth2"
)

// Encrypted wraps a [Store] so that what it keeps is sealed: the access and refresh
// tokens are encrypted with AES-256-GCM before they reach the inner store, bound to the
// user and provider they belong to (a sealed token copied to another user's entry does
// not open) and to the id of the key that sealed them. Token type and expiry stay
// readable. Make it with [NewEncrypted]; the zero Encrypted is not usable (it has no
// inner store and no key).
//
// Keys rotate: a value is sealed with the current key and names it
// ("sealed.v2.KID.…"); a value sealed with an older key given to [NewEncrypted] still
// opens, and is sealed again with the current key when the token is next put.
type Encrypted struct {
	inner   Store
	current string                 // the id of the key that seals
	aeads   map[string]cipher.AEAD // by key id: the current key and the older ones
}

// The prefixes of sealed values in the inner store: v2 names its key
// ("sealed.v2.KID." then the sealed bytes); v1, which came before rotation,
// names none and opens with the current key.
const (
	sealedPrefix   = "sealed.v2."
	sealedPrefixV1 = "sealed.v1."
)

// sealingPurpose is what the AES key is derived for from a [keys.Key]'s secret.
const sealingPurpose = "askback tokenstore: the key that seals tokens"

// NewEncrypted returns a store that seals tokens before passing them to inner with
// current, and opens what current or one of older sealed. Each key's AES-256 key is
// derived from its secret (HMAC-SHA256 of a purpose of its own): the same [keys.Key]
// may also sign reqstate's states and connect's links, and the key that seals tokens is
// still not the key that signs them. Key ids are distinct; a value sealed with a key
// no longer given does not open, with an error naming its key id.
func NewEncrypted(inner Store, current keys.Key, older ...keys.Key) (*Encrypted, error) {
	if inner == nil {
		return nil, errors.New("token store: no inner store to encrypt")
	}
	all := append([]keys.Key{current}, older...)
	if err := keys.Check(all); err != nil {
		return nil, fmt.Errorf("token store: the encryption keys: %w", err)
	}
	e := &Encrypted{inner: inner, current: current.ID, aeads: make(map[string]cipher.AEAD, len(all))}
	for _, k := range all {
		m := hmac.New(sha256.New, k.Secret)
		m.Write([]byte(sealingPurpose))
		block, err := aes.NewCipher(m.Sum(nil))
		if err != nil {
			return nil, fmt.Errorf("token store: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("token store: %w", err)
		}
		e.aeads[k.ID] = aead
	}
	return e, nil
}

// additionalData binds a sealed value to its entry, its field and (v2) the id of its
// key.
func additionalData(user, provider, field, kid string) []byte {
	ad := fmt.Appendf(nil, "%d:%s|%d:%s|%s", len(user), user, len(provider), provider, field)
	if kid != "" {
		ad = fmt.Appendf(ad, "|%d:%s", len(kid), kid)
	}
	return ad
}

func (e *Encrypted) seal(user, provider, field, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	aead := e.aeads[e.current]
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("token store: random nonce: %w", err)
	}
	out := aead.Seal(nonce, nonce, []byte(v), additionalData(user, provider, field, e.current))
	return sealedPrefix + e.current + "." + b64url.Encode(out), nil
}

func (e *Encrypted) open(user, provider, field, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	what := fmt.Sprintf("%s of %s for user %q", field, provider, user)
	var kid, body string // kid is "" for v1
	if rest, ok := strings.CutPrefix(v, sealedPrefix); ok {
		var found bool
		if kid, body, found = strings.Cut(rest, "."); !found || !keys.ValidID(kid) {
			return "", fmt.Errorf("token store: %s is corrupt (no key id)", what)
		}
	} else if body, ok = strings.CutPrefix(v, sealedPrefixV1); !ok {
		return "", fmt.Errorf("token store: %s is not sealed", what)
	}
	aead := e.aeads[e.current]
	if kid != "" {
		if aead = e.aeads[kid]; aead == nil {
			return "", fmt.Errorf("token store: %s was sealed with key %q, which is not among the keys given (current %q): give it as an older key to open it", what, kid, e.current)
		}
	}
	raw, err := b64url.Decode(body)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return "", fmt.Errorf("token store: %s is corrupt", what)
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, raw[:n], raw[n:], additionalData(user, provider, field, kid))
	if err != nil {
		return "", fmt.Errorf("token store: %s does not open (wrong key, a changed key id, or moved from another entry)", what)
	}
	return string(plain), nil
}

// Get implements [Store].
func (e *Encrypted) Get(ctx context.Context, user, provider string) (*oauth2.Token, error) {
	tok, err := e.inner.Get(ctx, user, provider)
	if err != nil {
		return nil, err
	}
	access, err := e.open(user, provider, "access", tok.AccessToken)
	if err != nil {
		return nil, err
	}
	refresh, err := e.open(user, provider, "refresh", tok.RefreshToken)
	if err != nil {
		return nil, err
	}
	return &oauth2.Token{AccessToken: access, TokenType: tok.TokenType, RefreshToken: refresh, Expiry: tok.Expiry}, nil
}

// Put implements [Store].
func (e *Encrypted) Put(ctx context.Context, user, provider string, tok *oauth2.Token) error {
	if err := CheckPut(ctx, user, provider, tok); err != nil {
		return err
	}
	access, err := e.seal(user, provider, "access", tok.AccessToken)
	if err != nil {
		return err
	}
	refresh, err := e.seal(user, provider, "refresh", tok.RefreshToken)
	if err != nil {
		return err
	}
	return e.inner.Put(ctx, user, provider, &oauth2.Token{AccessToken: access, TokenType: tok.TokenType, RefreshToken: refresh, Expiry: tok.Expiry})
}

// Delete implements [Store].
func (e *Encrypted) Delete(ctx context.Context, user, provider string) error {
	return e.inner.Delete(ctx, user, provider)
}

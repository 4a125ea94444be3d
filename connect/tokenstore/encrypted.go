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

	"github.com/askback/askback/internal/b64url"
	"github.com/askback/askback/keys"
	"golang.org/x/oauth2"
)

// Encrypted wraps a [Store] so that what it keeps is sealed: the access and refresh
// tokens are encrypted with AES-256-GCM before they reach the inner store, bound to the
// user and provider they belong to (a sealed token copied to another user's entry does
// not open). Token type and expiry stay readable. Make it with [NewEncrypted]; the zero
// Encrypted is not usable (it has no inner store and no key).
type Encrypted struct {
	inner Store
	aead  cipher.AEAD
}

// sealedPrefix marks a sealed value in the inner store.
const sealedPrefix = "sealed.v1."

// sealingPurpose is what the AES key is derived for from a [keys.Key]'s secret.
const sealingPurpose = "askback tokenstore: the key that seals tokens"

// NewEncrypted returns a store that seals tokens before passing them to inner, with an
// AES-256 key derived from key's secret (HMAC-SHA256 of a purpose of its own): the same
// [keys.Key] may also sign reqstate's states and connect's links, and the key that seals
// tokens is still not the key that signs them.
func NewEncrypted(inner Store, key keys.Key) (*Encrypted, error) {
	if inner == nil {
		return nil, errors.New("token store: no inner store to encrypt")
	}
	if err := keys.Check([]keys.Key{key}); err != nil {
		return nil, fmt.Errorf("token store: the encryption key: %w", err)
	}
	m := hmac.New(sha256.New, key.Secret)
	m.Write([]byte(sealingPurpose))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	return &Encrypted{inner: inner, aead: aead}, nil
}

func additionalData(user, provider, field string) []byte {
	return fmt.Appendf(nil, "%d:%s|%d:%s|%s", len(user), user, len(provider), provider, field)
}

func (e *Encrypted) seal(user, provider, field, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	nonce := make([]byte, e.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("token store: random nonce: %w", err)
	}
	out := e.aead.Seal(nonce, nonce, []byte(v), additionalData(user, provider, field))
	return sealedPrefix + b64url.Encode(out), nil
}

func (e *Encrypted) open(user, provider, field, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	body, ok := strings.CutPrefix(v, sealedPrefix)
	if !ok {
		return "", fmt.Errorf("token store: %s of %s for user %q is not sealed", field, provider, user)
	}
	raw, err := b64url.Decode(body)
	if err != nil || len(raw) < e.aead.NonceSize()+e.aead.Overhead() {
		return "", fmt.Errorf("token store: %s of %s for user %q is corrupt", field, provider, user)
	}
	n := e.aead.NonceSize()
	plain, err := e.aead.Open(nil, raw[:n], raw[n:], additionalData(user, provider, field))
	if err != nil {
		return "", fmt.Errorf("token store: %s of %s for user %q does not open (wrong key, or moved from another entry)", field, provider, user)
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

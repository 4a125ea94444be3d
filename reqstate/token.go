package reqstate

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askback/askback/internal/b64url"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
)

// The wire forms of a state (b64 is unpadded base64url):
//
//	sealed: "e1." kid "." b64(nonce ‖ AES-256-GCM(claims, aad = "e1." kid))
//	signed: "s1." kid "." b64(claims) "." b64(HMAC-SHA256(everything before the last "."))
const (
	sealedPrefix = "e1."
	signedPrefix = "s1."
	nonceLen     = 16 // bytes of a single-use nonce, before encoding
)

// claims is the authenticated content of a state.
type claims struct {
	Version int             `json:"v"`
	Issued  int64           `json:"iat"` // Unix milliseconds
	Expires int64           `json:"exp"` // Unix milliseconds
	Subject string          `json:"sub,omitempty"`
	Method  string          `json:"m"`
	Name    string          `json:"n"`
	Args    string          `json:"a"`
	Nonce   string          `json:"jti,omitempty"`
	Payload json.RawMessage `json:"p"`
}

// IssueOptions change how one state is issued; nil means the defaults.
type IssueOptions struct {
	// SingleUse makes the state openable once: Open claims its nonce in the
	// codec's replay store and refuses it the second time with [ErrReused].
	SingleUse bool
	// TTL is how long this state stays valid, if shorter than Options.TTL
	// (zero: Options.TTL).
	TTL time.Duration
}

// Seal makes a state holding v (encoded as JSON) bound to b. Most servers use
// [Codec.Issue], which takes the binding from the request.
func (c *Codec) Seal(b Binding, v any, opts *IssueOptions) (string, error) {
	var cfg IssueOptions
	if opts != nil {
		cfg = *opts
	}
	if cfg.TTL == 0 {
		cfg.TTL = c.ttl
	}
	if cfg.TTL < 0 {
		return "", errors.New("issue requestState: TTL must be positive")
	}
	if cfg.TTL > c.ttl {
		return "", fmt.Errorf("issue requestState: TTL %v is longer than Options.TTL (%v); raise Options.TTL", cfg.TTL, c.ttl)
	}
	payload, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("issue requestState: encode payload: %w", err)
	}
	now := c.now()
	cl := claims{
		Version: 1,
		Issued:  now.UnixMilli(),
		Expires: now.Add(cfg.TTL).UnixMilli(),
		Subject: b.Subject,
		Method:  b.Method,
		Name:    b.Name,
		Args:    b.Args,
		Payload: payload,
	}
	if cfg.SingleUse {
		if c.replay == nil {
			return "", errors.New("issue requestState: SingleUse needs Options.Replay (a replay store)")
		}
		var n [nonceLen]byte
		if _, err := io.ReadFull(c.rand, n[:]); err != nil {
			return "", fmt.Errorf("issue requestState: nonce: %w", err)
		}
		cl.Nonce = b64url.Encode(n[:])
	}
	body, err := json.Marshal(cl)
	if err != nil {
		return "", fmt.Errorf("issue requestState: %w", err)
	}
	var state string
	if c.mode == Signed {
		state = c.sign(body)
	} else if state, err = c.seal(body); err != nil {
		return "", fmt.Errorf("issue requestState: %w", err)
	}
	if len(state) > c.maxSize {
		return "", fmt.Errorf("issue requestState: %d bytes, limit %d: %w", len(state), c.maxSize, ErrTooLarge)
	}
	return state, nil
}

func (c *Codec) sign(body []byte) string {
	k := c.current
	head := signedPrefix + k.id + "." + b64url.Encode(body)
	m := hmac.New(sha256.New, k.macKey)
	m.Write([]byte(head))
	return head + "." + b64url.Encode(m.Sum(nil))
}

func (c *Codec) seal(body []byte) (string, error) {
	k := c.current
	aad := sealedPrefix + k.id
	buf := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(body)+k.aead.Overhead())
	if _, err := io.ReadFull(c.rand, buf); err != nil {
		return "", fmt.Errorf("nonce: %w", err)
	}
	buf = k.aead.Seal(buf, buf, body, []byte(aad))
	return aad + "." + b64url.Encode(buf), nil
}

// Unseal checks a state against b and decodes its payload into dst (a
// pointer, as for json.Unmarshal). It checks, in this order: size, integrity
// and key, expiry and clock skew, user, request, and — for a single-use
// state, last — that it was not used before. Most servers use [Open].
func (c *Codec) Unseal(ctx context.Context, b Binding, state string, dst any) error {
	cl, err := c.verify(state)
	if err != nil {
		return fmt.Errorf("open requestState: %w", err)
	}
	now := c.now().UnixMilli()
	if now >= cl.Expires {
		return fmt.Errorf("open requestState: %w", ErrExpired)
	}
	skew := c.maxSkew.Milliseconds()
	if cl.Issued > now+skew || cl.Expires > now+c.ttl.Milliseconds()+skew {
		return fmt.Errorf("open requestState: %w", ErrClockSkew)
	}
	if cl.Subject != b.Subject {
		return fmt.Errorf("open requestState: %w", ErrOtherUser)
	}
	if cl.Method != b.Method || cl.Name != b.Name || cl.Args != b.Args {
		return fmt.Errorf("open requestState: %w", ErrOtherRequest)
	}
	if dst != nil {
		if err := json.Unmarshal(cl.Payload, dst); err != nil {
			return fmt.Errorf("open requestState: payload does not decode into %T: %w", dst, errors.Join(ErrTampered, err))
		}
	}
	if cl.Nonce != "" {
		if c.replay == nil {
			return errors.New("open requestState: the state is single use but Options.Replay is not set")
		}
		// Held past the expiry by the skew: an instance whose clock is behind
		// still takes the state for live until then.
		if err := c.replay.Claim(ctx, cl.Nonce, time.UnixMilli(cl.Expires).Add(c.maxSkew)); err != nil {
			if errors.Is(err, replay.ErrUsed) {
				return fmt.Errorf("open requestState: %w", ErrReused)
			}
			return fmt.Errorf("open requestState: replay store: %w", err)
		}
	}
	return nil
}

// verify checks size, form, key and integrity and returns the claims.
func (c *Codec) verify(state string) (*claims, error) {
	if state == "" {
		return nil, ErrMissing
	}
	if len(state) > c.maxSize {
		return nil, ErrTooLarge
	}
	prefix := sealedPrefix
	if c.mode == Signed {
		prefix = signedPrefix
	}
	rest, ok := strings.CutPrefix(state, prefix)
	if !ok {
		return nil, ErrTampered
	}
	kid, rest, ok := strings.Cut(rest, ".")
	if !ok || !keys.ValidID(kid) {
		return nil, ErrTampered
	}
	k := c.keys[kid]
	if k == nil {
		return nil, ErrUnknownKey
	}
	var body []byte
	if c.mode == Signed {
		enc, tag, ok := strings.Cut(rest, ".")
		if !ok {
			return nil, ErrTampered
		}
		got, err := b64url.Decode(tag)
		if err != nil {
			return nil, ErrTampered
		}
		m := hmac.New(sha256.New, k.macKey)
		m.Write([]byte(state[:len(state)-len(tag)-1]))
		if !hmac.Equal(got, m.Sum(nil)) {
			return nil, ErrTampered
		}
		if body, err = b64url.Decode(enc); err != nil {
			return nil, ErrTampered
		}
	} else {
		raw, err := b64url.Decode(rest)
		if err != nil || len(raw) < k.aead.NonceSize()+k.aead.Overhead() {
			return nil, ErrTampered
		}
		ns := k.aead.NonceSize()
		if body, err = k.aead.Open(nil, raw[:ns], raw[ns:], []byte(sealedPrefix+kid)); err != nil {
			return nil, ErrTampered
		}
	}
	var cl claims
	if err := json.Unmarshal(body, &cl); err != nil || cl.Version != 1 {
		return nil, ErrTampered
	}
	return &cl, nil
}

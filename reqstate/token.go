package reqstate

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/b64url"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
)

// The wire forms of a state (b64 is unpadded base64url):
//
//	sealed: "e2." kid "." b64(nonce ‖ AES-256-GCM(claims, aad = "e2." kid))
//	signed: "s2." kid "." b64(claims) "." b64(HMAC-SHA256(everything before the last "."))
//
// The claims are binary: version (2), flags (1: single use), issued and
// expires (Unix milliseconds, 8 bytes big-endian each), then subject, method,
// name and argument digest (each a uvarint length and the bytes), the
// single-use nonce (16 bytes, when flagged) and the payload (JSON) to the end.
const (
	sealedPrefix = "e2."
	signedPrefix = "s2."
	nonceLen     = 16 // bytes of a single-use nonce
	claimsV      = 2
	flagOnce     = 1
)

// claims is the authenticated content of a state. Parsed claims point into
// the decrypted bytes.
type claims struct {
	Issued  int64 // Unix milliseconds
	Expires int64
	Subject []byte
	Method  []byte
	Name    []byte
	Args    []byte
	Nonce   []byte // single use, else nil
	Payload []byte
}

// appendClaims encodes the claims of a state bound to b after dst.
func appendClaims(dst []byte, b *Binding, issued, expires int64, nonce, payload []byte) []byte {
	var flags byte
	if nonce != nil {
		flags |= flagOnce
	}
	dst = append(dst, claimsV, flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(issued))
	dst = binary.BigEndian.AppendUint64(dst, uint64(expires))
	for _, f := range [...]string{b.Subject, b.Method, b.Name, b.Args} {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	dst = append(dst, nonce...)
	return append(dst, payload...)
}

// parseClaims decodes what appendClaims wrote.
func parseClaims(b []byte) (*claims, error) {
	if len(b) < 18 || b[0] != claimsV || b[1]&^flagOnce != 0 {
		return nil, ErrTampered
	}
	cl := &claims{Issued: int64(binary.BigEndian.Uint64(b[2:])), Expires: int64(binary.BigEndian.Uint64(b[10:]))}
	once := b[1]&flagOnce != 0
	b = b[18:]
	for _, f := range [...]*[]byte{&cl.Subject, &cl.Method, &cl.Name, &cl.Args} {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, ErrTampered
		}
		*f = b[k : k+int(n)]
		b = b[k+int(n):]
	}
	if once {
		if len(b) < nonceLen {
			return nil, ErrTampered
		}
		cl.Nonce, b = b[:nonceLen], b[nonceLen:]
	}
	cl.Payload = b
	return cl, nil
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
	issued, expires := now.UnixMilli(), now.Add(cfg.TTL).UnixMilli()
	// One read of randomness: the AEAD nonce (sealed) and the single-use
	// nonce.
	var random [12 + nonceLen]byte
	want := 0
	if c.mode == Sealed {
		want = c.current.aead.NonceSize()
	}
	if cfg.SingleUse {
		if c.replay == nil {
			return "", errors.New("issue requestState: SingleUse needs Options.Replay (a replay store)")
		}
		want += nonceLen
	}
	if _, err := io.ReadFull(c.rand, random[:want]); err != nil {
		return "", fmt.Errorf("issue requestState: nonce: %w", err)
	}
	var nonce []byte
	if cfg.SingleUse {
		nonce = random[want-nonceLen : want]
	}
	buf := stateBuffers.Get().(*[]byte)
	defer stateBuffers.Put(buf)
	var state string
	if c.mode == Signed {
		*buf = appendClaims((*buf)[:0], &b, issued, expires, nonce, payload)
		state = c.sign(*buf)
	} else {
		k := c.current
		ns := k.aead.NonceSize()
		body := append((*buf)[:0], random[:ns]...)
		body = appendClaims(body, &b, issued, expires, nonce, payload)
		body = k.aead.Seal(body[:ns], body[:ns], body[ns:], k.aad)
		*buf = body
		out := make([]byte, 0, len(k.aad)+1+base64.RawURLEncoding.EncodedLen(len(body)))
		out = append(append(out, k.aad...), '.')
		state = string(base64.RawURLEncoding.AppendEncode(out, body))
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

// Unseal checks a state against b and decodes its payload into dst (a
// pointer, as for json.Unmarshal). It checks, in this order: size, integrity
// and key, expiry and clock skew, user, request, and — for a single-use
// state, last — that it was not used before. Most servers use [Open].
func (c *Codec) Unseal(ctx context.Context, b Binding, state string, dst any) error {
	buf := stateBuffers.Get().(*[]byte)
	defer stateBuffers.Put(buf)
	cl, err := c.verify(state, buf)
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
	if string(cl.Subject) != b.Subject {
		return fmt.Errorf("open requestState: %w", ErrOtherUser)
	}
	if string(cl.Method) != b.Method || string(cl.Name) != b.Name || string(cl.Args) != b.Args {
		return fmt.Errorf("open requestState: %w", ErrOtherRequest)
	}
	if dst != nil {
		if err := json.Unmarshal(cl.Payload, dst); err != nil {
			return fmt.Errorf("open requestState: payload does not decode into %T: %w", dst, errors.Join(ErrTampered, err))
		}
	}
	if cl.Nonce != nil {
		if c.replay == nil {
			return errors.New("open requestState: the state is single use but Options.Replay is not set")
		}
		// Held past the expiry by the skew: an instance whose clock is behind
		// still takes the state for live until then.
		if err := c.replay.Claim(ctx, b64url.Encode(cl.Nonce), time.UnixMilli(cl.Expires).Add(c.maxSkew)); err != nil {
			if errors.Is(err, replay.ErrUsed) {
				return fmt.Errorf("open requestState: %w", ErrReused)
			}
			return fmt.Errorf("open requestState: replay store: %w", err)
		}
	}
	return nil
}

// stateBuffers recycles the buffers states are decoded into; the claims
// point into them until Unseal returns.
var stateBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// verify checks size, form, key and integrity and returns the claims.
func (c *Codec) verify(state string, buf *[]byte) (*claims, error) {
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
		if body, err = b64url.AppendDecode((*buf)[:0], enc); err != nil {
			return nil, ErrTampered
		}
		*buf = body[:0]
	} else {
		raw, err := b64url.AppendDecode((*buf)[:0], rest)
		if err != nil || len(raw) < k.aead.NonceSize()+k.aead.Overhead() {
			return nil, ErrTampered
		}
		*buf = raw[:0]
		ns := k.aead.NonceSize()
		if body, err = k.aead.Open(raw[ns:ns], raw[:ns], raw[ns:], k.aad); err != nil {
			return nil, ErrTampered
		}
	}
	return parseClaims(body)
}

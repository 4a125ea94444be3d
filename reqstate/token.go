package reqstate

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/askback/askback/internal/encoding/b64url"
	"github.com/askback/askback/keys"
	"github.com/askback/askback/replay"
	"github.com/askback/askback/subject"
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

// appendClaims encodes the claims of a state bound to b after dst, all but
// the payload, which follows them.
func appendClaims(dst []byte, b *Binding, issued, expires int64, nonce []byte) []byte {
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
	return append(dst, nonce...)
}

// parseClaims decodes what appendClaims wrote.
func parseClaims(b []byte) (cl claims, err error) {
	if len(b) < 18 || b[0] != claimsV || b[1]&^flagOnce != 0 {
		return cl, ErrTampered
	}
	cl = claims{Issued: int64(binary.BigEndian.Uint64(b[2:])), Expires: int64(binary.BigEndian.Uint64(b[10:]))}
	once := b[1]&flagOnce != 0
	b = b[18:]
	for _, f := range [...]*[]byte{&cl.Subject, &cl.Method, &cl.Name, &cl.Args} {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return claims{}, ErrTampered
		}
		*f = b[k : k+int(n)]
		b = b[k+int(n):]
	}
	if once {
		if len(b) < nonceLen {
			return claims{}, ErrTampered
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
	cfg, err := c.issueOptions(opts)
	if err != nil {
		return "", err
	}
	now := c.now()
	issued, expires := now.UnixMilli(), now.Add(cfg.TTL).UnixMilli()
	sb := stateBuffers.Get().(*stateBuffer)
	defer sb.release()
	k := c.current
	ns := 0
	if c.mode == Sealed {
		ns = k.aead.NonceSize()
	}
	nonce, err := c.readRandom(sb, ns, cfg.SingleUse)
	if err != nil {
		return "", err
	}
	// The body is the AEAD nonce (sealed), then the claims with the payload
	// at the end, encoded in place.
	sb.body.Reset()
	sb.body.Write(sb.random[:ns])
	sb.body.Write(appendClaims(sb.scratch[:0], &b, issued, expires, nonce))
	if err := sb.writePayload(v); err != nil {
		return "", err
	}
	var out []byte
	if c.mode == Signed {
		out = k.sign(sb)
	} else {
		out = k.seal(sb, ns)
	}
	sb.out = out
	if len(out) > c.maxSize {
		return "", fmt.Errorf("issue requestState: %d bytes, limit %d: %w", len(out), c.maxSize, ErrTooLarge)
	}
	return string(out), nil
}

// issueOptions is opts (nil: the defaults) with the codec's TTL for none,
// checked against the codec's options.
func (c *Codec) issueOptions(opts *IssueOptions) (IssueOptions, error) {
	var cfg IssueOptions
	if opts != nil {
		cfg = *opts
	}
	if cfg.TTL == 0 {
		cfg.TTL = c.ttl
	}
	if cfg.TTL < 0 {
		return cfg, errors.New("issue requestState: TTL must be positive")
	}
	if cfg.TTL > c.ttl {
		return cfg, fmt.Errorf("issue requestState: TTL %v is longer than Options.TTL (%v); raise Options.TTL", cfg.TTL, c.ttl)
	}
	if cfg.SingleUse && c.replay == nil {
		return cfg, errors.New("issue requestState: SingleUse needs Options.Replay (a replay store)")
	}
	return cfg, nil
}

// readRandom reads, in one read of randomness into sb.random, the AEAD
// nonce (its first ns bytes) and, for a single-use state, the single-use
// nonce after it, which it returns.
func (c *Codec) readRandom(sb *stateBuffer, ns int, singleUse bool) ([]byte, error) {
	want := ns
	if singleUse {
		want += nonceLen
	}
	if _, err := io.ReadFull(c.rand, sb.random[:want]); err != nil {
		return nil, fmt.Errorf("issue requestState: nonce: %w", err)
	}
	if !singleUse {
		return nil, nil
	}
	return sb.random[want-nonceLen : want], nil
}

// writePayload appends the JSON of v to the body, as json.Marshal writes
// it.
func (sb *stateBuffer) writePayload(v any) error {
	if p, ok := appendPayload(sb.body.AvailableBuffer(), v); ok {
		sb.body.Write(p)
		return nil
	}
	if err := sb.enc.Encode(v); err != nil {
		return fmt.Errorf("issue requestState: encode payload: %w", err)
	}
	sb.body.Truncate(sb.body.Len() - 1) // the encoder's newline
	return nil
}

// sign returns the signed state of the body: the prefix, the key id, the
// body and the HMAC of what precedes it, written into sb.out.
func (k *codecKey) sign(sb *stateBuffer) []byte {
	out := append(append(append(sb.out[:0], signedPrefix...), k.id...), '.')
	out = base64.RawURLEncoding.AppendEncode(out, sb.body.Bytes())
	m := k.mac()
	m.Write(out)
	tag := m.Sum(sb.sum[:0])
	k.macs.Put(m)
	return base64.RawURLEncoding.AppendEncode(append(out, '.'), tag)
}

// seal returns the sealed state of the body, whose first ns bytes are the
// AEAD nonce: the additional data (prefix and key id) and the body sealed,
// written into sb.out.
func (k *codecKey) seal(sb *stateBuffer, ns int) []byte {
	body := sb.body.Bytes()
	body = k.aead.Seal(body[:ns], body[:ns], body[ns:], k.aad)
	out := append(append(sb.out[:0], k.aad...), '.')
	return base64.RawURLEncoding.AppendEncode(out, body)
}

// Unseal checks a state against b and decodes its payload into dst (a
// pointer, as for json.Unmarshal). It checks, in this order: size, integrity
// and key, expiry and clock skew, user, request, and — for a single-use
// state, last — that it was not used before. Most servers use [Open].
func (c *Codec) Unseal(ctx context.Context, b Binding, state string, dst any) error {
	sb := stateBuffers.Get().(*stateBuffer)
	defer sb.release()
	cl, err := c.verify(state, sb)
	if err != nil {
		return fmt.Errorf("open requestState: %w", err)
	}
	if err := c.checkClaims(&cl, b); err != nil {
		return fmt.Errorf("open requestState: %w", err)
	}
	if dst != nil {
		if err := decodePayload(cl.Payload, dst); err != nil {
			return fmt.Errorf("open requestState: payload does not decode into %T: %w", dst, errors.Join(ErrTampered, err))
		}
	}
	if cl.Nonce != nil {
		return c.claimNonce(ctx, b, &cl)
	}
	return nil
}

// checkClaims checks the claims' expiry and clock skew, user and request
// against b.
func (c *Codec) checkClaims(cl *claims, b Binding) error {
	now := c.now().UnixMilli()
	if now >= cl.Expires {
		return ErrExpired
	}
	skew := c.maxSkew.Milliseconds()
	if cl.Issued > now+skew || cl.Expires > now+c.ttl.Milliseconds()+skew {
		return ErrClockSkew
	}
	if string(cl.Subject) != b.Subject {
		return ErrOtherUser
	}
	if string(cl.Method) != b.Method || string(cl.Name) != b.Name || string(cl.Args) != b.Args {
		return ErrOtherRequest
	}
	return nil
}

// claimNonce claims the single-use nonce of the claims in the replay store,
// and refuses a state whose nonce was claimed before.
func (c *Codec) claimNonce(ctx context.Context, b Binding, cl *claims) error {
	if c.replay == nil {
		return errors.New("open requestState: the state is single use but Options.Replay is not set")
	}
	var enc [nonceEncLen]byte
	base64.RawURLEncoding.Encode(enc[:], cl.Nonce)
	// Held past the expiry by the skew: an instance whose clock is behind
	// still takes the state for live until then. Claimed for the caller
	// (the state's user, else the client ctx names: subject.Share), so
	// that a store bounded per user (replay.UserStore) keeps one caller,
	// anonymous or not, from filling it for everyone.
	if err := replay.ClaimUser(ctx, c.replay, subject.Share(ctx, b.Subject), string(enc[:]), time.UnixMilli(cl.Expires).Add(c.maxSkew)); err != nil {
		if errors.Is(err, replay.ErrUsed) {
			return fmt.Errorf("open requestState: %w", ErrReused)
		}
		return fmt.Errorf("open requestState: replay store: %w", err)
	}
	return nil
}

// nonceEncLen is the length of a single-use nonce in base64url, the form the
// replay store gets.
const nonceEncLen = (nonceLen*8 + 5) / 6

// A stateBuffer is the scratch space of one Seal or Unseal: the body
// (decoded, or being encoded with the payload's JSON encoder writing into
// it), the claims being written and the encoded state.
type stateBuffer struct {
	random  [12 + nonceLen]byte // the AEAD nonce and the single-use nonce
	sum     [sha256.Size]byte   // an HMAC tag
	body    bytes.Buffer
	enc     *json.Encoder // writes to body
	scratch []byte
	out     []byte
}

// stateBuffers recycles stateBuffers; parsed claims point into the body until
// Unseal returns.
var stateBuffers = sync.Pool{New: func() any {
	sb := &stateBuffer{scratch: make([]byte, 0, 256), out: make([]byte, 0, 1024)}
	sb.body.Grow(1024)
	sb.enc = json.NewEncoder(&sb.body)
	return sb
}}

// maxPooledState is the largest buffer kept for the next state; larger ones
// (states near a raised MaxSize) are left to the garbage collector.
const maxPooledState = 64 << 10

func (sb *stateBuffer) release() {
	if sb.body.Cap() > maxPooledState || cap(sb.out) > maxPooledState || cap(sb.scratch) > maxPooledState {
		return
	}
	sb.body.Reset()
	stateBuffers.Put(sb)
}

// mac returns an HMAC of the key, set up once and reset for each use; give
// it back with k.macs.Put.
func (k *codecKey) mac() hash.Hash {
	m := k.macs.Get().(hash.Hash)
	m.Reset()
	return m
}

// verify checks size, form, key and integrity and returns the claims, which
// point into sb.
func (c *Codec) verify(state string, sb *stateBuffer) (claims, error) {
	if state == "" {
		return claims{}, ErrMissing
	}
	if len(state) > c.maxSize {
		return claims{}, ErrTooLarge
	}
	prefix := sealedPrefix
	if c.mode == Signed {
		prefix = signedPrefix
	}
	rest, ok := strings.CutPrefix(state, prefix)
	if !ok {
		return claims{}, ErrTampered
	}
	kid, rest, ok := strings.Cut(rest, ".")
	if !ok || !keys.ValidID(kid) {
		return claims{}, ErrTampered
	}
	k := c.keys[kid]
	if k == nil {
		return claims{}, ErrUnknownKey
	}
	var body []byte
	if c.mode == Signed {
		body, ok = k.checkSigned(state, rest, sb)
	} else {
		body, ok = k.open(rest, sb)
	}
	if !ok {
		return claims{}, ErrTampered
	}
	return parseClaims(body)
}

// bytesOf copies s into sb's output buffer, for hashing without a new
// allocation.
func (sb *stateBuffer) bytesOf(s string) []byte {
	sb.out = append(sb.out[:0], s...)
	return sb.out
}

// checkSigned checks the HMAC of a signed state, whose part after the key
// id is rest, and returns its body, decoded into sb.
func (k *codecKey) checkSigned(state, rest string, sb *stateBuffer) ([]byte, bool) {
	enc, tag, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, false
	}
	got, err := b64url.AppendDecode(sb.scratch[:0], tag)
	if err != nil {
		return nil, false
	}
	sb.scratch = got[:0]
	m := k.mac()
	m.Write(sb.bytesOf(state[:len(state)-len(tag)-1]))
	sum := m.Sum(sb.sum[:0])
	k.macs.Put(m)
	if !hmac.Equal(got, sum) {
		return nil, false
	}
	body, err := b64url.AppendDecode(sb.body.AvailableBuffer(), enc)
	return body, err == nil
}

// open opens a sealed state, whose part after the key id is rest, and
// returns its body, decoded and opened into sb.
func (k *codecKey) open(rest string, sb *stateBuffer) ([]byte, bool) {
	raw, err := b64url.AppendDecode(sb.body.AvailableBuffer(), rest)
	if err != nil || len(raw) < k.aead.NonceSize()+k.aead.Overhead() {
		return nil, false
	}
	ns := k.aead.NonceSize()
	body, err := k.aead.Open(raw[ns:ns], raw[:ns], raw[ns:], k.aad)
	return body, err == nil
}

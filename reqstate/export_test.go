package reqstate

import (
	"errors"
	"strings"

	"github.com/askback/askback/internal/encoding/b64url"
)

// ProtectedBytes returns what the primitive protects in a state c issued: for
// a sealed state the plaintext claims and the additional data, for a signed
// one the signed text (and no additional data). Benchmarks give the bare
// primitive exactly these bytes.
func ProtectedBytes(c *Codec, state string) (msg, aad []byte, err error) {
	if c.mode == Signed {
		i := strings.LastIndexByte(state, '.')
		if i < 0 {
			return nil, nil, errors.New("not a signed state")
		}
		return []byte(state[:i]), nil, nil
	}
	k := c.current
	raw, err := b64url.Decode(strings.TrimPrefix(state, string(k.aad)+"."))
	if err != nil {
		return nil, nil, err
	}
	ns := k.aead.NonceSize()
	msg, err = k.aead.Open(nil, raw[:ns], raw[ns:], k.aad)
	return msg, k.aad, err
}

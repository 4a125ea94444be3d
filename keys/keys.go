// Package keys holds the secrets the toolkit signs and seals with: reqstate's
// requestStates and connect's links and flow cookies take the same [Key].
//
// A key has an id, which travels in the clear inside everything it protects,
// so that keys can be rotated: the first key of a list signs or seals, every
// key of the list verifies or opens; put a new key first, and drop the old one
// once what it protected has expired.
package keys

import (
	"crypto/rand"
	"errors"
	"fmt"
)

// MinSecretLen is the shortest secret a key may have, in bytes.
const MinSecretLen = 32

// maxIDLen is the longest key id.
const maxIDLen = 32

// A Key is a secret with an id.
type Key struct {
	// ID names the key inside what it protects: 1 to 32 characters from
	// [A-Za-z0-9_-].
	ID string
	// Secret holds at least MinSecretLen random bytes.
	Secret []byte
}

// New returns a key with the given id and a fresh random 32-byte secret.
func New(id string) (Key, error) {
	secret := make([]byte, MinSecretLen)
	if _, err := rand.Read(secret); err != nil {
		return Key{}, fmt.Errorf("new key: %w", err)
	}
	k := Key{ID: id, Secret: secret}
	if err := k.check(); err != nil {
		return Key{}, err
	}
	return k, nil
}

// Check reports what is wrong with a key list: none at all, an invalid or
// repeated id, or a secret shorter than MinSecretLen.
func Check(ks []Key) error {
	if len(ks) == 0 {
		return errors.New("no keys; give at least one Key")
	}
	seen := make(map[string]bool, len(ks))
	for _, k := range ks {
		if err := k.check(); err != nil {
			return err
		}
		if seen[k.ID] {
			return fmt.Errorf("key id %q appears twice", k.ID)
		}
		seen[k.ID] = true
	}
	return nil
}

func (k Key) check() error {
	if !ValidID(k.ID) {
		return fmt.Errorf("key id %q must be 1 to %d characters from [A-Za-z0-9_-]", k.ID, maxIDLen)
	}
	if len(k.Secret) < MinSecretLen {
		return fmt.Errorf("key %q: secret is %d bytes; use at least %d random bytes", k.ID, len(k.Secret), MinSecretLen)
	}
	return nil
}

// ValidID reports whether id can name a key: 1 to 32 characters from
// [A-Za-z0-9_-].
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '-', b == '_':
		default:
			return false
		}
	}
	return true
}

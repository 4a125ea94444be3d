package connect

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
)

// Key is a secret that signs links and seals the flow cookie. ID names it inside every
// link and cookie, so that keys can be rotated: put the new key first in
// [Options.Keys] and drop the old one once its links have expired.
type Key struct {
	// ID is 1 to 32 letters, digits, '-' or '_'.
	ID string
	// Secret holds at least 32 random bytes.
	Secret []byte
}

var keyID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// derivedKey holds the keys derived from one secret, one per purpose, so that a value
// made for one purpose is never accepted for another.
type derivedKey struct {
	id     string
	link   []byte // HMAC-SHA256 key for links
	user   []byte // HMAC-SHA256 key for the keyed hash of the user in a link
	cookie []byte // AES-256-GCM key for the flow cookie
}

type keyring struct {
	signing *derivedKey
	byID    map[string]*derivedKey
}

func newKeyring(keys []Key) (keyring, error) {
	if len(keys) == 0 {
		return keyring{}, errors.New("connect: at least one key is required (Options.Keys)")
	}
	kr := keyring{byID: make(map[string]*derivedKey)}
	for _, k := range keys {
		if !keyID.MatchString(k.ID) {
			return keyring{}, fmt.Errorf("connect: key id %q: use 1 to 32 letters, digits, '-' or '_'", k.ID)
		}
		if len(k.Secret) < 32 {
			return keyring{}, fmt.Errorf("connect: key %q: the secret must be at least 32 random bytes", k.ID)
		}
		if _, dup := kr.byID[k.ID]; dup {
			return keyring{}, fmt.Errorf("connect: key id %q used twice", k.ID)
		}
		d := &derivedKey{
			id:     k.ID,
			link:   derive(k.Secret, "askback/connect link v1"),
			user:   derive(k.Secret, "askback/connect user v1"),
			cookie: derive(k.Secret, "askback/connect flow cookie v1"),
		}
		kr.byID[k.ID] = d
		if kr.signing == nil {
			kr.signing = d
		}
	}
	return kr, nil
}

func derive(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

func mac(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		// Length-prefix every part so that ("ab","c") and ("a","bc") differ.
		fmt.Fprintf(m, "%d:", len(p))
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

// isLoopback reports whether host names this machine: localhost or a loopback address.
func isLoopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

package connect

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"net"
	"strings"

	"github.com/askback/askback/keys"
)

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

func newKeyring(ks []keys.Key) (keyring, error) {
	if err := keys.Check(ks); err != nil {
		return keyring{}, fmt.Errorf("connect: Options.Keys: %w", err)
	}
	kr := keyring{byID: make(map[string]*derivedKey)}
	for _, k := range ks {
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

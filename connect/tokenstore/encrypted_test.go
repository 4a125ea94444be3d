package tokenstore_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/connect/tokenstore/tokenstoretest"
	"github.com/askback/askback/keys"
	"golang.org/x/oauth2"
)

var encKey = keys.Key{ID: "k1", Secret: bytes.Repeat([]byte{9}, 32)}

func TestEncrypted(t *testing.T) {
	tokenstoretest.Run(t, func(t *testing.T) tokenstore.Store {
		s, err := tokenstore.NewEncrypted(tokenstore.NewMemory(), encKey)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// What reaches the disk holds no token in the clear.
func TestEncryptedBoltFileHasNoPlainToken(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tokens.db")
	b, err := tokenstore.OpenBolt(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := tokenstore.NewEncrypted(b, encKey)
	if err := s.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "gho_PLAINACCESS", RefreshToken: "ghr_PLAINREFRESH"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "alice", "github")
	if err != nil || got.AccessToken != "gho_PLAINACCESS" || got.RefreshToken != "ghr_PLAINREFRESH" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	b.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("PLAINACCESS")) || bytes.Contains(raw, []byte("PLAINREFRESH")) {
		t.Fatal("the database file holds a token in the clear")
	}
}

// A sealed token copied into another user's entry, or read with another key, does not
// open.
func TestEncryptedRefusesMovedTokensAndWrongKeys(t *testing.T) {
	ctx := context.Background()
	inner := tokenstore.NewMemory()
	s, _ := tokenstore.NewEncrypted(inner, encKey)
	if err := s.Put(ctx, "bob", "github", &oauth2.Token{AccessToken: "bob-token"}); err != nil {
		t.Fatal(err)
	}
	sealed, _ := inner.Get(ctx, "bob", "github")
	if strings.Contains(sealed.AccessToken, "bob-token") {
		t.Fatal("inner store holds the token in the clear")
	}
	inner.Put(ctx, "alice", "github", sealed) // the attacker's copy
	if tok, err := s.Get(ctx, "alice", "github"); err == nil {
		t.Fatalf("bob's sealed token opened as alice's: %q", tok.AccessToken)
	}
	other, _ := tokenstore.NewEncrypted(inner, keys.Key{ID: "k1", Secret: bytes.Repeat([]byte{8}, 32)})
	if _, err := other.Get(ctx, "bob", "github"); err == nil {
		t.Fatal("opened with another key")
	}
	inner.Put(ctx, "carol", "github", &oauth2.Token{AccessToken: "plain"})
	if _, err := s.Get(ctx, "carol", "github"); err == nil {
		t.Fatal("an unsealed value was returned as a token")
	}
	if _, err := tokenstore.NewEncrypted(inner, keys.Key{ID: "k1", Secret: []byte("short")}); err == nil {
		t.Fatal("a short key was accepted")
	}
}

var newKey = keys.Key{ID: "k2", Secret: bytes.Repeat([]byte{7}, 32)}

// A token sealed with the old key opens once the new key is current and
// the old one older; the next Put seals it with the new key, which names
// it; the old key can then go.
func TestEncryptedRotates(t *testing.T) {
	ctx := context.Background()
	inner := tokenstore.NewMemory()
	before, _ := tokenstore.NewEncrypted(inner, encKey)
	if err := before.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "a1", RefreshToken: "r1"}); err != nil {
		t.Fatal(err)
	}
	if sealed, _ := inner.Get(ctx, "alice", "github"); !strings.HasPrefix(sealed.AccessToken, "sealed.v2.k1.") {
		t.Fatalf("sealed without its key id: %q", sealed.AccessToken)
	}
	rotated, err := tokenstore.NewEncrypted(inner, newKey, encKey)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rotated.Get(ctx, "alice", "github")
	if err != nil || got.AccessToken != "a1" || got.RefreshToken != "r1" {
		t.Fatalf("after rotation: %+v, %v", got, err)
	}
	if err := rotated.Put(ctx, "alice", "github", got); err != nil {
		t.Fatal(err)
	}
	if sealed, _ := inner.Get(ctx, "alice", "github"); !strings.HasPrefix(sealed.AccessToken, "sealed.v2.k2.") || !strings.HasPrefix(sealed.RefreshToken, "sealed.v2.k2.") {
		t.Fatalf("not sealed again with the current key: %+v", sealed)
	}
	after, _ := tokenstore.NewEncrypted(inner, newKey)
	if got, err := after.Get(ctx, "alice", "github"); err != nil || got.AccessToken != "a1" {
		t.Fatalf("without the old key: %+v, %v", got, err)
	}
	if _, err := tokenstore.NewEncrypted(inner, newKey, keys.Key{ID: "k2", Secret: bytes.Repeat([]byte{6}, 32)}); err == nil {
		t.Fatal("two keys with one id were accepted")
	}
}

// A value sealed with a key no longer given is refused, and the error
// names its key.
func TestEncryptedRefusesAnUnknownKeyID(t *testing.T) {
	ctx := context.Background()
	inner := tokenstore.NewMemory()
	old, _ := tokenstore.NewEncrypted(inner, encKey)
	old.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "a1"})
	s, _ := tokenstore.NewEncrypted(inner, newKey)
	_, err := s.Get(ctx, "alice", "github")
	if err == nil || !strings.Contains(err.Error(), `sealed with key "k1", which is not among the keys given`) {
		t.Fatalf("got %v, want an error naming key k1", err)
	}
}

// The key id is bound to what it sealed: changed to another key's id, or
// made unreadable, the value does not open.
func TestEncryptedRefusesATamperedKeyID(t *testing.T) {
	ctx := context.Background()
	inner := tokenstore.NewMemory()
	s, _ := tokenstore.NewEncrypted(inner, newKey, encKey)
	s.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "a1"})
	sealed, _ := inner.Get(ctx, "alice", "github")
	// k3 has the same secret as k2: only the binding of the id refuses it.
	same, _ := tokenstore.NewEncrypted(inner, newKey, keys.Key{ID: "k3", Secret: newKey.Secret})
	for _, tc := range []struct{ name, value, want string }{
		{"another key's id", strings.Replace(sealed.AccessToken, ".k2.", ".k3.", 1), "does not open"},
		{"no id", strings.Replace(sealed.AccessToken, ".k2.", ".", 1), "is corrupt"},
		{"an id that is no key id", strings.Replace(sealed.AccessToken, ".k2.", ".k 2.", 1), "is corrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner.Put(ctx, "bob", "github", &oauth2.Token{AccessToken: tc.value})
			tok, err := same.Get(ctx, "bob", "github")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%q: got %v, %v; want an error that %s", tc.value, tok, err, tc.want)
			}
		})
	}
}

// Values sealed before keys had ids (sealed.v1.) open with the current
// key, and only with it.
func TestEncryptedOpensV1WithTheCurrentKey(t *testing.T) {
	ctx := context.Background()
	inner := tokenstore.NewMemory()
	// Sealed with encKey for alice's github entry by the v1 format.
	inner.Put(ctx, "alice", "github", &oauth2.Token{
		AccessToken:  "sealed.v1.bupUHm34jg0Yp-LmnrOcWjCgH7lvIr0-J-6fyps4bku2GmXDVLPzBA",
		RefreshToken: "sealed.v1.3KbmBomCzIV6RVbB5fES923_bEG0B7Vv-IpzkKntXbSzntCfSN8vcsE",
	})
	s, _ := tokenstore.NewEncrypted(inner, encKey)
	got, err := s.Get(ctx, "alice", "github")
	if err != nil || got.AccessToken != "gho_V1ACCESS" || got.RefreshToken != "ghr_V1REFRESH" {
		t.Fatalf("v1: %+v, %v", got, err)
	}
	rotated, _ := tokenstore.NewEncrypted(inner, newKey, encKey)
	if _, err := rotated.Get(ctx, "alice", "github"); err == nil {
		t.Fatal("a v1 value opened with a key that is not current")
	}
}

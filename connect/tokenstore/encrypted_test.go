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

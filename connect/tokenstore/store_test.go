package tokenstore_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/connect/tokenstore/tokenstoretest"
	"golang.org/x/oauth2"
)

func TestMemory(t *testing.T) {
	tokenstoretest.Run(t, func(t *testing.T) tokenstore.Store { return tokenstore.NewMemory() })
}

func TestBolt(t *testing.T) {
	tokenstoretest.Run(t, func(t *testing.T) tokenstore.Store {
		s, err := tokenstore.OpenBolt(filepath.Join(t.TempDir(), "tokens.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// A token written by one process is there for the next one.
func TestBoltSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tokens.db")
	s, err := tokenstore.OpenBolt(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := s.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "a1", Expiry: exp}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = tokenstore.OpenBolt(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Get(ctx, "alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessToken != "a1" || !got.Expiry.Equal(exp) {
		t.Fatalf("after reopening Get = %+v", got)
	}
}

func ExampleMemory() {
	ctx := context.Background()
	store := tokenstore.NewMemory()
	_ = store.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "gho_example"})
	tok, err := store.Get(ctx, "alice", "github")
	fmt.Println(tok.AccessToken, err)
	_, err = store.Get(ctx, "bob", "github")
	fmt.Println(errors.Is(err, tokenstore.ErrNotFound))
	// Output:
	// gho_example <nil>
	// true
}

func TestZeroMemoryIsUsable(t *testing.T) {
	var m tokenstore.Memory
	ctx := context.Background()
	if _, err := m.Get(ctx, "alice", "github"); !errors.Is(err, tokenstore.ErrNotFound) {
		t.Fatalf("Get on a zero Memory = %v", err)
	}
	if err := m.Put(ctx, "alice", "github", &oauth2.Token{AccessToken: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, "alice", "github"); err != nil || m.Len() != 0 {
		t.Fatalf("Delete = %v, Len %d", err, m.Len())
	}
}

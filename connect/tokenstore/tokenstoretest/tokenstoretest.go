// Package tokenstoretest holds the conformance tests that every
// [github.com/askback/askback/connect/tokenstore.Store] implementation must pass.
package tokenstoretest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"golang.org/x/oauth2"
)

// Run checks the behaviour of the stores made by newStore: tokens are kept per user and
// provider, replaced by a later Put, removed by Delete, copied on the way in and out, and
// refused for empty keys; a cancelled context is honoured; concurrent use is safe.
// newStore is called once per subtest and must return an empty store.
func Run(t *testing.T, newStore func(t *testing.T) tokenstore.Store) {
	for _, c := range []struct {
		name  string
		check func(*testing.T, tokenstore.Store)
	}{
		{"missing token is ErrNotFound", checkMissing},
		{"put then get", checkPutGet},
		{"tokens are per user and per provider", checkPerUserProvider},
		{"keys that only concatenate alike stay apart", checkKeysApart},
		{"put replaces", checkPutReplaces},
		{"delete", checkDelete},
		{"values are copies", checkCopies},
		{"empty keys and tokens are refused", checkEmptyRefused},
		{"cancelled context", checkCancelled},
		{"concurrent use", checkConcurrent},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, newStore(t)) })
	}
}

// token is a token whose access token is access, its refresh token derived
// from it.
func token(access string) *oauth2.Token {
	expiry := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	return &oauth2.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: "r-" + access, Expiry: expiry}
}

// checkMissing checks that a token never put is ErrNotFound.
func checkMissing(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	_, err := s.Get(ctx, "alice", "github")
	if !errors.Is(err, tokenstore.ErrNotFound) {
		t.Fatalf("Get on an empty store: err = %v, want ErrNotFound", err)
	}
}

// checkPutGet checks that Get returns the token Put stored.
func checkPutGet(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "alice", "github", token("a1")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	want := token("a1")
	if got.AccessToken != want.AccessToken || got.RefreshToken != want.RefreshToken ||
		got.TokenType != want.TokenType || !got.Expiry.Equal(want.Expiry) {
		t.Fatalf("Get = %+v, want %+v", got, want)
	}
}

// checkPerUserProvider checks that tokens are per user and per provider.
func checkPerUserProvider(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	mustPut(t, s, "alice", "github", token("alice-gh"))
	mustPut(t, s, "bob", "github", token("bob-gh"))
	mustPut(t, s, "alice", "gitlab", token("alice-gl"))
	for _, c := range []struct{ user, provider, want string }{
		{"alice", "github", "alice-gh"},
		{"bob", "github", "bob-gh"},
		{"alice", "gitlab", "alice-gl"},
	} {
		got, err := s.Get(ctx, c.user, c.provider)
		if err != nil {
			t.Fatalf("Get(%s, %s): %v", c.user, c.provider, err)
		}
		if got.AccessToken != c.want {
			t.Errorf("Get(%s, %s) = %q, want %q", c.user, c.provider, got.AccessToken, c.want)
		}
	}
	if _, err := s.Get(ctx, "bob", "gitlab"); !errors.Is(err, tokenstore.ErrNotFound) {
		t.Errorf("Get(bob, gitlab): err = %v, want ErrNotFound", err)
	}
}

// checkKeysApart checks that keys that only concatenate alike stay apart.
func checkKeysApart(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	mustPut(t, s, "a/b", "c", token("one"))
	if _, err := s.Get(ctx, "a", "b/c"); !errors.Is(err, tokenstore.ErrNotFound) {
		t.Errorf("Get(a, b/c) after Put(a/b, c): err = %v, want ErrNotFound", err)
	}
}

// checkPutReplaces checks that a later Put replaces the token.
func checkPutReplaces(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	mustPut(t, s, "alice", "github", token("old"))
	mustPut(t, s, "alice", "github", token("new"))
	got, err := s.Get(ctx, "alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	if got.AccessToken != "new" {
		t.Fatalf("after two Puts Get = %q, want %q", got.AccessToken, "new")
	}
}

// checkDelete checks that Delete removes one token alone, and that deleting a missing one is no error.
func checkDelete(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	mustPut(t, s, "alice", "github", token("a1"))
	mustPut(t, s, "bob", "github", token("b1"))
	if err := s.Delete(ctx, "alice", "github"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "alice", "github"); !errors.Is(err, tokenstore.ErrNotFound) {
		t.Fatalf("Get after Delete: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, "bob", "github"); err != nil {
		t.Fatalf("Delete of alice removed bob's token: %v", err)
	}
	if err := s.Delete(ctx, "alice", "github"); err != nil {
		t.Fatalf("deleting a missing token: %v", err)
	}
	if err := s.Delete(ctx, "carol", "never-used"); err != nil {
		t.Fatalf("deleting from an unknown provider: %v", err)
	}
}

// checkCopies checks that tokens are copied on the way in and out.
func checkCopies(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	in := token("a1")
	mustPut(t, s, "alice", "github", in)
	in.AccessToken = "changed-after-put"
	out, err := s.Get(ctx, "alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	out.AccessToken = "changed-after-get"
	again, err := s.Get(ctx, "alice", "github")
	if err != nil {
		t.Fatal(err)
	}
	if again.AccessToken != "a1" {
		t.Fatalf("stored token changed through a caller's copy: %q", again.AccessToken)
	}
}

// checkEmptyRefused checks that empty keys and tokens are refused.
func checkEmptyRefused(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	if err := s.Put(ctx, "", "github", token("x")); err == nil {
		t.Error("Put with an empty user succeeded")
	}
	if err := s.Put(ctx, "alice", "", token("x")); err == nil {
		t.Error("Put with an empty provider succeeded")
	}
	if err := s.Put(ctx, "alice", "github", &oauth2.Token{}); err == nil {
		t.Error("Put of a token without an access token succeeded")
	}
	if err := s.Put(ctx, "alice", "github", nil); err == nil {
		t.Error("Put of a nil token succeeded")
	}
	if _, err := s.Get(ctx, "", "github"); err == nil || errors.Is(err, tokenstore.ErrNotFound) {
		t.Errorf("Get with an empty user: err = %v, want a key error", err)
	}
}

// checkCancelled checks that a cancelled context is honoured.
func checkCancelled(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Put(cctx, "alice", "github", token("a1")); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := s.Get(cctx, "alice", "github"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: err = %v, want context.Canceled", err)
	}
	if err := s.Delete(cctx, "alice", "github"); !errors.Is(err, context.Canceled) {
		t.Errorf("Delete with a cancelled context: err = %v, want context.Canceled", err)
	}
}

// checkConcurrent checks that concurrent use is safe.
func checkConcurrent(t *testing.T, s tokenstore.Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for w := range 8 {
		wg.Go(func() {
			user := fmt.Sprintf("user%d", w)
			for i := range 20 {
				access := fmt.Sprintf("%s-%d", user, i)
				if err := s.Put(ctx, user, "github", token(access)); err != nil {
					errs <- err
					return
				}
				got, err := s.Get(ctx, user, "github")
				if err != nil {
					errs <- err
					return
				}
				if got.AccessToken != access {
					errs <- fmt.Errorf("%s read %q after writing %q", user, got.AccessToken, access)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func mustPut(t *testing.T, s tokenstore.Store, user, provider string, tok *oauth2.Token) {
	t.Helper()
	if err := s.Put(context.Background(), user, provider, tok); err != nil {
		t.Fatalf("Put(%s, %s): %v", user, provider, err)
	}
}

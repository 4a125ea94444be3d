package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/askback/askback/connect/tokenstore/redisstore"
	"github.com/askback/askback/connect/tokenstore/tokenstoretest"
	"github.com/askback/askback/internal/testsupport/scaleout"
	"github.com/askback/askback/keys"
	"golang.org/x/oauth2"
)

func TestContract(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	n := 0
	tokenstoretest.Run(t, func(t *testing.T) tokenstore.Store {
		n++
		return redisstore.New(rdb, &redisstore.Options{Prefix: fmt.Sprintf("test%d:", n)})
	})
}

// The encrypted wrapper works over Redis too, and what Redis holds is not
// the token.
func TestEncryptedOverRedis(t *testing.T) {
	r := scaleout.StartRedis(t, nil)
	rdb := scaleout.Client(t, r.URL)
	tokenstoretest.Run(t, func(t *testing.T) tokenstore.Store {
		s, err := tokenstore.NewEncrypted(redisstore.New(rdb, &redisstore.Options{Prefix: t.Name() + ":"}), keys.Key{ID: "k1", Secret: []byte("0123456789abcdef0123456789abcdef")})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A token stored and acknowledged before Redis is killed is there after it
// restarts (append-only file with fsync on every write). While Redis is
// down, every call fails on its own (not when its context ends) with an
// error that says so, and none of them reports a missing token.
func TestNoTokenLostWhenRedisRestarts(t *testing.T) {
	r := scaleout.StartRedis(t, &scaleout.RedisOptions{Persist: true})
	s := redisstore.New(scaleout.Client(t, r.URL), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // against a hang
	defer cancel()
	for i := range 50 {
		if err := s.Put(ctx, fmt.Sprintf("user%d", i), "github", &oauth2.Token{AccessToken: fmt.Sprint("tok", i)}); err != nil {
			t.Fatal(err)
		}
	}
	r.Kill()
	// The calls fail on their own, while Redis is still down, not when
	// their context (a bound against a hang) runs out.
	down, cancelDown := context.WithTimeout(ctx, time.Minute)
	defer cancelDown()
	if _, err := s.Get(down, "user1", "github"); err == nil || errors.Is(err, tokenstore.ErrNotFound) {
		t.Errorf("Get with Redis down = %v, want a connection error (not ErrNotFound: the token exists)", err)
	}
	if err := s.Put(down, "late", "github", &oauth2.Token{AccessToken: "x"}); err == nil {
		t.Error("Put with Redis down succeeded")
	}
	if down.Err() != nil {
		t.Errorf("calls with Redis down ended only when their context did: %v", down.Err())
	}
	r.Restart()
	for i := range 50 {
		tok, err := s.Get(ctx, fmt.Sprintf("user%d", i), "github")
		if err != nil || tok.AccessToken != fmt.Sprint("tok", i) {
			t.Fatalf("after restart user%d: %v, %v", i, tok, err)
		}
	}
}

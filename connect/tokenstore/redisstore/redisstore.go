// Package redisstore is a tokenstore.Store in Redis, so that every server
// instance finds the third-party token a user connected through any of
// them.
//
// Each provider has one Redis hash, keyed by user; a token is stored as
// JSON. Tokens are kept in the clear: wrap the store with
// tokenstore.Encrypted to seal them, and protect Redis like any other
// secret store. For tokens that must survive a restart of Redis, run it
// with the append-only file on (appendonly yes, appendfsync always or
// everysec).
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/connect/tokenstore"
	"github.com/redis/go-redis/v9"
	"golang.org/x/oauth2"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "askback:tokens:"

// Options configure [New].
type Options struct {
	// Prefix starts every key (DefaultPrefix if empty).
	Prefix string
}

// Store is a [tokenstore.Store] in Redis. Make it with [New]; the zero Store is not usable.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ tokenstore.Store = (*Store)(nil)

// record is what a token looks like in Redis.
type record struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// New returns a store that keeps tokens in rdb. The caller owns rdb.
func New(rdb redis.UniversalClient, opts *Options) *Store {
	s := &Store{rdb: rdb, prefix: DefaultPrefix}
	if opts != nil && opts.Prefix != "" {
		s.prefix = opts.Prefix
	}
	return s
}

// key is the hash of a provider: the provider is the whole rest of the key
// and the user a field of its own, so no two (user, provider) pairs meet.
func (s *Store) key(provider string) string { return s.prefix + provider }

// Get implements tokenstore.Store.
func (s *Store) Get(ctx context.Context, user, provider string) (*oauth2.Token, error) {
	if err := tokenstore.CheckKey(ctx, user, provider); err != nil {
		return nil, err
	}
	b, err := s.rdb.HGet(ctx, s.key(provider), user).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%s for user %q: %w", provider, user, tokenstore.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read token from redis: %w", err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read token from redis: stored %s token of %q is unreadable: %w", provider, user, err)
	}
	return &oauth2.Token{AccessToken: rec.AccessToken, TokenType: rec.TokenType, RefreshToken: rec.RefreshToken, Expiry: rec.Expiry}, nil
}

// Put implements tokenstore.Store.
func (s *Store) Put(ctx context.Context, user, provider string, tok *oauth2.Token) error {
	if err := tokenstore.CheckPut(ctx, user, provider, tok); err != nil {
		return err
	}
	b, err := json.Marshal(record{AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry})
	if err != nil {
		return fmt.Errorf("store token: %w", err)
	}
	if err := s.rdb.HSet(ctx, s.key(provider), user, b).Err(); err != nil {
		return fmt.Errorf("store token in redis: %w", err)
	}
	return nil
}

// Delete implements tokenstore.Store.
func (s *Store) Delete(ctx context.Context, user, provider string) error {
	if err := tokenstore.CheckKey(ctx, user, provider); err != nil {
		return err
	}
	if err := s.rdb.HDel(ctx, s.key(provider), user).Err(); err != nil {
		return fmt.Errorf("delete token in redis: %w", err)
	}
	return nil
}

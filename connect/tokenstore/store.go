// Package tokenstore keeps third-party OAuth 2.0 tokens, one per server user and provider.
//
// A token obtained through URL-mode elicitation belongs to the server user who completed
// the flow in the browser. The server uses it to call the provider on that user's behalf
// and never sends it to the MCP client. [Store] is deliberately small so that more
// backends (Redis, for several server instances) can be added; [Memory] serves tests and
// [Bolt] is the single-instance default. Every implementation should pass
// [github.com/askback/askback/connect/tokenstore/tokenstoretest.Run].
package tokenstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// ErrNotFound is returned by [Store.Get] when the user has no token for the provider.
var ErrNotFound = errors.New("no token stored")

// Store keeps one OAuth 2.0 token per (user, provider) pair.
//
// Implementations must be safe for concurrent use, honour ctx, and return copies: a caller
// may change the token it was given without changing what is stored.
type Store interface {
	// Get returns the token stored for user and provider, or an error wrapping
	// [ErrNotFound].
	Get(ctx context.Context, user, provider string) (*oauth2.Token, error)
	// Put stores tok for user and provider, replacing any token stored before.
	Put(ctx context.Context, user, provider string, tok *oauth2.Token) error
	// Delete removes the token for user and provider. Deleting a token that does not
	// exist is not an error.
	Delete(ctx context.Context, user, provider string) error
}

// CheckKey is what a [Store] checks first in every call: the context is not
// done, and user and provider are neither empty nor hold a NUL byte, either
// of which would let the tokens of different users collide.
func CheckKey(ctx context.Context, user, provider string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if user == "" {
		return errors.New("token store: empty user")
	}
	if provider == "" {
		return errors.New("token store: empty provider")
	}
	if strings.ContainsRune(provider, 0) || strings.ContainsRune(user, 0) {
		return fmt.Errorf("token store: user or provider contains a NUL byte")
	}
	return nil
}

// CheckPut is [CheckKey] for Put, which also refuses a token without an
// access token.
func CheckPut(ctx context.Context, user, provider string, tok *oauth2.Token) error {
	if err := CheckKey(ctx, user, provider); err != nil {
		return err
	}
	if tok == nil || tok.AccessToken == "" {
		return errors.New("token store: refusing to store an empty token")
	}
	return nil
}

// copyToken returns a copy of tok that shares no mutable state with it. The extra fields
// a provider returned with the token are not kept: stores hold only what the server needs
// to call the provider again.
func copyToken(tok *oauth2.Token) *oauth2.Token {
	return &oauth2.Token{
		AccessToken:  tok.AccessToken,
		TokenType:    tok.TokenType,
		RefreshToken: tok.RefreshToken,
		Expiry:       tok.Expiry,
	}
}

// Package subject says who the authenticated user of an MCP request is, one way
// for the whole toolkit: reqstate binds states to that user, tasks gives each task
// to that user, connect makes links for that user. If they read the user in
// different ways, one user can reach another's task or state.
//
// The user comes from MCP authorization only, never from anything the client says:
// the go-sdk's auth.RequireBearerToken middleware puts the verified token's
// TokenInfo on every request, and [FromToken] reads it. A server whose verifier
// names the user somewhere else sets that once, in the verifier, with [Verifier];
// a server that knows its users another way gives the same [Func] to each package's
// Options.Subject.
//
// A request without a user is known by its client, the address it comes from
// ([Proxies], [WithClient]); [Share] is the one name under which what a caller
// takes of a bounded resource is counted, the user's or, failing one, the
// client's, so that one anonymous client cannot take every anonymous caller's
// places.
package subject

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Func returns the authenticated user behind a request, or "" when there is
// none. Every toolkit package that has an Options.Subject takes a Func, and uses
// [FromToken] when it is nil.
type Func func(req mcp.Request) string

// FromToken returns the user of the verified bearer token a request carries: the
// TokenInfo's UserID or, when that is empty, a string "sub" claim in its Extra (as
// verifiers of JWT access tokens often leave it). It returns "" for a request
// without a token.
func FromToken(req mcp.Request) string {
	if req == nil {
		return ""
	}
	extra := req.GetExtra()
	if extra == nil {
		return ""
	}
	return OfToken(extra.TokenInfo)
}

// OfToken returns the user a verified token names: UserID, else a string "sub" in
// Extra, else "".
func OfToken(info *auth.TokenInfo) string {
	if info == nil {
		return ""
	}
	if info.UserID != "" {
		return info.UserID
	}
	if sub, ok := info.Extra["sub"].(string); ok {
		return sub
	}
	return ""
}

// Or returns f, or [FromToken] when f is nil.
func (f Func) Or() Func {
	if f == nil {
		return FromToken
	}
	return f
}

// Verifier wraps a token verifier so that every TokenInfo it accepts names its user
// in UserID, the field the go-sdk itself reads (to tie a session to its user) and
// that [FromToken] reads first. user returns the user a verified token belongs to;
// nil means [OfToken]. Setting the user here, once, makes every package agree on it.
func Verifier(verify auth.TokenVerifier, user func(*auth.TokenInfo) string) auth.TokenVerifier {
	if user == nil {
		user = OfToken
	}
	return func(ctx context.Context, token string, req *http.Request) (*auth.TokenInfo, error) {
		info, err := verify(ctx, token, req)
		if err != nil || info == nil {
			return info, err
		}
		c := *info
		c.UserID = user(info)
		return &c, nil
	}
}

package connect

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askback/askback/ask"
	"github.com/askback/askback/connect/tokenstore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// ErrNotConnected is returned by [Connector.TokenFor] when the user has not connected the
// provider, or the connection has expired and cannot be refreshed.
var ErrNotConnected = errors.New("account not connected")

// ErrTokenStore is returned by [Connector.TokenFor] and [Connector.Require] when the
// token store fails (unreachable, or a sealed token that does not open). Its text says
// nothing about the cause, so it may reach the MCP client; the cause goes to
// [Options.Logger].
var ErrTokenStore = errors.New("the connected account could not be read; try again later")

// ErrNoUser is returned when a request carries no user from MCP authorization. Wrap the
// server's MCP handler with the go-sdk's auth.RequireBearerToken and have the token
// verifier name the user (TokenInfo.UserID or its "sub"; see [Options.Subject]).
var ErrNoUser = errors.New("no authenticated user: the request did not pass MCP authorization (auth.RequireBearerToken with a verifier that names the user)")

// User returns the user that MCP authorization established for req, by
// [Options.Subject]: by default the UserID of the bearer token's TokenInfo, or its
// "sub". It never reads anything the client sent about itself.
func (c *Connector) User(req mcp.Request) (string, error) {
	if req == nil {
		return "", ErrNoUser
	}
	if user := c.subject(req); user != "" {
		return user, nil
	}
	return "", ErrNoUser
}

// TokenFor returns the user's token for provider, refreshing it (and storing the new one)
// when it has expired and the provider gave a refresh token. It returns an error wrapping
// [ErrNotConnected] when there is no usable token, and one wrapping [ErrTokenStore] (the
// cause logged, not returned) when the store fails. The token is for calling the provider;
// never put it in anything sent to the MCP client.
func (c *Connector) TokenFor(ctx context.Context, user, provider string) (*oauth2.Token, error) {
	p, err := c.provider(provider)
	if err != nil {
		return nil, err
	}
	if user == "" {
		return nil, ErrNoUser
	}
	tok, err := c.store.Get(ctx, user, provider)
	if errors.Is(err, tokenstore.ErrNotFound) {
		return nil, fmt.Errorf("%s for %s: %w", p.Title, user, ErrNotConnected)
	}
	if err != nil {
		c.log.Error("connect: read token", "provider", p.Name, "user", user, "err", err)
		return nil, fmt.Errorf("%s: %w", p.Title, ErrTokenStore)
	}
	// A token about to expire is refreshed now rather than failing at the provider.
	if tok.Expiry.IsZero() || c.now().Add(expiryMargin).Before(tok.Expiry) {
		return tok, nil
	}
	if tok.RefreshToken == "" {
		return nil, fmt.Errorf("%s token for %s has expired: %w", p.Title, user, ErrNotConnected)
	}
	rctx := context.WithValue(ctx, oauth2.HTTPClient, c.client)
	// Only the refresh token goes in, so the refresh happens by the connector's clock.
	fresh, err := p.OAuth2.TokenSource(rctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		return nil, fmt.Errorf("refresh %s token for %s: %v: %w", p.Title, user, describeExchangeError(err), ErrNotConnected)
	}
	if err := c.store.Put(ctx, user, provider, fresh); err != nil {
		c.log.Error("connect: store refreshed token", "provider", p.Name, "user", user, "err", err)
		return nil, fmt.Errorf("%s: %w", p.Title, ErrTokenStore)
	}
	return fresh, nil
}

// expiryMargin is how long before its expiry a token counts as expired.
const expiryMargin = 30 * time.Second

// Disconnect forgets the user's token for provider, for example after the provider
// answered that it was revoked. The next [Connector.Require] asks again.
func (c *Connector) Disconnect(ctx context.Context, user, provider string) error {
	if _, err := c.provider(provider); err != nil {
		return err
	}
	return c.store.Delete(ctx, user, provider)
}

// Ask returns the URL-mode question that sends user to the connect page for provider: a
// message and a fresh link. Send it only to a client that declared URL elicitation (see
// [URLAllowed]).
func (c *Connector) Ask(user, provider string) (*mcp.ElicitParams, error) {
	p, err := c.provider(provider)
	if err != nil {
		return nil, err
	}
	link, err := c.Link(user, provider)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitParams{
		Mode: "url",
		Message: fmt.Sprintf("Connect your %s account to %s. The link opens a page of %s, where you sign in as yourself; "+
			"then you approve access at %s. Retry when the page says you are connected.", p.Title, c.name, c.name, p.Title),
		URL: link,
	}, nil
}

// URLAllowed reports whether the client that sent req declared URL-mode elicitation, so
// that a URL question may be sent to it. It reads the capabilities declared in the
// request's _meta "io.modelcontextprotocol/clientCapabilities" (protocol 2026-07-28) or,
// for older clients, in the session's initialize request; URL mode also needs protocol
// 2025-11-25 or later. The rules are those of [ask.Modes].
func URLAllowed(req mcp.Request) bool {
	r, ok := req.(ask.Request)
	return ok && ask.Modes(r).Has(ask.URL)
}

// InputKey is the key under which [Connector.Require] asks for provider in a result's
// inputRequests.
func InputKey(provider string) string { return "connect_" + provider }

// Require is the whole tool-side flow in one call. It returns the token when the MCP user
// of req (from MCP authorization) has connected provider. Otherwise it returns the result
// the tool should return as is:
//   - an input_required result with a URL question, when the client declared URL mode;
//   - a normal result saying what to do, when it did not, or when the user declined or
//     cancelled the question.
//
// On a repeated call whose URL question was accepted but whose browser flow has not
// finished yet, it asks again (clients on protocol 2026-07-28) or explains that the user
// should finish in the browser and retry (older clients, which cannot be asked twice).
func (c *Connector) Require(ctx context.Context, req *mcp.CallToolRequest, provider string) (*oauth2.Token, *mcp.CallToolResult, error) {
	p, err := c.provider(provider)
	if err != nil {
		return nil, nil, err
	}
	user, err := c.User(req)
	if err != nil {
		return nil, nil, err
	}
	tok, err := c.TokenFor(ctx, user, provider)
	if err == nil {
		return tok, nil, nil
	}
	if !errors.Is(err, ErrNotConnected) {
		return nil, nil, err
	}
	if !URLAllowed(req) {
		return nil, textResult(fmt.Sprintf("This needs your %s account, which is not connected to %s yet. "+
			"The server cannot ask this client to open a link: URL elicitation was not declared for this request "+
			"(or is not available on the client's protocol version). Use a client that supports URL elicitation "+
			"to connect %s, then try again.", p.Title, c.name, p.Title)), nil
	}
	if res := answered(req, provider, p); res != nil {
		return nil, res, nil
	}
	q, err := c.Ask(user, provider)
	if err != nil {
		return nil, nil, err
	}
	return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{InputKey(provider): q}}, nil
}

// answered returns what Require says when the user has answered the URL
// question for provider (p) already: declined, cancelled, or accepted on a
// client that cannot be asked again; nil when it should ask.
func answered(req *mcp.CallToolRequest, provider string, p *Provider) *mcp.CallToolResult {
	if req.Params == nil {
		return nil
	}
	ans, ok := req.Params.InputResponses[InputKey(provider)].(*mcp.ElicitResult)
	if !ok || ans == nil {
		return nil
	}
	switch ans.Action {
	case "decline":
		return textResult(fmt.Sprintf("Not done: you chose not to connect your %s account.", p.Title))
	case "cancel":
		return textResult(fmt.Sprintf("Not done: connecting your %s account was cancelled.", p.Title))
	case "accept":
		if !supportsRoundTrips(req) {
			return textResult(fmt.Sprintf("Finish connecting your %s account in the browser, then run this again.", p.Title))
		}
	}
	return nil
}

// supportsRoundTrips reports whether the client speaks protocol 2026-07-28 or later,
// where a repeated call may be asked again. Older clients get questions through the
// go-sdk's elicitation/create translation, which re-runs the handler only once.
func supportsRoundTrips(req *mcp.CallToolRequest) bool {
	return req.ProtocolVersion() >= "2026-07-28"
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

package reqstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue makes a state holding v, bound to req (a *mcp.CallToolRequest,
// *mcp.GetPromptRequest or *mcp.ReadResourceRequest: its method, its tool or
// prompt name or resource URI, its arguments, and its authenticated user) and
// expiring after the codec's TTL. Put the result in the RequestState of the
// input_required result.
func (c *Codec) Issue(req mcp.Request, v any, opts *IssueOptions) (string, error) {
	b, err := c.Bind(req)
	if err != nil {
		return "", fmt.Errorf("issue requestState: %w", err)
	}
	if c.requireSubject && b.Subject == "" {
		return "", errors.New("issue requestState: the request has no authenticated user and Options.RequireSubject is set")
	}
	return c.Seal(b, v, opts)
}

// Bind returns the binding of req with the codec's subject function.
func (c *Codec) Bind(req mcp.Request) (Binding, error) {
	if req == nil {
		return Binding{}, errors.New("bind requestState: no request")
	}
	return BindRequest(req, c.subject(req))
}

// Open checks the requestState that arrives with req against req and returns
// the value it holds. It fails with [ErrMissing] if req carries no state and
// with one of the other refusals if the state does not check out; return
// [ClientError](err) to the client in either case.
func Open[T any](ctx context.Context, c *Codec, req mcp.Request) (T, error) {
	var v T
	b, err := c.Bind(req)
	if err != nil {
		return v, fmt.Errorf("open requestState: %w", err)
	}
	if err := c.Unseal(ctx, b, RequestState(req), &v); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// RequestState returns the requestState a request carries ("" if none).
func RequestState(req mcp.Request) string {
	if req == nil {
		return ""
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		if p != nil {
			return p.RequestState
		}
	case *mcp.GetPromptParams:
		if p != nil {
			return p.RequestState
		}
	case *mcp.ReadResourceParams:
		if p != nil {
			return p.RequestState
		}
	}
	return ""
}

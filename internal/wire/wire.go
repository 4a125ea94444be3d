// Package wire lets a client see every JSON-RPC message of its session as
// it crosses the wire, without changing what is sent.
//
// The go-sdk updates its own Streamable HTTP connection after initialize
// through an unexported method (the protocol version header on every later
// request, the standalone stream a 2025-11-25 server asks on): a wrapper
// around that connection cannot forward it, and a session traced that way
// behaves differently from one that is not. So over HTTP [Observe] leaves
// the transport's connection alone and reads copies of the HTTP bodies
// instead: each request body as it is sent, each response body (JSON, or
// an event stream, event by event) as the go-sdk reads it. Other
// transports (stdio, in-memory) have no such hook, and their connection is
// wrapped.
package wire

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Observer hears one message: sent by the client (sent is true) or
// received from the server. It must not keep msg beyond the call, nor
// change it, and must return quickly: it runs on the path of the message.
type Observer func(sent bool, msg jsonrpc.Message)

// Observe returns t with every JSON-RPC message it carries told to obs.
// What the transport sends and receives is unchanged.
func Observe(t mcp.Transport, obs Observer) mcp.Transport {
	if obs == nil {
		return t
	}
	switch t := t.(type) {
	case *mcp.StreamableClientTransport:
		c := *t
		c.HTTPClient = observedClient(t.HTTPClient, obs)
		return &c
	case *mcp.SSEClientTransport:
		c := *t
		c.HTTPClient = observedClient(t.HTTPClient, obs)
		return &c
	}
	return &transport{inner: t, obs: obs}
}

// observedClient is a copy of hc (http.DefaultClient when nil) whose
// round trips are observed.
func observedClient(hc *http.Client, obs Observer) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.Transport = RoundTripper(hc.Transport, obs)
	return &c
}

type transport struct {
	inner mcp.Transport
	obs   Observer
}

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, obs: t.obs}, nil
}

// conn tells the observer each message read and written.
type conn struct {
	mcp.Connection
	obs Observer
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.obs(false, msg)
	}
	return msg, err
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.obs(true, msg)
	return c.Connection.Write(ctx, msg)
}

package trace

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport returns t with every JSON-RPC message written to or read from
// its connection recorded. The messages themselves pass unchanged.
//
// The go-sdk tells its Streamable HTTP client connection about the
// negotiated session through an unexported method that a wrapper cannot
// forward; with protocol 2026-07-28 every request carries its version
// itself, so nothing is lost, but older versions over HTTP are better
// traced at the HTTP layer.
func (r *Recorder) Transport(t mcp.Transport) mcp.Transport {
	return &transport{rec: r, inner: t}
}

type transport struct {
	rec   *Recorder
	inner mcp.Transport
}

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{rec: t.rec, inner: c}, nil
}

type conn struct {
	rec   *Recorder
	inner mcp.Connection
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.inner.Read(ctx)
	if err == nil {
		c.rec.message(In, msg)
	}
	return msg, err
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.rec.message(Out, msg)
	return c.inner.Write(ctx, msg)
}

func (c *conn) Close() error      { return c.inner.Close() }
func (c *conn) SessionID() string { return c.inner.SessionID() }

// message records one JSON-RPC message.
func (r *Recorder) message(dir string, msg jsonrpc.Message) {
	now := r.opts.Now()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		e := Event{Dir: dir, Method: m.Method, Params: m.Params}
		if m.ID.IsValid() {
			e.Kind, e.ID = KindRequest, m.ID.Raw()
			r.begin(pendingKey(dir, m.ID.Raw()), m.Method, now)
		} else {
			e.Kind = KindNotification
		}
		r.emit(e, now)
	case *jsonrpc.Response:
		// A response answers a request that went the other way.
		other := In
		if dir == In {
			other = Out
		}
		method, latency := r.end(pendingKey(other, m.ID.Raw()), now)
		e := Event{Dir: dir, Kind: KindResponse, ID: m.ID.Raw(), Method: method, Latency: latency, Result: m.Result}
		if m.Error != nil {
			e.Kind, e.Result = KindError, nil
			e.Error = errorJSON(m.Error)
		} else if dir == In && method != "" {
			r.keep(method, m.Result)
		}
		r.emit(e, now)
	default:
		r.emit(Event{Dir: dir, Kind: KindInfo, Info: map[string]any{"message": fmt.Sprintf("%T", msg)}}, now)
	}
}

func pendingKey(dir string, id any) string {
	b, _ := json.Marshal(id)
	return dir + " " + string(b)
}

func errorJSON(err error) json.RawMessage {
	if w, ok := err.(*jsonrpc.Error); ok {
		b, _ := json.Marshal(w)
		return b
	}
	b, _ := json.Marshal(map[string]string{"message": err.Error()})
	return b
}

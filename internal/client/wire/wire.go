// Package wire lets a client see every JSON-RPC message of its session as
// it crosses the wire, without changing what is sent; and, over Streamable
// HTTP, know at once that a request's answer cannot come (see Unanswered).
//
// The go-sdk updates its own Streamable HTTP connection after initialize
// through an unexported method (the protocol version header on every later
// request, the standalone stream a 2025-11-25 server asks on): a wrapper
// around that connection cannot forward it, and a session traced that way
// behaves differently from one that is not. So over HTTP [Watch] leaves
// the transport's connection alone and reads copies of the HTTP bodies
// instead: each request body as it is sent, each response body (JSON, or
// an event stream, event by event) as the go-sdk reads it. Other
// transports (stdio, in-memory) have no such hook, and their connection is
// wrapped.
package wire

import (
	"bytes"
	"context"
	"net/http"

	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Observer hears one message: sent by the client (sent is true) or
// received from the server. It must not keep msg beyond the call, nor
// change it, and must return quickly: it runs on the path of the message.
type Observer func(sent bool, msg jsonrpc.Message)

// Watcher hears what one pass over the bytes of a message found
// (jsonscan.Scan): its kind, id, method, the top of a result and the first
// key given twice. Like an Observer it runs on the path of the message and
// must return quickly.
type Watcher func(sent bool, m jsonscan.Message)

// Unanswered hears that the HTTP answer to a POSTed request (its id:
// awaited) ended without the answer to it, having carried an answer to
// another id (the first of them: other), where no other answer to the
// request can come: a JSON body (one message; stream false), or an event
// stream whose events had no id (a stream the client cannot resume;
// stream true). It runs after the watcher heard the answer's messages.
// The error it returns for a JSON body, if not nil, ends the body in place
// of io.EOF: the go-sdk then fails the connection with it, where it would
// wait for an answer that cannot come. A stream ends as it came: the
// go-sdk ends the request itself when a stream it cannot resume ends
// without the answer.
type Unanswered func(awaited, other jsonrpc.ID, stream bool) error

// FormSchemas hears the JSON of a message received that holds a form's
// schema (a "requestedSchema" member, at any depth), as the server wrote
// it: a decoded message has lost the order of an object's members, which
// for a form is the order of its fields. Over HTTP it is the message's
// bytes; over transports that hand over decoded messages (stdio, in
// memory), the raw params or result, which keep their order. It runs on
// the path of the message and must not keep raw beyond the call.
type FormSchemas func(raw []byte)

// formSchemaKey is what a message holding a form's schema holds.
var formSchemaKey = []byte(`"requestedSchema"`)

// listeners are who hear the messages: a watcher (the bytes read once) and
// an observer (the message decoded), either of them nil; over HTTP, who
// hears of a request left unanswered by its POST's answer; and who hears
// the forms' schemas as written.
type listeners struct {
	watch      Watcher
	obs        Observer
	unanswered Unanswered
	forms      FormSchemas
}

// Watch returns t with every JSON-RPC message it carries told to w, as
// one pass over its bytes found it, and then, decoded, to obs; either may
// be nil. Over HTTP a message is decoded a second time (besides the
// go-sdk's own decoding) only when there is an observer. Transports that
// hand over decoded messages (stdio, in memory) have no bytes to read: w
// hears what jsonscan.Decoded finds in the message, which does not see a
// key given twice in the message itself, only in its result.
func Watch(t mcp.Transport, w Watcher, obs Observer) mcp.Transport {
	return WatchUnanswered(t, w, obs, nil)
}

// WatchUnanswered is Watch, and over Streamable HTTP u, if not nil, hears
// of each POSTed request whose HTTP answer ended without the answer to it,
// having carried another (see Unanswered). Over the legacy SSE transport,
// whose answers all come on one stream that stays open, and over stdio
// and in memory, u hears nothing: another message may always come.
func WatchUnanswered(t mcp.Transport, w Watcher, obs Observer, u Unanswered) mcp.Transport {
	return WatchForms(t, w, obs, u, nil)
}

// WatchForms is WatchUnanswered, and forms, if not nil, hears the JSON of
// each message received that holds a form's schema, as the server wrote
// it (see FormSchemas).
func WatchForms(t mcp.Transport, w Watcher, obs Observer, u Unanswered, forms FormSchemas) mcp.Transport {
	to := listeners{watch: w, obs: obs, unanswered: u, forms: forms}
	if w == nil && obs == nil && u == nil && forms == nil {
		return t
	}
	switch t := t.(type) {
	case *mcp.StreamableClientTransport:
		c := *t
		c.HTTPClient = observedClient(t.HTTPClient, to)
		return &c
	case *mcp.SSEClientTransport:
		// Its answers come on the stream it keeps open, whatever a POST's
		// answer says: no answer tells that one cannot come.
		to.unanswered = nil
		c := *t
		c.HTTPClient = observedClient(t.HTTPClient, to)
		return &c
	}
	return &transport{inner: t, obs: to}
}

// observedClient is a copy of hc (http.DefaultClient when nil) whose
// round trips are observed.
func observedClient(hc *http.Client, to listeners) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.Transport = watchingRoundTripper(hc.Transport, to)
	return &c
}

type transport struct {
	inner mcp.Transport
	obs   listeners
}

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, obs: t.obs}, nil
}

// conn tells the listeners each message read and written.
type conn struct {
	mcp.Connection
	obs listeners
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.tell(false, msg)
	}
	return msg, err
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.tell(true, msg)
	return c.Connection.Write(ctx, msg)
}

func (c *conn) tell(sent bool, msg jsonrpc.Message) {
	if !sent && c.obs.forms != nil {
		var raw []byte
		switch m := msg.(type) {
		case *jsonrpc.Request:
			raw = m.Params
		case *jsonrpc.Response:
			raw = m.Result
		}
		if bytes.Contains(raw, formSchemaKey) {
			c.obs.forms(raw)
		}
	}
	if c.obs.watch != nil {
		if m := jsonscan.Decoded(msg); m.Kind != jsonscan.NotRPC {
			c.obs.watch(sent, m)
		}
	}
	if c.obs.obs != nil {
		c.obs.obs(sent, msg)
	}
}

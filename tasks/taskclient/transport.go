package taskclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/askback/askback/internal/encoding/eventstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capture keeps the raw answer of the call made with its context, without
// reading it: the go-sdk has read it once already, and only an answer that
// may be a task handle is ever looked at again (see [capture.result]).
type capture struct {
	method   string // the request whose answer is kept
	mu       sync.Mutex
	attached bool   // the answer is kept: the call went through Transport
	result   []byte // the JSON-RPC result itself (a Connection's answer)
	body     []byte // or the HTTP body it came in
	sse      bool   // the body is an event stream
	full     bool   // the body outgrew maxScan
}

// setResult keeps the result of a JSON-RPC response.
func (c *capture) setResult(raw json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.attached {
		c.attached = true
		c.result = bytes.Clone(raw)
	}
}

// attach prepares c to keep an HTTP body; it reports false when c keeps
// another answer already.
func (c *capture) attach(sse bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.attached {
		return false
	}
	c.attached, c.sse = true, sse
	return true
}

// write keeps the next bytes of the body.
func (c *capture) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return
	}
	if len(c.body)+len(p) > maxScan {
		c.full = true
		return
	}
	c.body = append(c.body, p...)
}

// get returns the raw result of the call's answer: the first successful
// JSON-RPC response in what was kept. ok is false when nothing was kept
// (the session was not connected through Transport).
func (c *capture) get() (raw json.RawMessage, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.attached {
		return nil, false
	}
	if c.result != nil {
		return c.result, true
	}
	if !c.sse {
		return responseResult(c.body), true
	}
	for _, data := range events(c.body) {
		if r := responseResult(data); r != nil {
			return r, true
		}
	}
	return nil, true
}

// responseResult is the result of msg if it is a successful JSON-RPC
// response, else nil.
func responseResult(msg []byte) json.RawMessage {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(msg), &m) != nil || len(m.ID) == 0 || len(m.Result) == 0 {
		return nil
	}
	return m.Result
}

// events returns the data of each event of an event stream, the last one
// too when the stream ends without the blank line after it (as the go-sdk
// reads it).
func events(stream []byte) [][]byte {
	var out [][]byte
	r := eventstream.NewReader(maxScan, func(e eventstream.Event) {
		if !e.Over {
			out = append(out, bytes.Clone(e.Data))
		}
	})
	r.Write(stream)
	r.End()
	return out
}

type captureKey struct{}

// withCapture keeps the raw answer of the request of the given method
// made with the returned context.
func withCapture(ctx context.Context, method string) (context.Context, *capture) {
	c := &capture{method: method}
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *capture {
	c, _ := ctx.Value(captureKey{}).(*capture)
	return c
}

type taskIDKey struct{}

// withTaskID marks the tasks/* request made with ctx as one about task id,
// for the Mcp-Name routing header.
func withTaskID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, taskIDKey{}, id)
}

// Transport prepares t for task calls. For Streamable HTTP it returns a copy
// whose HTTP client sets the Mcp-Name routing header on tasks/get,
// tasks/update and tasks/cancel of protocol 2026-07-28 (2025-11-25 has no
// such header) and lets this package read the raw answer of
// its own requests (tool calls, and on protocol 2025-11-25 the initialize
// and tools/list answers that say which calls may be tasks); every other
// transport gets a connection that does the latter. Requests not made
// through this package are left alone.
func Transport(t mcp.Transport) mcp.Transport {
	if st, ok := t.(*mcp.StreamableClientTransport); ok {
		c := *st
		hc := http.DefaultClient
		if st.HTTPClient != nil {
			hc = st.HTTPClient
		}
		wrapped := *hc
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		wrapped.Transport = &roundTripper{base: base}
		c.HTTPClient = &wrapped
		return &c
	}
	return &transport{inner: t}
}

type transport struct{ inner mcp.Transport }

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Connection: c, pending: map[jsonrpc.ID]*capture{}}, nil
}

// conn remembers which outgoing tool calls want their raw answer.
type conn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]*capture
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if cp := captureFrom(ctx); cp != nil && req.Method == cp.method {
			c.mu.Lock()
			c.pending[req.ID] = cp
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cp := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if cp != nil && resp.Error == nil {
			cp.setResult(resp.Result)
		}
	}
	return msg, err
}

// roundTripper is the HTTP side of [Transport]. It reads no request: what
// it needs to know travels in the request's context, put there by this
// package's own calls; every other request passes through untouched.
type roundTripper struct{ base http.RoundTripper }

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return rt.base.RoundTrip(req)
	}
	ctx := req.Context()
	if id, _ := ctx.Value(taskIDKey{}).(string); id != "" {
		req = req.Clone(ctx)
		req.Header.Set("Mcp-Name", id)
	}
	resp, err := rt.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	cp := captureFrom(ctx)
	if cp == nil || resp.Body == nil || resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	if m := req.Header.Get("Mcp-Method"); m != "" && m != cp.method {
		return resp, nil // a cancellation or another request that inherited the call's context
	}
	if cp.attach(strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")) {
		resp.Body = &scanBody{ReadCloser: resp.Body, cp: cp}
	}
	return resp, nil
}

// scanBody keeps a copy of a response body as it goes by.
type scanBody struct {
	io.ReadCloser
	cp *capture
}

// maxScan bounds what is kept of one body.
const maxScan = 16 << 20

func (b *scanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.cp.write(p[:n])
	}
	return n, err
}

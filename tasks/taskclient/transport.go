package taskclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capture receives the raw result of the call made with its context.
type capture struct {
	mu   sync.Mutex
	seen bool
	raw  json.RawMessage
}

func (c *capture) set(raw json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen {
		c.seen = true
		c.raw = bytes.Clone(raw)
	}
}

func (c *capture) get() (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw, c.seen
}

type captureKey struct{}

func withCapture(ctx context.Context) (context.Context, *capture) {
	c := &capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *capture {
	c, _ := ctx.Value(captureKey{}).(*capture)
	return c
}

// Transport prepares t for task calls. For Streamable HTTP it returns a copy
// whose HTTP client sets the Mcp-Name routing header on tasks/get,
// tasks/update and tasks/cancel and lets this package read the raw answer of
// its own tool calls; every other transport gets a connection that does the
// latter. Calls not made through this package are left alone.
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
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/call" {
		if cp := captureFrom(ctx); cp != nil {
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
			cp.set(resp.Result)
		}
	}
	return msg, err
}

// roundTripper is the HTTP side of [Transport].
type roundTripper struct{ base http.RoundTripper }

// maxRequestPeek bounds how much of a request body is read to find its
// method; a tool call's arguments can be large, the envelope is not.
const maxRequestPeek = 1 << 20

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return rt.base.RoundTrip(req)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxRequestPeek+1))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	r2 := req.Clone(req.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r2.ContentLength = int64(len(body))
	var env struct {
		Method string `json:"method"`
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if len(body) <= maxRequestPeek {
		_ = json.Unmarshal(body, &env)
	}
	switch env.Method {
	case tasks.MethodGet, tasks.MethodUpdate, tasks.MethodCancel:
		if env.Params.TaskID != "" {
			r2.Header.Set("Mcp-Name", env.Params.TaskID)
		}
	}
	resp, err := rt.base.RoundTrip(r2)
	if err != nil {
		return resp, err
	}
	if cp := captureFrom(req.Context()); cp != nil && env.Method == "tools/call" && resp.Body != nil {
		ct := resp.Header.Get("Content-Type")
		resp.Body = &scanBody{ReadCloser: resp.Body, cp: cp, sse: strings.HasPrefix(ct, "text/event-stream")}
	}
	return resp, nil
}

// scanBody watches a response body go by and hands the first JSON-RPC
// response in it to the capture, before the SDK sees the end of it.
type scanBody struct {
	io.ReadCloser
	cp   *capture
	sse  bool
	buf  bytes.Buffer // JSON: the whole body; SSE: the unfinished line
	data bytes.Buffer // SSE: the data lines of the current event
}

// maxScan bounds what scanBody keeps of one message.
const maxScan = 16 << 20

func (b *scanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.buf.Len() < maxScan {
		b.buf.Write(p[:n])
		if b.sse {
			b.lines()
		}
	}
	if err == io.EOF {
		if b.sse {
			b.buf.WriteByte('\n')
			b.lines()
			b.event()
		} else {
			b.offer(b.buf.Bytes())
		}
	}
	return n, err
}

// lines consumes the complete lines of an event stream.
func (b *scanBody) lines() {
	for {
		i := bytes.IndexByte(b.buf.Bytes(), '\n')
		if i < 0 {
			return
		}
		line := strings.TrimSuffix(string(b.buf.Next(i + 1)[:i]), "\r")
		switch {
		case line == "":
			b.event()
		case strings.HasPrefix(line, "data:"):
			if b.data.Len() > 0 {
				b.data.WriteByte('\n')
			}
			if b.data.Len() < maxScan {
				b.data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
	}
}

func (b *scanBody) event() {
	if b.data.Len() > 0 {
		b.offer(b.data.Bytes())
		b.data.Reset()
	}
}

// offer takes msg if it is a successful JSON-RPC response.
func (b *scanBody) offer(msg []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(msg), &m) == nil && len(m.ID) > 0 && len(m.Result) > 0 {
		b.cp.set(m.Result)
	}
}

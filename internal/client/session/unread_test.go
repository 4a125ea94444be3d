package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodConn is the client's end of a server of protocol 2025-11-25 that,
// asked for its tools, first sends n elicitation/create requests and reads
// none of the answers: each answer the tester writes stays blocked (as in
// a full pipe) until the connection closes.
type floodConn struct {
	n       int
	in      chan jsonrpc.Message
	closed  chan struct{}
	once    sync.Once
	mu      sync.Mutex
	blocked int           // answers being written now
	most    int           // the most answers blocked at once
	over    chan struct{} // closed when more than maxUnread are blocked
	// pipe makes a blocked answer deaf to its context, as a write to a
	// full pipe is: it returns only when the connection closes; and the
	// requests come one at a time, each once the answer to the one before
	// is being written (a server writing at the pace of a pipe).
	pipe    bool
	writing chan struct{} // with pipe: an answer's write began
}

func newFloodConn(n int) *floodConn {
	return &floodConn{n: n, in: make(chan jsonrpc.Message, n+8), closed: make(chan struct{}), over: make(chan struct{})}
}

func (c *floodConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *floodConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closed:
		return nil, mcp.ErrConnectionClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *floodConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		switch m.Method {
		case "initialize":
			c.in <- &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}`)}
		case "tools/list":
			if c.pipe {
				go c.pace()
				return nil
			}
			for i := range c.n {
				id, _ := jsonrpc.MakeID(fmt.Sprintf("flood-%d", i))
				c.in <- &jsonrpc.Request{ID: id, Method: "elicitation/create", Params: json.RawMessage(`{"mode":"form","message":"Q?","requestedSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`)}
			}
			c.in <- &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{"tools":[]}`)}
		}
		return nil
	case *jsonrpc.Response:
		// An answer to one of its requests: the server never reads it.
		c.mu.Lock()
		c.blocked++
		c.most = max(c.most, c.blocked)
		if c.blocked == maxUnread+1 {
			close(c.over)
		}
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			c.blocked--
			c.mu.Unlock()
		}()
		if c.pipe {
			select {
			case c.writing <- struct{}{}:
			case <-c.closed:
			}
			<-c.closed
			return mcp.ErrConnectionClosed
		}
		select {
		case <-c.closed:
			return mcp.ErrConnectionClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// pace sends the requests one at a time, each once the tester has begun
// writing its answer to the one before, until the connection closes.
func (c *floodConn) pace() {
	for i := range c.n {
		id, _ := jsonrpc.MakeID(fmt.Sprintf("flood-%d", i))
		select {
		case c.in <- &jsonrpc.Request{ID: id, Method: "elicitation/create", Params: json.RawMessage(`{"mode":"form","message":"Q?","requestedSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`)}:
		case <-c.closed:
			return
		}
		if i == maxUnread {
			return // the tester stops reading here
		}
		select {
		case <-c.writing:
		case <-c.closed:
			return
		}
	}
}

func (c *floodConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *floodConn) SessionID() string { return "" }

// A server that floods the tester with requests of its own and reads no
// answer holds no more than maxUnread of them in the tester: the tester
// stops reading, and the request under way ends with an error that says
// why, however many the server sends.
func TestServerFloodingRequestsIsBounded(t *testing.T) {
	const flood = 5000
	fc := newFloodConn(flood)
	s := openFlood(t, &target.Target{Dial: func() (mcp.Transport, func(), error) { return fc, func() { fc.Close() }, nil }}, 0)
	defer s.Close()
	done := make(chan error, 1)
	go func() {
		_, _, err := s.ListTools(context.Background(), Pages{})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-fc.over:
		fc.Close()
		t.Fatalf("more than %d answers waited to be written at once", maxUnread)
	}
	fc.mu.Lock()
	most := fc.most
	fc.mu.Unlock()
	if most > maxUnread {
		t.Errorf("%d answers waited to be written at once; want at most %d", most, maxUnread)
	}
	if err == nil || !errors.Is(err, errServerFlooded) || KindOf(err) != KindProtocol {
		t.Fatalf("ListTools: %v (kind %v); want the protocol error %q", err, KindOf(err), errServerFlooded)
	}
	if !strings.Contains(err.Error(), "tools/list") {
		t.Errorf("error %q does not name the request", err)
	}
}

// A server that stops reading its input leaves the tester's answers to it
// blocked in a full pipe, deaf to any context: the session's Close still
// ends (the go-sdk's close alone waits for them for ever).
func TestCloseEndsWhenTheServerReadsNoAnswer(t *testing.T) {
	fc := newFloodConn(5000)
	fc.pipe, fc.writing = true, make(chan struct{}, 1)
	s := openFlood(t, &target.Target{Dial: func() (mcp.Transport, func(), error) { return fc, func() { fc.Close() }, nil }}, 0)
	if _, _, err := s.ListTools(context.Background(), Pages{}); !errors.Is(err, errServerFlooded) {
		t.Fatalf("ListTools: %v; want %q", err, errServerFlooded)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // only a failure waits this long
		fc.Close()
		t.Fatal("Close did not return while answers to the server were blocked")
	}
}

// httpFlood is a Streamable HTTP server of protocol 2025-11-25 that,
// asked for its tools, sends n elicitation/create requests on the
// answer's event stream, then the list when list is set (else nothing
// more), and never answers the POSTs that carry the tester's answers.
func httpFlood(t *testing.T, n int, list bool) *httptest.Server {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		switch {
		case m.Method == "":
			<-r.Context().Done() // an answer: never taken
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}`, m.ID)
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", "text/event-stream")
			for i := range n {
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"flood-%d\",\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Q?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}}}\n\n", i)
				w.(http.Flusher).Flush()
			}
			if list {
				fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[]}}\n\n", m.ID)
				w.(http.Flusher).Flush()
				return
			}
			<-r.Context().Done()
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
		}
	}))
	t.Cleanup(hs.Close)
	return hs
}

// Over HTTP too, a server that floods the tester with requests of its own
// and takes none of the answers (their POSTs are never answered) holds at
// most maxUnread of them: the request under way ends with the error that
// says why, and the session closes.
func TestHTTPServerFloodingRequestsIsBounded(t *testing.T) {
	hs := httpFlood(t, 5000, false)
	s := openFlood(t, &target.Target{URL: hs.URL}, 1<<20)
	_, _, err := s.ListTools(context.Background(), Pages{})
	if err == nil || !errors.Is(err, errServerFlooded) || KindOf(err) != KindProtocol {
		t.Fatalf("ListTools: %v (kind %v); want the protocol error %q", err, KindOf(err), errServerFlooded)
	}
	closeWithin(t, s)
}

// A server that answers but never takes the answers to its own questions
// (their POSTs hang) does not hang the session's close.
func TestHTTPCloseEndsWhenTheServerTakesNoAnswer(t *testing.T) {
	hs := httpFlood(t, 3, true)
	s := openFlood(t, &target.Target{URL: hs.URL}, 0)
	if _, _, err := s.ListTools(context.Background(), Pages{}); err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	closeWithin(t, s)
}

// closeWithin closes s, and fails the test when Close does not return.
func closeWithin(t *testing.T, s *Session) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // only a failure waits this long
		t.Fatal("Close did not return while answers to the server were under way")
	}
}

// openFlood opens a session of protocol 2025-11-25 that answers forms, to
// a flooding server (maxRounds 0: the default).
func openFlood(t *testing.T, tg *target.Target, maxRounds int) *Session {
	t.Helper()
	s, err := Open(context.Background(), Options{Target: tg, Protocol: "2025-11-25", Capabilities: Capabilities{Form: true}, MaxRounds: maxRounds})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

package endpoint_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/endpoint"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memTransport serves a client's requests with a handler in memory, as if
// they came from the address from: each request's body streams back as the
// handler writes it (event streams included), and ends when the handler
// returns or the client closes it. No network: it runs in a synctest
// bubble.
type memTransport struct {
	h    http.Handler
	from string          // host:port the requests come from
	gone context.Context // when done, the client has gone: its connections drop, without a word
}

func (m *memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if m.gone != nil {
		if m.gone.Err() != nil {
			return nil, m.gone.Err()
		}
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		context.AfterFunc(m.gone, stop)
	}
	sr := req.Clone(ctx)
	sr.RemoteAddr = m.from
	sr.RequestURI = req.URL.RequestURI()
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, headed: make(chan struct{})}
	go func() {
		m.h.ServeHTTP(w, sr)
		w.WriteHeader(http.StatusOK) // no-op when written
		pw.Close()
	}()
	select {
	case <-w.headed:
	case <-ctx.Done():
		pr.CloseWithError(ctx.Err())
		return nil, ctx.Err()
	}
	if m.gone != nil {
		context.AfterFunc(ctx, func() { pr.CloseWithError(context.Canceled) })
	}
	return &http.Response{StatusCode: w.status, Status: http.StatusText(w.status), Header: w.sent, Body: pr,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: req, ContentLength: -1}, nil
}

// pipeWriter is the handler's side of a memTransport response.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	pw     *io.PipeWriter
	once   sync.Once
	status int
	headed chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	w.once.Do(func() {
		w.status, w.sent = code, w.header.Clone()
		close(w.headed)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

func (w *pipeWriter) Flush() {}

// flood is one client of a flood: a session whose call waits on a question
// it never answers.
type flood struct {
	cs    *mcp.ClientSession
	leave context.CancelFunc // drops the client's connections, telling the server nothing
}

// TestManyAddressesLockNobodyOut is the flood of the fourth review, scaled
// down: clients at 7 addresses (16 each, the most one address may hold)
// open sessions whose calls wait on questions they never answer, until
// every place they may take is taken. Newcomers at other addresses still
// open sessions and are served at once: first in the places kept for
// them, then in places given up by the addresses holding the most, whose
// calls are ended in the background. None of them waits for a busy session
// to close: in the bubble, no time passes while they connect (a wait for a
// question, which times out after 10 minutes, would move the clock), and
// the flood's other calls are still waiting when they are done. After the
// flood's clients leave (their calls still blocked at the server),
// newcomers take their idle places, again without waiting.
func TestManyAddressesLockNobodyOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const maxSessions, addresses, perAddress = 100, 7, 16
		const reserved = maxSessions / 10
		s := askingServer()
		var waiting atomic.Int64 // questions the server waits on
		s.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method != "elicitation/create" {
					return next(ctx, method, req)
				}
				waiting.Add(1)
				defer waiting.Add(-1)
				return next(ctx, method, req)
			}
		})
		h := endpoint.New(func(*http.Request) *mcp.Server { return s }, &endpoint.Options{MaxSessions: maxSessions})
		ctx := context.Background()
		never := make(chan struct{}) // the flood's questions are answered never (until the end)
		var clients []*mcp.ClientSession
		defer func() {
			close(never)
			for _, cs := range clients {
				cs.Close()
			}
		}()

		var flooders []*flood
		for a := range addresses {
			for range perAddress {
				if f, err := floodSession(ctx, h, fmt.Sprintf("127.0.0.%d:40000", a+2), never); err == nil {
					flooders = append(flooders, f)
					clients = append(clients, f.cs)
				}
			}
		}
		synctest.Wait() // every call of the flood waits on its question
		held := h.Sessions()
		if held < maxSessions-reserved || waiting.Load() != int64(held) {
			t.Fatalf("the flood holds %d sessions (%d questions waiting), want at least all but the %d kept for newcomers", held, waiting.Load(), reserved)
		}

		// 30 newcomers, one address each: the free places first, then
		// places the flood gives up.
		for i := range 30 {
			start := time.Now()
			cs, text, err := newcomer(ctx, h, fmt.Sprintf("127.0.1.%d:40000", i+1))
			if err != nil || text != "hello ann (accept)" {
				t.Fatalf("newcomer %d during the flood: %q, %v", i, text, err)
			}
			clients = append(clients, cs)
			if waited := time.Since(start); waited != 0 {
				t.Fatalf("newcomer %d waited %v (for a busy session to close?)", i, waited)
			}
		}
		synctest.Wait()
		given := 30 - (maxSessions - held) // places the flood gave up
		if w := waiting.Load(); w != int64(held-given) || h.Sessions() != maxSessions {
			t.Fatalf("%d of the flood's questions still wait, want %d (%d places given up); %d sessions open", w, held-given, given, h.Sessions())
		}
		if h.Closing() != 0 {
			t.Fatalf("%d sessions given up are still closing: their calls did not end", h.Closing())
		}

		// The flood's clients leave; their calls still wait at the server.
		for _, f := range flooders {
			f.leave()
		}
		synctest.Wait()
		left := waiting.Load()
		if left != int64(held-given) {
			t.Fatalf("%d questions wait after the flood's clients left, want %d", left, held-given)
		}
		for i := range 30 {
			start := time.Now()
			cs, text, err := newcomer(ctx, h, fmt.Sprintf("127.0.2.%d:40000", i+1))
			if err != nil || text != "hello ann (accept)" {
				t.Fatalf("newcomer %d after the flood left: %q, %v", i, text, err)
			}
			clients = append(clients, cs)
			if waited := time.Since(start); waited != 0 {
				t.Fatalf("newcomer %d after the flood left waited %v", i, waited)
			}
		}
		synctest.Wait()
		if w := waiting.Load(); w != left-30 {
			t.Fatalf("%d of the flood's questions still wait, want %d (30 places given up)", w, left-30)
		}

		time.Sleep(endpoint.DefaultSessionTimeout + time.Minute)
		if n := h.Sessions(); n != 0 {
			t.Fatalf("%d sessions left after everything idled out", n)
		}
		synctest.Wait()
		if h.Closing() != 0 || waiting.Load() != 0 {
			t.Fatalf("%d sessions still closing, %d questions waiting at the end", h.Closing(), waiting.Load())
		}
	})
}

// floodSession opens a session from addr and calls greet, whose question it
// never answers (until never is closed); it returns once the call waits on
// its question.
func floodSession(ctx context.Context, h http.Handler, addr string, never chan struct{}) (*flood, error) {
	asked := make(chan struct{})
	var once sync.Once
	c := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			once.Do(func() { close(asked) })
			select {
			case <-ctx.Done():
			case <-never:
			}
			return nil, context.Canceled
		},
	})
	gone, leave := context.WithCancel(context.Background())
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://mcp.test/mcp",
		HTTPClient: &http.Client{Transport: &memTransport{h: h, from: addr, gone: gone}}, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		leave()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
	}()
	select {
	case <-asked:
	case <-done:
	}
	return &flood{cs: cs, leave: leave}, nil
}

// newcomer opens a session from addr, calls greet and answers "ann"; it
// returns the session, kept open, and the greeting.
func newcomer(ctx context.Context, h http.Handler, addr string) (*mcp.ClientSession, string, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "newcomer", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ann"}}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://mcp.test/mcp",
		HTTPClient: &http.Client{Transport: &memTransport{h: h, from: addr}}, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, "", err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
	if err != nil {
		cs.Close()
		return nil, "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return cs, b.String(), nil
}

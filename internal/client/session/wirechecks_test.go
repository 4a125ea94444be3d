package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/internal/encoding/jsonscan"
	"github.com/askback/askback/internal/encoding/strictjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rewriting serves a go-sdk server over stateless Streamable HTTP (JSON
// answers) with each answer's bytes passed through edit on the way out.
func rewriting(t *testing.T, edit func([]byte) []byte) *Session {
	t.Helper()
	return rewritingWithin(t, 10*time.Second, edit)
}

// rewritingWithin is rewriting, with timeout the session's.
func rewritingWithin(t *testing.T, timeout time.Duration, edit func([]byte) []byte) *Session {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "edited", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(edit(rec.Body.Bytes()))
	}))
	t.Cleanup(hs.Close)
	s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Over HTTP the session reads each answer's bytes once (jsonscan): a key
// twice in a result, in the message itself, or a result without content
// fails the call, as on stdio.
func TestAnswerChecksOverHTTP(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"repeat in the result", `"isError":false`, `"isError":true,"isError":false`, `key "isError" appears twice in the object at $`},
		{"repeat in content", `"type":"text"`, `"type":"image","type":"text"`, `key "type" appears twice in the object at $.content[0]`},
		{"result twice", `"result":{`, `"result":{"content":[{"type":"text","text":"hidden"}],"isError":true},"result":{`, `key "result" appears twice in the JSON-RPC message`},
		{"escaped repeat", `"isError":false`, `"isError":true,"\u0069sError":false`, `key "isError" appears twice`},
		{"no content", `"content":[{"type":"text","text":"ok"}]`, `"content":null`, `the server's result has no content`},
		// The go-sdk reads the first value of a body and ignores the rest;
		// another client may read the rest.
		{"bytes after", `"text":"ok"}]}}`, `"text":"ok"}]}} trailing`, `the server's answer to tools/call is followed by more in the same body`},
		{"a result, then an error", `"text":"ok"}]}}`, `"text":"ok"}]}} {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"failed"}}`, `is followed by more in the same body (a second answer?)`},
		{"isError in two cases", `"isError":false`, `"isError":false,"IsError":true`, `keys "isError" and "IsError" differ only in letter case in the object at $`},
		{"IsError alone", `"isError":false`, `"IsError":true`, `the result has "IsError", which a reader that matches keys in any letter case takes for "isError"`},
		{"resultType bogus", `"isError":false`, `"isError":false,"resultType":"bogus"`, `has resultType "bogus", which the protocol does not define`},
		{"an unsolicited task handle", `"content":[{"type":"text","text":"ok"}]`, `"resultType":"task","task":{"taskId":"t1","status":"working"}`, `the server answered with a task handle (resultType "task") though no task was asked for`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := rewriting(t, func(b []byte) []byte {
				if !bytes.Contains(b, []byte(`"text":"ok"`)) {
					return b
				}
				b = bytes.Replace(b, []byte(`"isError":false,`), nil, 1) // where the go-sdk puts it varies
				b = bytes.Replace(b, []byte(`,"resultType":"complete"`), nil, 1)
				b = bytes.Replace(b, []byte(`"content":[`), []byte(`"isError":false,"content":[`), 1)
				return bytes.Replace(b, []byte(c.from), []byte(c.to), 1)
			})
			_, _, err := s.CallTool(ctx, "echo", nil, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("CallTool: %v, want an error with %q", err, c.want)
			}
			if strings.Contains(c.want, "twice") && !errors.Is(err, strictjson.ErrAmbiguous) {
				t.Errorf("%v does not wrap strictjson.ErrAmbiguous", err)
			}
		})
	}
	// The same server unedited answers.
	s := rewriting(t, func(b []byte) []byte { return b })
	if _, _, err := s.CallTool(ctx, "echo", nil, nil); err != nil {
		t.Fatalf("unedited: %v", err)
	}
}

// Over HTTP, a JSON answer to a request that has another id, which no
// request had, fails the request at once, with what came: that POST can
// bring no other answer, so the session does not wait out its time limit
// (here so long that a request waiting for it would fail the test by what
// it says: "did not answer within 5m0s").
func TestStrayAnswerFailsAtOnceOverHTTP(t *testing.T) {
	s := rewritingWithin(t, 5*time.Minute, func(b []byte) []byte {
		if !bytes.Contains(b, []byte(`"text":"ok"`)) {
			return b
		}
		return regexp.MustCompile(`"id":[0-9]+`).ReplaceAll(b, []byte(`"id":987654`))
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, err := s.CallTool(ctx, "echo", nil, nil)
	want := `tools/call "echo": the server answered with the JSON-RPC id 987654, which no request had`
	if KindOf(err) != KindProtocol || err == nil || err.Error() != want {
		t.Fatalf("CallTool: %v (kind %d), want %q (kind %d)", err, KindOf(err), want, KindProtocol)
	}
	if ctx.Err() != nil {
		t.Fatalf("the request's context ended: %v", ctx.Err())
	}
	// The connection ended on it: the next request says why.
	if err := s.Ping(ctx); err == nil || !strings.HasSuffix(err.Error(), "which no request had") {
		t.Errorf("Ping after: %v, want the stray answer again", err)
	}
}

// A second answer to one request (a result, then an error) is kept until
// a call or the session's end reports it, however late it comes; an
// answer to no request is a stray, not a second answer.
func TestSecondAnswerIsKept(t *testing.T) {
	var r toolResults
	r.watch(true, jsonscan.Scan([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`)))
	r.watch(false, jsonscan.Scan([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)))
	if err := r.takeTwice(); err != nil {
		t.Fatalf("one answer: %v", err)
	}
	r.takeRepeated() // a new request's start forgets the last one's repeats, not this
	r.watch(false, jsonscan.Scan([]byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"no"}}`)))
	r.takeRepeated()
	err := r.takeTwice()
	if err == nil || err.Error() != "the server answered tools/call (id 7) twice: a result, then an error; refused (a client may take either)" {
		t.Fatalf("a second answer: %v", err)
	}
	if err := r.takeTwice(); err != nil {
		t.Errorf("reported twice: %v", err)
	}
	r.watch(false, jsonscan.Scan([]byte(`{"jsonrpc":"2.0","id":8,"result":{}}`)))
	if r.takeTwice() != nil || r.takeStray() != "8" {
		t.Error("an answer to no request is a stray")
	}
}

// The answers remembered to tell a second one are the latest
// maxAnswered: a second answer to the oldest of them is told, one to a
// request answered before them is a stray (forgotten, as the bound
// wants), and remembering costs the same however long the session runs.
func TestSecondAnswerRemembersTheLatest(t *testing.T) {
	var r toolResults
	answer := func(id int) {
		r.watch(true, jsonscan.Scan(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x"}}`, id)))
		r.watch(false, jsonscan.Scan(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, id)))
	}
	const n = 3*maxAnswered + 7
	for id := 1; id <= n; id++ {
		answer(id)
	}
	if len(r.answered.entries) != maxAnswered || cap(r.answered.entries) != maxAnswered {
		t.Fatalf("%d answers remembered in room for %d, want %d", len(r.answered.entries), cap(r.answered.entries), maxAnswered)
	}
	r.watch(false, jsonscan.Scan(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"no"}}`, n-maxAnswered+1)))
	if err := r.takeTwice(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("(id %d) twice", n-maxAnswered+1)) {
		t.Fatalf("a second answer to the oldest remembered: %v", err)
	}
	r.watch(false, jsonscan.Scan(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"no"}}`, n-maxAnswered)))
	if err := r.takeTwice(); err != nil || r.takeStray() != fmt.Sprint(n-maxAnswered) {
		t.Fatalf("an answer to one forgotten: %v, stray %q", err, r.takeStray())
	}
	id, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		t.Fatal(err)
	}
	// Remembering keeps the ring's room (its allocations are
	// BenchmarkAnsweredAdd's figure).
	room := cap(r.answered.entries)
	for range 3 * maxAnswered {
		r.answered.add(id, "tools/call", false)
	}
	if len(r.answered.entries) > maxAnswered || cap(r.answered.entries) != room {
		t.Errorf("%d answers remembered in room for %d, was %d, want at most %d", len(r.answered.entries), cap(r.answered.entries), room, maxAnswered)
	}
	// A string id is told apart from the number it spells, and found.
	sid, _ := jsonrpc.MakeID("7")
	r.answered.add(sid, "prompts/get", true)
	if a, ok := r.answered.find(sid); !ok || a.method != "prompts/get" || !a.failed {
		t.Errorf("string id 7: %+v %v", a, ok)
	}
	if nid, _ := jsonrpc.MakeID(float64(7)); n > 7+maxAnswered {
		if _, ok := r.answered.find(nid); ok {
			t.Error("number 7 (forgotten) found as the string \"7\"")
		}
	}
}

// BenchmarkAnsweredAdd: remembering an answer in a full ring (make bench:
// allocs/op, none expected).
func BenchmarkAnsweredAdd(b *testing.B) {
	var r toolResults
	id, err := jsonrpc.MakeID(float64(1))
	if err != nil {
		b.Fatal(err)
	}
	for range maxAnswered + 1 {
		r.answered.add(id, "tools/call", false)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.answered.add(id, "tools/call", false)
	}
}

// straying is a server's end of a connection that answers tools/call with
// the id 987654, which no request had.
type straying struct {
	mcp.Connection
	mu    sync.Mutex
	calls map[jsonrpc.ID]bool
}

func (c *straying) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "tools/call" {
		c.mu.Lock()
		c.calls[r.ID] = true
		c.mu.Unlock()
	}
	return msg, err
}

func (c *straying) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := msg.(*jsonrpc.Response); ok && c.calls[r.ID] {
		stray := *r
		stray.ID, _ = jsonrpc.MakeID(float64(987654))
		msg = &stray
	}
	return c.Connection.Write(ctx, msg)
}

type strayingTransport struct{ mcp.Transport }

func (t strayingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &straying{Connection: c, calls: map[jsonrpc.ID]bool{}}, nil
}

// Where another message may still come (a connection that stays open: a
// command's stdio, a server in this process), a stray answer does not end
// the request: it waits for its time limit, and then says what came. In
// fake time (testing/synctest): the limit passes at once.
func TestStrayAnswerWaitsWhereMoreMayCome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "straying", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		dial := func() (mcp.Transport, func(), error) {
			ct, st := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(context.Background(), strayingTransport{st}, nil)
			if err != nil {
				return nil, nil, err
			}
			return ct, func() { ss.Close() }, nil
		}
		s, err := Open(context.Background(), Options{Target: &target.Target{Dial: dial}, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		start := time.Now()
		_, _, err = s.CallTool(context.Background(), "echo", nil, nil)
		want := `tools/call "echo": the server did not answer within 20s: the server answered with the JSON-RPC id 987654, which no request had`
		if KindOf(err) != KindProtocol || err == nil || err.Error() != want {
			t.Fatalf("CallTool: %v (kind %d), want %q (kind %d)", err, KindOf(err), want, KindProtocol)
		}
		if waited := time.Since(start); waited < 20*time.Second {
			t.Errorf("the request ended after %s, before its limit", waited)
		}
	})
}

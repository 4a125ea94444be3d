package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/answer"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server of protocol 2025-11-25 asks with elicitation/create requests of
// its own; what the tester will not answer (an answer refused, a server
// that keeps asking) stops the call, and the server's request gets an
// error of fixed words.

// fixedAnswer answers every question with accept and content.
type fixedAnswer map[string]any

func (a fixedAnswer) Answer(context.Context, *answer.Question) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: a}, nil
}

// wireLog keeps every message the tester sent, as JSON.
type wireLog struct {
	mu   sync.Mutex
	sent []string
	asks int // elicitation/create requests received
}

func (l *wireLog) observe(sent bool, msg jsonrpc.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := msg.(*jsonrpc.Request); ok && !sent && r.Method == "elicitation/create" {
		l.asks++
	}
	if sent {
		b, _ := json.Marshal(msg)
		l.sent = append(l.sent, string(b))
	}
}

// openAsking opens a session of protocol 2025-11-25 on a server whose tool
// ask asks with elicitation/create, again after every answer when forever
// is set, and returns what the tool's last question got.
func openAsking(t *testing.T, forever bool, opts Options) (*Session, *wireLog, chan error) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	got := make(chan error, 1)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for n := 1; ; n++ {
			_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("Where to (%d)?", n), RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string", "enum": []any{"staging", "production"}}},
			}})
			if err != nil || !forever {
				got <- err
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			}
		}
	})
	dial := func() (mcp.Transport, func(), error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
	log := &wireLog{}
	opts.Target = &target.Target{Dial: dial}
	opts.Protocol = "2025-11-25"
	opts.Timeout = time.Minute
	opts.Capabilities = Capabilities{Form: true}
	opts.Observe = log.observe
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, log, got
}

// An answer that fails the form's schema is not sent: not as the answer,
// nor inside the error the server's request gets, whose words are fixed;
// the call is cancelled, and the message says so, not that the call
// "stays unfinished".
func TestRefusedAnswerIsNeverSent(t *testing.T) {
	const secret = "hunter2-typed-in-the-wrong-field"
	s, log, got := openAsking(t, false, Options{Answerer: fixedAnswer{"env": secret}, Validate: true})
	_, _, err := s.CallTool(context.Background(), "ask", nil, nil)
	if err == nil {
		t.Fatal("the call passed with a refused answer")
	}
	if !strings.Contains(err.Error(), "the answer was not sent: the call was cancelled after 1 request(s)") || strings.Contains(err.Error(), "stays unfinished") {
		t.Errorf("error %q; want it to say the answer was not sent and the call was cancelled", err)
	}
	if KindOf(err) != KindAnswer {
		t.Errorf("kind %v, want KindAnswer", KindOf(err))
	}
	// The server's Elicit ends: with the tester's error, or with the
	// call's cancellation if that came first.
	select {
	case e := <-got:
		var w *jsonrpc.Error
		if errors.As(e, &w) && (w.Code != codeRefused || w.Message != "the client did not answer this request") {
			t.Errorf("the server's request got %v; want code %d and fixed words", w, codeRefused)
		}
		if e == nil {
			t.Error("the server's question got an answer")
		}
	case <-time.After(time.Minute):
		t.Fatal("the server's question was never ended")
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, m := range log.sent {
		if strings.Contains(m, "hunter2") {
			t.Errorf("the refused answer was sent: %s", m)
		}
	}
}

// A server that asks again after every answer is stopped after MaxRounds
// questions, as a server of 2026-07-28 is after MaxRounds rounds: the
// question that reaches the bound is not answered, and kept with why.
func TestServerAskingForEverIsStopped(t *testing.T) {
	s, log, got := openAsking(t, true, Options{MaxRounds: 3})
	_, c, err := s.CallTool(context.Background(), "ask", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `tools/call "ask": the server still asks after 3 rounds; stopped`) {
		t.Fatalf("error %v; want the server stopped after 3 rounds", err)
	}
	if KindOf(err) != KindProtocol {
		t.Errorf("kind %v, want KindProtocol", KindOf(err))
	}
	if len(c.Questions) != 3 || c.Questions[2].Answer != nil {
		t.Errorf("%d questions kept, want the 2 answered and the one refused", len(c.Questions))
	}
	select {
	case <-got:
	case <-time.After(time.Minute):
		t.Fatal("the server's tool never ended")
	}
	log.mu.Lock()
	asks := log.asks
	log.mu.Unlock()
	if asks != 3 {
		t.Errorf("the server asked %d times, want 3", asks)
	}
	// The next call has a bound of its own.
	_, c, err = s.CallTool(context.Background(), "ask", nil, nil)
	if err == nil || len(c.Questions) != 3 {
		t.Errorf("second call: %v with %d questions; want it stopped the same way", err, len(c.Questions))
	}
}

// Questions a server asks while no call is in progress are bounded the
// same way: past MaxRounds of them, until the next call, each gets the
// fixed error, and only the one that reached the bound is kept.
func TestQuestionsBetweenCallsAreBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	errs := make(chan error, 1)
	returned := make(chan struct{}) // the call has returned: no call is in progress
	srv.AddTool(&mcp.Tool{Name: "later", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		go func() {
			<-returned
			var last error
			for n := 1; n <= 20; n++ {
				_, last = req.Session.Elicit(context.Background(), &mcp.ElicitParams{Message: fmt.Sprintf("Meanwhile %d?", n), RequestedSchema: map[string]any{"type": "object"}})
			}
			errs <- last
		}()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	dial := func() (mcp.Transport, func(), error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
	s, err := Open(context.Background(), Options{Target: &target.Target{Dial: dial}, Protocol: "2025-11-25", Timeout: time.Minute,
		Capabilities: Capabilities{Form: true}, MaxRounds: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CallTool(context.Background(), "later", nil, nil); err != nil {
		t.Fatal(err)
	}
	close(returned)
	last := <-errs
	var w *jsonrpc.Error
	if !errors.As(last, &w) || w.Code != codeRefused {
		t.Errorf("the 20th question got %v; want the fixed refusal", last)
	}
	if n := s.log.Len(); n > 4 {
		t.Errorf("%d questions kept between calls, want at most 4", n)
	}
	// The next call fails for them, naming no request (none was waiting).
	_, _, err = s.CallTool(context.Background(), "later", nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "between calls: the server still asks after 4 rounds") {
		t.Errorf("the next call: %v; want it to fail for the questions asked between calls", err)
	}
}

// Questions a server asks while a request of the tester's other than a
// call waits for its answer (the tools/list read to check a call's
// arguments) are bounded as those between calls are, and named by that
// request and why it was made, not as asked between calls.
func TestQuestionsInAListingNameIt(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "x", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				ss := req.GetSession().(*mcp.ServerSession)
				for n := 1; n <= 6; n++ {
					if _, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("Q%d", n), RequestedSchema: map[string]any{"type": "object"}}); err != nil {
						break
					}
				}
			}
			return next(ctx, method, req)
		}
	})
	dial := func() (mcp.Transport, func(), error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
	s, err := Open(context.Background(), Options{Target: &target.Target{Dial: dial}, Protocol: "2025-11-25", Timeout: time.Minute,
		Capabilities: Capabilities{Form: true}, MaxRounds: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.ListTools(WithPurpose(context.Background(), "read before the call to check --args"), Pages{All: true}); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.CallTool(context.Background(), "x", nil, nil)
	want := "tools/list (read before the call to check --args): the server still asks after 4 rounds; stopped"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("the call after the listing: %v; want %s…", err, want)
	}
	// The questions are the listing's, in the log.
	if s.log.Len() == 0 {
		t.Error("no question logged")
	}
	for _, e := range s.log.Entries() {
		if e.Method != "tools/list" || e.Name != "" {
			t.Errorf("a question logged as asked in %s %q, want tools/list", e.Method, e.Name)
		}
	}
}

// With --max-rounds N the call is the first round and each question of
// 2025-11-25 another: N-1 questions are answered, the one that reaches
// the bound is refused, kept in the call's questions with why, and the
// message counts the rounds in good grammar.
func TestQuestionPastMaxRoundsIsListed(t *testing.T) {
	for _, n := range []int{1, 3} {
		s, log, _ := openAsking(t, true, Options{Answerer: fixedAnswer{"env": "staging"}, MaxRounds: n})
		_, call, err := s.CallTool(context.Background(), "ask", nil, nil)
		want := fmt.Sprintf("the server still asks after %d rounds; stopped", n)
		if n == 1 {
			want = "the server still asks after 1 round; stopped"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("max %d: error %v; want %q", n, err, want)
		}
		if call == nil || len(call.Questions) != n {
			t.Fatalf("max %d: call %+v; want %d questions", n, call, n)
		}
		last := call.Questions[n-1]
		if last.Answer != nil || last.Note != fmt.Sprintf("not answered: past --max-rounds (%s)", rounds(n)) {
			t.Errorf("max %d: the refused question is %+v", n, last)
		}
		for _, q := range call.Questions[:n-1] {
			if q.Answer == nil || q.Answer.Action != "accept" {
				t.Errorf("max %d: question %q not answered: %+v", n, q.Params.Message, q)
			}
		}
		log.mu.Lock()
		asks := log.asks
		log.mu.Unlock()
		if asks < n {
			t.Errorf("max %d: the server asked %d times", n, asks)
		}
	}
}

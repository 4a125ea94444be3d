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
	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An interrupt (Ctrl-C: the context of a call ends) at any step of a call
// ends it there, and the session tells the caller what it leaves.

// A call interrupted (its context ended) the moment the server's task
// handle comes back, which the go-sdk reports as the interrupt alone,
// tells of the task it leaves all the same: the session hears of it
// (OnTask, Call.Task), which a command says when it is interrupted, and
// does not take the call for one that started nothing.
func TestInterruptedAsTheHandleCame(t *testing.T) {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(tasks.ExtensionID, map[string]any{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	srv.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not a task"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				return &rawResult{b: json.RawMessage(`{"resultType":"task","taskId":"T1","status":"working","statusMessage":"started","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`)}, nil
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
	call, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var heard []taskclient.Update
	s, err := Open(context.Background(), Options{
		Target: &target.Target{Dial: dial}, Timeout: time.Minute, Tasks: true,
		OnTask: func(u taskclient.Update) { heard = append(heard, u) },
		// The interrupt comes as the answer to the call is read, before
		// the go-sdk has it.
		Observe: func(sent bool, msg jsonrpc.Message) {
			if r, ok := msg.(*jsonrpc.Response); ok && !sent && strings.Contains(string(r.Result), `"resultType":"task"`) {
				interrupt()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, c, err := s.CallTool(call, "job", nil, nil)
	if err == nil || call.Err() == nil {
		t.Fatalf("the call ended with %v, the interrupt %v; want both", err, call.Err())
	}
	if c.Task == nil || c.Task.TaskID != "T1" || c.Task.Status != tasks.StatusWorking {
		t.Errorf("the call's task is %+v, want T1 working", c.Task)
	}
	if len(heard) != 1 || heard[0].TaskID != "T1" || heard[0].Status != tasks.StatusWorking {
		t.Errorf("OnTask heard %+v, want T1 working once", heard)
	}
}

// sentLog is a transport that keeps the method of every request it is
// given to send.
type sentLog struct {
	mcp.Transport
	mu      sync.Mutex
	methods []string
}

func (l *sentLog) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := l.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &sentLogConn{Connection: c, log: l}, nil
}

func (l *sentLog) sent() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.methods...)
}

type sentLogConn struct {
	mcp.Connection
	log *sentLog
}

func (c *sentLogConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok {
		c.log.mu.Lock()
		c.log.methods = append(c.log.methods, r.Method)
		c.log.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// A call whose context has ended before it was sent (a command interrupted
// while it listed the tools, before the call) sends nothing: not the call,
// which would start on the server what the person stopped, with nobody
// left to hear of it; nor, after it, a prompt or a read. Over HTTP the
// go-sdk would send such a request and cancel it only after.
func TestNothingSentAfterTheInterrupt(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "started"}}}, nil
	})
	var log *sentLog
	dial := func() (mcp.Transport, func(), error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		log = &sentLog{Transport: ct}
		return log, func() { ss.Close() }, nil
	}
	s, err := Open(context.Background(), Options{Target: &target.Target{Dial: dial}, Timeout: time.Minute, Tasks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := len(log.sent())
	call, interrupt := context.WithCancel(context.Background())
	interrupt()
	if _, _, err := s.CallTool(call, "job", nil, nil); err == nil {
		t.Error("the interrupted call succeeded")
	}
	if _, _, err := s.GetPrompt(call, "p", nil, nil); err == nil {
		t.Error("the interrupted prompts/get succeeded")
	}
	if _, _, err := s.ReadResource(call, "note://1", nil); err == nil {
		t.Error("the interrupted resources/read succeeded")
	}
	if sent := log.sent()[before:]; len(sent) > 0 {
		t.Errorf("after the interrupt the session sent %v, want nothing", sent)
	}
}

// interruptedAsking is a person interrupted (Ctrl-C) while a question is
// shown: the interrupt ends the call, and what the prompt makes of it
// comes back all the same, the way a line prompt whose input ends with
// the interrupt (a pipe from a process of the same group) reports no
// answer, or an answer typed as the interrupt came is returned.
type interruptedAsking struct {
	interrupt func()
	res       *mcp.ElicitResult
}

func (a interruptedAsking) Answer(context.Context, *answer.Question) (*mcp.ElicitResult, error) {
	a.interrupt()
	if a.res == nil {
		return nil, answer.ErrNoAnswer
	}
	return a.res, nil
}

// responses is a transport that keeps every response the client sends.
type responses struct {
	mcp.Transport
	mu   sync.Mutex
	sent []string
}

func (r *responses) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &responsesConn{Connection: c, log: r}, nil
}

type responsesConn struct {
	mcp.Connection
	log *responses
}

func (c *responsesConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.log.mu.Lock()
		what := fmt.Sprintf("a result (id %v)", r.ID.Raw())
		if r.Error != nil {
			what = fmt.Sprintf("an error (id %v): %v", r.ID.Raw(), r.Error)
		}
		c.log.sent = append(c.log.sent, what)
		c.log.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// withdrawnFirst is a server's question withdrawn while it is asked, and
// then the person interrupted: the order in which the interrupt of a call
// can reach the session, since the go-sdk's cancelling the call makes the
// server withdraw its question (notifications/cancelled), which may land
// before the interrupt does. withdraw makes the server withdraw it; the
// question's own context ends when the withdrawal has arrived.
type withdrawnFirst struct {
	withdraw  func()
	interrupt func()
	res       *mcp.ElicitResult
}

func (a withdrawnFirst) Answer(ctx context.Context, _ *answer.Question) (*mcp.ElicitResult, error) {
	a.withdraw()
	<-ctx.Done()
	a.interrupt()
	return a.res, nil
}

// refused is the one response an interrupted question may get: the fixed
// words of a request the tester did not answer, never an answer.
const refused = "an error (id 1): the client did not answer this request"

// A question interrupted while it is asked gets no answer: none is sent to
// the server (not the decline of a prompt whose input ended with the
// interrupt, nor an answer typed as it came), none is logged, and the
// question is logged as not answered, for the interrupt; in both protocol
// eras. On 2025-11-25 the question (elicitation/create) is a request of
// the server's, which the interrupt of the call ends too: the go-sdk tells
// the server the call was cancelled, and the server withdraws its
// question (notifications/cancelled). The go-sdk writes a response to
// every request its handler was given, withdrawn or not; so a question
// the server withdrew before the session closed may get, at most, the
// error of fixed words that says it was not answered ("withdrawn": that
// order forced), which the spec's cancellation allows (its receiver SHOULD
// not respond; the sender ignores a response that comes after), and which
// says nothing of what the person did.
func TestInterruptedQuestionGetsNoAnswer(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	typedAnswer := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}
	type variant struct {
		protocol  string
		typed     *mcp.ElicitResult
		withdrawn bool // the server withdraws the question before the interrupt
	}
	var variants []variant
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		for _, typed := range []*mcp.ElicitResult{nil, typedAnswer} {
			variants = append(variants, variant{protocol: protocol, typed: typed})
		}
	}
	variants = append(variants, variant{protocol: "2025-11-25", typed: typedAnswer, withdrawn: true})
	for _, v := range variants {
		protocol, typed := v.protocol, v.typed
		name := protocol + "/no answer"
		if typed != nil {
			name = protocol + "/typed"
		}
		if v.withdrawn {
			name += "/withdrawn"
		}
		t.Run(name, func(t *testing.T) {
			withdraw := make(chan struct{})
			got := make(chan string, 1) // what the server's question came back with (2025-11-25)
			srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					if protocol == "2025-11-25" {
						ectx, cancel := context.WithCancel(ctx)
						defer cancel()
						go func() {
							select {
							case <-withdraw:
								cancel()
							case <-ectx.Done():
							}
						}()
						res, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: "Go?", RequestedSchema: schema})
						if err != nil {
							got <- "error"
							if v.withdrawn {
								<-ctx.Done() // the call ends with the interrupt, not before
							}
						} else {
							got <- res.Action
						}
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
					}
					if len(req.Params.InputResponses) == 0 {
						return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"go": &mcp.ElicitParams{Message: "Go?", RequestedSchema: schema}}}, nil
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil
				})
			var sent *responses
			var methods *sentLog
			dial := func() (mcp.Transport, func(), error) {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(context.Background(), st, nil)
				if err != nil {
					return nil, nil, err
				}
				methods = &sentLog{Transport: ct}
				sent = &responses{Transport: methods}
				return sent, func() { ss.Close() }, nil
			}
			call, interrupt := context.WithCancelCause(context.Background())
			defer interrupt(nil)
			stop := func() { interrupt(errors.New("interrupt signal received")) }
			var asking answer.Answerer = interruptedAsking{interrupt: stop, res: typed}
			if v.withdrawn {
				asking = withdrawnFirst{withdraw: func() { close(withdraw) }, interrupt: stop, res: typed}
			}
			s, err := Open(context.Background(), Options{Target: &target.Target{Dial: dial}, Timeout: time.Minute, Protocol: protocol,
				Capabilities: Capabilities{Form: true}, Answerer: asking})
			if err != nil {
				t.Fatal(err)
			}
			before := len(methods.sent())
			_, c, err := s.CallTool(call, "ask", nil, nil)
			if err == nil {
				t.Fatal("the interrupted call succeeded")
			}
			if cerr := s.Close(); cerr != nil {
				t.Error(cerr)
			}
			if protocol == "2025-11-25" {
				if g := <-got; g != "error" {
					t.Errorf("the server's question came back with %q, want no answer (an error: the session ended)", g)
				}
			}
			sent.mu.Lock()
			if len(sent.sent) > 1 || len(sent.sent) == 1 && (protocol != "2025-11-25" || sent.sent[0] != refused) {
				t.Errorf("the client sent %v, want no response (or, to a question the server withdrew, %q alone)", sent.sent, refused)
			}
			sent.mu.Unlock()
			var requests []string // the go-sdk may tell the server of the cancelled call, and nothing else
			for _, m := range methods.sent()[before:] {
				if m != "notifications/cancelled" {
					requests = append(requests, m)
				}
			}
			if len(requests) != 1 || requests[0] != "tools/call" {
				t.Errorf("the client sent %v, want the one call", requests)
			}
			entries := s.Log().Since(0)
			if len(entries) != 1 {
				t.Fatalf("the log has %d entries, want the question", len(entries))
			}
			e := entries[0]
			if e.Answer != nil || e.NoAnswer {
				t.Errorf("the log says the answer %+v (declined for want of one: %v), want none", e.Answer, e.NoAnswer)
			}
			if want := "not answered: interrupt signal received while it was asked"; e.Note != want {
				t.Errorf("the question's note is %q, want %q", e.Note, want)
			}
			if len(c.Questions) > 1 {
				t.Errorf("the call lists %d questions", len(c.Questions))
			}
		})
	}
}

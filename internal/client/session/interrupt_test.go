package session

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

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

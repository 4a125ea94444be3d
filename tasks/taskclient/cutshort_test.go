package taskclient

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cutAtAnswer ends a context (cut) as the answer to a tools/call is read,
// before the go-sdk has it: the call ends as one interrupted (Ctrl-C) the
// moment its answer came, which the go-sdk reports as the context's end
// whatever the answer was. It sits outside Transport, which has kept the
// answer by then, as it has in a real session.
type cutAtAnswer struct {
	mcp.Transport
	cut context.CancelFunc
}

func (t *cutAtAnswer) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cutConn{Connection: c, cut: t.cut, calls: map[jsonrpc.ID]bool{}}, nil
}

type cutConn struct {
	mcp.Connection
	cut   context.CancelFunc
	mu    sync.Mutex
	calls map[jsonrpc.ID]bool
}

func (c *cutConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		c.mu.Lock()
		c.calls[req.ID] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *cutConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		call := c.calls[resp.ID]
		c.mu.Unlock()
		if call {
			c.cut()
		}
	}
	return msg, err
}

// A tool call interrupted the moment the server's task handle comes back
// (the go-sdk then reports the interrupt and drops the answer) names the
// task all the same, on both eras: the server created it, and it may run
// on. The caller hears of it as of a task the call returns (OnUpdate), and
// the error is a NotEndedError with the handle's status, not a call that
// started nothing.
func TestInterruptedAsTheHandleCame(t *testing.T) {
	for _, era := range []struct {
		name, protocol, id string
		server             func(*testing.T) *mcp.Server
	}{
		{"extension", "", "t2", serverExtension},
		{"2025-11-25", "2025-11-25", "t1", server2025},
	} {
		t.Run(era.name, func(t *testing.T) {
			ctx := context.Background()
			st, ct := mcp.NewInMemoryTransports()
			ss, err := era.server(t).Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
			if err := Register(client); err != nil {
				t.Fatal(err)
			}
			call, interrupt := context.WithCancel(ctx)
			defer interrupt()
			cs, _, err := Connect(ctx, client, &cutAtAnswer{Transport: Transport(ct), cut: interrupt}, &mcp.ClientSessionOptions{ProtocolVersion: era.protocol})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var heard []Update
			tc := New(cs, &Options{AsTask: func(string) bool { return true }, OnUpdate: func(u Update) { heard = append(heard, u) }})
			_, err = tc.CallTool(call, &mcp.CallToolParams{Name: "job"})
			var ne *NotEndedError
			if !errors.As(err, &ne) || !errors.Is(err, context.Canceled) {
				t.Fatalf("the call ended with %v (%T), want a NotEndedError of the interrupt", err, err)
			}
			if ne.Last.TaskID != era.id || ne.Last.Status != tasks.StatusWorking {
				t.Errorf("last status %+v, want task %s working", ne.Last, era.id)
			}
			if len(heard) != 1 || heard[0].TaskID != era.id || heard[0].Status != tasks.StatusWorking {
				t.Errorf("heard %+v, want task %s working once", heard, era.id)
			}
		})
	}
}

// serverExtension is a server of the tasks extension that runs job as task
// t2, which never ends.
func serverExtension(t *testing.T) *mcp.Server {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(tasks.ExtensionID, map[string]any{})
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	server.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not a task"}}}, nil
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				return &raw{b: json.RawMessage(`{"resultType":"task","taskId":"t2","status":"working","statusMessage":"started","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`)}, nil
			}
			return next(ctx, method, req)
		}
	})
	return server
}

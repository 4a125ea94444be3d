package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An interrupt (Ctrl-C: the context Main is given ends) says so and exits
// 130, not with what it did to the server ("exited before it answered",
// exit 3).
func TestInterruptedSaysSo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	io, _, _, errOut := iostreams.Test()
	code := Main(ctx, io, []string{"ping", "-c", "sleep 100"})
	if code != ExitInterrupted || strings.TrimSpace(errOut.String()) != "mcp-tester: interrupted" {
		t.Errorf("exit %d, stderr %q; want 130 and interrupted", code, errOut.String())
	}
}

// interruptAt is stderr that interrupts the command (ends the context Main
// is given) the moment its trace (-v) shows what is written after shows:
// the trace hears each message before the go-sdk has it.
type interruptAt struct {
	after     string
	interrupt context.CancelFunc
	mu        sync.Mutex
	buf       bytes.Buffer
}

func (w *interruptAt) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.after) {
		w.interrupt()
	}
	return len(p), nil
}

func (w *interruptAt) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// A call interrupted the moment the server's task handle comes back (which
// the go-sdk reports as the interrupt alone, the answer dropped) exits 130
// and names the task it leaves on the server, with how to cancel it, as
// when it is interrupted while it waits for the task: with and without
// --no-wait. One interrupted before it sends the call sends none.
func TestInterruptedAtEachStepOfACall(t *testing.T) {
	t.Parallel()
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(tasks.ExtensionID, map[string]any{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	srv.AddTool(&mcp.Tool{Name: "job", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not a task"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				return &rawResult{b: json.RawMessage(`{"resultType":"task","taskId":"T1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":60000,"pollIntervalMs":5}`)}, nil
			}
			return next(ctx, method, req)
		}
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer hs.Close()
	for _, extra := range [][]string{nil, {"--no-wait"}} {
		ctx, interrupt := context.WithCancel(context.Background())
		defer interrupt()
		io, _, _, _ := iostreams.Test()
		errOut := &interruptAt{after: `"resultType":"task"`, interrupt: interrupt}
		io.ErrOut = errOut
		code := Main(ctx, io, append([]string{"call", "job", "-u", hs.URL, "-v"}, extra...))
		note := "mcp-tester: task T1 was running when interrupted and may still run on the server: cancel it with mcp-tester tasks cancel T1 and the connection flags given here\n"
		if got := errOut.String(); code != ExitInterrupted || !strings.Contains(got, "mcp-tester: interrupted\n"+note) {
			t.Errorf("call %v: exit %d, stderr:\n%s\nwant 130, interrupted and %q", extra, code, got, note)
		}
	}

	// Interrupted while it lists the tools (to check the call's
	// arguments), the command sends no call: nothing starts on the server.
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	io, _, _, _ := iostreams.Test()
	errOut := &interruptAt{after: `"method":"tools/list","latency_ms"`, interrupt: interrupt}
	io.ErrOut = errOut
	code := Main(ctx, io, []string{"call", "job", "-u", hs.URL, "-v"})
	if got := errOut.String(); code != ExitInterrupted || !strings.HasSuffix(got, "\nmcp-tester: interrupted\n") || strings.Contains(got, `"method":"tools/call"`) {
		t.Errorf("interrupted at the listing: exit %d, stderr:\n%s\nwant 130, interrupted, and no tools/call", code, got)
	}
}

// rawResult is a result sent as it is.
type rawResult struct {
	mcp.ResultBase
	b json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.b, nil }

package tasks_test

import (
	"context"
	"testing"

	"github.com/askback/askback/tasks"
	"github.com/askback/askback/tasks/taskclient"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A task belongs to the user who started it, whether the verifier names the
// user in TokenInfo.UserID or only in the "sub" claim: another user can
// neither read, answer nor cancel it.
func TestTaskOwnerFromEitherKindOfVerifier(t *testing.T) {
	for name, info := range map[string]func(string) *auth.TokenInfo{
		"UserID": func(u string) *auth.TokenInfo { return &auth.TokenInfo{UserID: u} },
		"sub":    func(u string) *auth.TokenInfo { return &auth.TokenInfo{Extra: map[string]any{"sub": u}} },
	} {
		t.Run(name, func(t *testing.T) {
			server, _ := newServer(t, nil)
			hs := httpServerWith(t, server, nil, tokenVerifier(info))
			alice, mallory := httpClient(t, hs.URL, "alice"), httpClient(t, hs.URL, "mallory")
			ctx := context.Background()
			ct := start(t, alice, "confirm")
			waitFor(t, alice, ct.TaskID, tasks.StatusInputRequired)
			if g, err := mallory.Get(ctx, ct.TaskID); rpcCode(t, err) != -32602 {
				t.Fatalf("mallory reads alice's question: %+v, %v", g, err)
			}
			yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
			if err := mallory.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"confirm": yes}); rpcCode(t, err) != -32602 {
				t.Errorf("mallory answers alice's question: %v", err)
			}
			if err := mallory.Cancel(ctx, ct.TaskID); rpcCode(t, err) != -32602 {
				t.Errorf("mallory cancels alice's task: %v", err)
			}
			if err := alice.Update(ctx, ct.TaskID, map[string]*mcp.ElicitResult{"confirm": yes}); err != nil {
				t.Fatal(err)
			}
			if res, err := alice.Wait(ctx, ct.TaskID); err != nil || resultText(t, res) != "done" {
				t.Fatalf("alice's own task: %v, %v", res, err)
			}
		})
	}
}

// With RequireSubject, a request without a user starts no task and reads none.
func TestRequireSubject(t *testing.T) {
	server, _ := newServer(t, &tasks.Options{RequireSubject: true})
	tc := taskclient.New(connect(t, server, nil), fast())
	ctx := context.Background()
	_, err := tc.StartTool(ctx, &mcp.CallToolParams{Name: "confirm"})
	if code := rpcCode(t, err); code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("start without a user: code %d (%v), want %d", code, err, jsonrpc.CodeInvalidRequest)
	}
	if _, err := tc.Get(ctx, "ANY"); rpcCode(t, err) != jsonrpc.CodeInvalidRequest {
		t.Fatalf("tasks/get without a user: %v", err)
	}
	hs := httpServer(t, server)
	alice := httpClient(t, hs.URL, "alice")
	ct := start(t, alice, "sleep")
	if err := alice.Cancel(ctx, ct.TaskID); err != nil {
		t.Fatalf("alice, authenticated: %v", err)
	}
}

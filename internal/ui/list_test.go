package ui

import (
	"context"
	"testing"

	"github.com/askback/askback/internal/client/session"
	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The page lists a server the way every command does (catalog.List): a
// server that declares resources but predates resources/templates/list
// has no templates, which is no failure to show (the page used to show
// "resources/templates/list: Method not found" where catalog save,
// inspect and scan saw nothing wrong).
func TestPageListsAsEveryCommand(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "old", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/templates/list" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
			}
			return next(ctx, method, req)
		}
	})
	dial := func() (mcp.Transport, func(), error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, nil, err
		}
		return ct, func() { ss.Close() }, nil
	}
	s, err := New(Options{Token: "t", Dir: t.TempDir(), SessionOptions: func(Target) (session.Options, error) {
		return session.Options{Target: &target.Target{Dial: dial}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Connect(context.Background(), Target{Command: "old"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	if len(c.Tools) != 1 || len(c.Resources) != 1 || len(c.Templates) != 0 || len(c.listErrs) != 0 {
		t.Fatalf("tools %d, resources %d, templates %d, errors %q", len(c.Tools), len(c.Resources), len(c.Templates), c.listErrs)
	}
}

package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listServer serves n tools, one per page, over stateless Streamable HTTP.
// mw, if set, is installed as the server's receiving middleware.
func listServer(t *testing.T, n int, mw mcp.Middleware) *Session {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "pages", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	for i := range n {
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%d", i), InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	if mw != nil {
		srv.AddReceivingMiddleware(mw)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func names(tools []*mcp.Tool) string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

func TestListOnePageOrAll(t *testing.T) {
	s := listServer(t, 3, nil)
	ctx := context.Background()
	first, next, err := s.ListTools(ctx, Pages{})
	if err != nil || names(first) != "tool_0" || next == "" {
		t.Fatalf("one page: %q, next %q, %v", names(first), next, err)
	}
	rest, end, err := s.ListTools(ctx, Pages{Cursor: next, All: true})
	if err != nil || names(rest) != "tool_1,tool_2" || end != "" {
		t.Fatalf("from the cursor on: %q, next %q, %v", names(rest), end, err)
	}
	all, _, err := s.ListTools(ctx, Pages{All: true})
	if err != nil || names(all) != "tool_0,tool_1,tool_2" {
		t.Fatalf("every page: %q, %v", names(all), err)
	}
}

// Pages.Page sees each page as it comes, and its error stops the listing:
// no page after it is asked for.
func TestListPageStops(t *testing.T) {
	s := listServer(t, 3, nil)
	var seen []string
	stop := fmt.Errorf("enough")
	_, _, err := s.ListTools(context.Background(), Pages{All: true, Page: func(items any, n int) error {
		seen = append(seen, names(items.([]*mcp.Tool)))
		if len(seen) == 2 {
			return stop
		}
		return nil
	}})
	if err != stop || strings.Join(seen, " ") != "tool_0 tool_1" {
		t.Fatalf("err = %v, pages seen %q", err, seen)
	}
}

// A server whose cursors go round in circles is stopped, not followed
// forever.
func TestListStopsAtARepeatedCursor(t *testing.T) {
	s := listServer(t, 3, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p.Cursor == "again" {
				p.Cursor = "" // the first page, again
			}
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && r != nil {
				r.NextCursor = "again"
			}
			return res, err
		}
	})
	_, _, err := s.ListTools(context.Background(), Pages{All: true})
	if KindOf(err) != KindProtocol || !strings.Contains(err.Error(), `tools/list: the server sent cursor "again" twice; stopped`) {
		t.Fatalf("err = %v (kind %d)", err, KindOf(err))
	}
	// One page is one request, whatever the cursor says.
	if tools, next, err := s.ListTools(context.Background(), Pages{}); err != nil || len(tools) != 1 || next != "again" {
		t.Errorf("one page: %d tools, next %q, %v", len(tools), next, err)
	}
}

// What the server did not declare is not asked for.
func TestCapabilitiesAreCheckedBeforeAsking(t *testing.T) {
	sent := 0
	s := listServer(t, 1, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "completion/complete" || method == "resources/subscribe" || method == "subscriptions/listen" {
				sent++
			}
			return next(ctx, method, req)
		}
	})
	ctx := context.Background()
	if caps := s.ServerCapabilities(); caps.Tools == nil || caps.Completions != nil {
		t.Fatalf("capabilities %+v", caps)
	}
	_, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "a"}})
	if KindOf(err) != KindServer || !strings.Contains(err.Error(), "the server does not offer completions") {
		t.Errorf("complete: %v", err)
	}
	if _, err := s.Subscribe(ctx, "note://1"); KindOf(err) != KindServer || !strings.Contains(err.Error(), "the server does not offer subscriptions") {
		t.Errorf("subscribe: %v", err)
	}
	if sent != 0 {
		t.Errorf("%d requests reached the server", sent)
	}
}

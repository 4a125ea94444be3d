package session

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/client/target"
	"github.com/askback/askback/tasks"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool call declares the tasks extension, and may come back as a task,
// only when the server offers the extension; to any other server it is a
// plain call.
func TestTasksOnlyWhereOffered(t *testing.T) {
	for _, offered := range []bool{false, true} {
		srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1"}, nil)
		if offered {
			ext, err := tasks.Install(srv, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ext.Close(context.Background())
		}
		srv.AddTool(&mcp.Tool{Name: "declared", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps, _ := json.Marshal(req.Params.GetMeta()[mcp.MetaKeyClientCapabilities])
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(caps)}}}, nil
		})
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
		defer hs.Close()
		s, err := Open(context.Background(), Options{Target: &target.Target{URL: hs.URL}, Timeout: 10 * time.Second, Tasks: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, _, err := s.CallTool(context.Background(), "declared", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		caps := res.Content[0].(*mcp.TextContent).Text
		if got := strings.Contains(caps, tasks.ExtensionID); got != offered {
			t.Errorf("server offers the extension: %v; the call declared it: %v (%s)", offered, got, caps)
		}
	}
}

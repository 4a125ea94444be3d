package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that keeps asking (elicitation/create, protocol 2025-11-25)
// inside its answer to the tools/list that call reads to check --args is
// stopped after --max-rounds, and the message names that listing, not an
// empty call "between calls".
func TestCallQuestionsInTheArgsListing(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "x", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				ss := req.GetSession().(*mcp.ServerSession)
				for n := 1; n <= 20; n++ {
					if _, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("Q%d", n), RequestedSchema: map[string]any{"type": "object"}}); err != nil {
						break
					}
				}
			}
			return next(ctx, method, req)
		}
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	io, _, _, errOut := iostreams.Test()
	code := Main(context.Background(), io, []string{"call", "x", "-u", hs.URL, "--protocol", "2025-11-25", "--elicit", "decline", "--max-rounds", "3"})
	want := "mcp-tester: tools/list (read before the call to check --args): the server still asks after 3 rounds; stopped"
	if got := errOut.String(); code != ExitFailed || !strings.Contains(got, want) || strings.Contains(got, `""`) {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and %q", code, got, want)
	}
}

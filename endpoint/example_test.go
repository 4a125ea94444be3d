package endpoint_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/askback/askback/endpoint"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One endpoint serves a 2026-07-28 client without a session and a
// 2025-11-25 client in one: both are asked the same question by the same
// handler, the older one with elicitation/create.
func Example() {
	server := askingServer() // a tool that answers input_required until it has a name
	h := endpoint.New(func(*http.Request) *mcp.Server { return server }, &endpoint.Options{
		HTTP: mcp.StreamableHTTPOptions{MaxRequestBodyBytes: 1 << 20},
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ann"}}, nil
			},
		})
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, session %t\n", version, res.Content[0].(*mcp.TextContent).Text, cs.ID() != "")
		cs.Close()
	}
	// Output:
	// 2026-07-28: hello ann (accept), session false
	// 2025-11-25: hello ann (accept), session true
}

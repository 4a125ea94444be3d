package standin

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Two sessions listed the tools, their clients having declared other
// capabilities: the server listed its sampling tool only to the client
// that declared sampling. The stand-in answers a list with the one whose
// client declared what its client declares, nearest first, whatever the
// order: two identical clients get the same list.
const listsBySession = `{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"streamable-http","server":"http://127.0.0.1:9/mcp"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"a","version":"1"}}},"http":{"method":"POST","path":"/mcp","stream":"post-1"}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"ev","version":"1"}}},"http":{"method":"POST","path":"/mcp","status":200,"session":"s1","stream":"post-1"}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"},"http":{"method":"POST","path":"/mcp","session":"s1","stream":"post-2"}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"sample","inputSchema":{"type":"object"}}]}},"http":{"method":"POST","path":"/mcp","status":200,"session":"s1","stream":"post-2"}}
{"t_ms":5,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}},"http":{"method":"POST","path":"/mcp","stream":"post-3"}}
{"t_ms":6,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"ev","version":"1"}}},"http":{"method":"POST","path":"/mcp","status":200,"session":"s2","stream":"post-3"}}
{"t_ms":7,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"},"http":{"method":"POST","path":"/mcp","session":"s2","stream":"post-4"}}
{"t_ms":8,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}},"http":{"method":"POST","path":"/mcp","status":200,"session":"s2","stream":"post-4"}}
`

func TestListsByClientCapabilities(t *testing.T) {
	sc := script(t, listsBySession)
	s, _ := standin(t, sc, Options{})
	if notes := strings.Join(s.Notes(), "\n"); !strings.Contains(notes, "tools/list (2 tools; 2 lists that differ by what their clients declared: a client gets the one of the client that declared the nearest)") {
		t.Errorf("the start-up notes do not say the lists differ by client:\n%s", notes)
	}
	names := func(cs *mcp.ClientSession) string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tool := range res.Tools {
			n = append(n, tool.Name)
		}
		return strings.Join(n, ",")
	}
	// Two clients that declare nothing: the list of the client that
	// declared nothing, each time, though the other was recorded first.
	for i := range 2 {
		if got := names(client(t, s, "2025-11-25", false, nil)); got != "echo" {
			t.Errorf("client %d without capabilities: tools %s, want echo", i+1, got)
		}
	}
	// Clients that declare sampling and elicitation (the test's answers):
	// the list of the client that declared them.
	withSampling := func() *mcp.ClientSession {
		ctx := context.Background()
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.Server().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		c := mcp.NewClient(&mcp.Implementation{Name: "sampler", Version: "1"}, &mcp.ClientOptions{
			//lint:ignore SA1019 sampling is deprecated but still declared by clients a recording holds
			CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return nil, nil
			},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
		})
		cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for i := range 2 {
		if got := names(withSampling()); got != "echo,sample" {
			t.Errorf("client %d with sampling: tools %s, want echo,sample", i+1, got)
		}
	}
}

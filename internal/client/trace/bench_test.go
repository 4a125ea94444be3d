package trace_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/askback/askback/internal/client/trace"
	"github.com/askback/askback/internal/client/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkTrace measures a tool call over in-memory transports untraced
// (the baseline) and traced through the transport; compare the ns/op of
// the two in one run.
func BenchmarkTrace(b *testing.B) {
	for _, mode := range []string{"baseline", "transport"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			s := mcp.NewServer(&mcp.Implementation{Name: "b", Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, RequestState: "x"}, nil
			})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			rec := trace.New(io.Discard, trace.Options{})
			c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
			var tr mcp.Transport = ct
			if mode == "transport" {
				tr = wire.Watch(ct, nil, rec.Observe)
			}
			cs, err := c.Connect(ctx, tr, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"a": 1}
			b.ResetTimer()
			for range b.N {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

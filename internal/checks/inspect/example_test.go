package inspect_test

import (
	"fmt"

	"github.com/askback/askback/internal/catalog"
	"github.com/askback/askback/internal/checks/inspect"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func ExampleEvaluate() {
	srv := &inspect.Server{Listing: catalog.Listing{
		Info:  &mcp.InitializeResult{ProtocolVersion: "2026-07-28", ServerInfo: &mcp.Implementation{Name: "demo", Version: "1"}},
		Tools: []*mcp.Tool{{Name: "rm", InputSchema: map[string]any{"type": "object"}}},
	}}
	r := inspect.Evaluate(srv)
	fmt.Println("score:", r.Score)
	for _, c := range r.Criteria {
		for _, f := range c.Findings {
			if c.ID == inspect.CritAnnotations {
				fmt.Printf("%s: %s\n", f.Subject, f.Problem)
			}
		}
	}
	// Output:
	// score: 19
	// tool "rm": looks destructive but has no annotations
}

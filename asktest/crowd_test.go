package asktest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/askback/askback/asktest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call whose round asks more than 100 questions fails the test with the
// count and the bound, before any question is answered.
func TestRoundOfTooManyQuestions(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "crowd", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "crowd", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		qs := mcp.InputRequestMap{}
		for i := range 101 {
			qs[fmt.Sprintf("q%03d", i)] = &mcp.ElicitParams{Mode: "form", Message: "Q", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}
		}
		return &mcp.CallToolResult{InputRequests: qs, RequestState: "s"}, nil
	})
	asked := 0
	failing(t, "101 questions", func(ft *T) {
		c := asktest.NewClient(ft, asktest.Server(s), nil)
		c.CallTool("crowd", nil, asktest.AnswerFunc(func(asktest.Question) asktest.Answer { asked++; return asktest.Decline() }))
	}, `the server asks 101 questions in one round (inputRequests); the tester answers at most 100 a round; stopped`)
	if asked != 0 {
		t.Errorf("%d questions answered; want none", asked)
	}
}

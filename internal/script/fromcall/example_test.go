package fromcall_test

import (
	"os"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script/fromcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call in which the person answered the deployer's form becomes a
// script that replays it.
func ExampleWrite() {
	step := fromcall.Step{
		Method: "tools/call",
		Name:   "deploy",
		Args:   map[string]any{"service": "auth-service"},
		Questions: []exchange.Entry{{
			Key:    "target",
			Params: &mcp.ElicitParams{Mode: "form", Message: "Roll out auth-service version 2.4.1 – where to?"},
			Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "production", "confirm": true}},
		}},
		Result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Rolling out auth-service 2.4.1 to production."}}},
	}
	_ = fromcall.Write(os.Stdout, step)
	// Output:
	// elicit_response accept '{"confirm":true,"environment":"production"}'
	// call_tool deploy service:"auth-service"
	// assert_elicited "Roll out auth-service version 2.4.1 – where to?" key=target mode=form
	// assert_contains "Rolling out auth-service 2.4.1 to production."
}

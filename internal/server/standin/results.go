package standin

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decodeResult decodes a recorded result into the go-sdk's type for the
// method, a fresh value each time (the go-sdk may fill in what a result
// leaves out). It returns nil, nil for a method whose result the go-sdk
// makes itself (ping, logging/setLevel, resources/subscribe: an empty
// object).
func decodeResult(method string, raw json.RawMessage) (mcp.Result, error) {
	var res mcp.Result
	switch method {
	case "tools/call":
		res = &mcp.CallToolResult{}
	case "prompts/get":
		res = &mcp.GetPromptResult{}
	case "resources/read":
		res = &mcp.ReadResourceResult{}
	case "tools/list":
		res = &mcp.ListToolsResult{}
	case "prompts/list":
		res = &mcp.ListPromptsResult{}
	case "resources/list":
		res = &mcp.ListResourcesResult{}
	case "resources/templates/list":
		res = &mcp.ListResourceTemplatesResult{}
	case "completion/complete":
		res = &mcp.CompleteResult{}
	default:
		return nil, nil
	}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, fmt.Errorf("not a %s result: %v", method, err)
	}
	return res, nil
}

// listMethods are the methods whose results list what the server offers.
var listMethods = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}

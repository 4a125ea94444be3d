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
	settleCacheable(res)
	return res, nil
}

// settleCacheable gives a result of a cacheable kind (the lists, a resource
// read) the cacheScope protocol 2026-07-28 requires on the wire, when the
// recording has none (a server of an earlier protocol, which has no such
// member): the protocol's default, "public", as the go-sdk gives the
// results it makes itself. Left empty, it went out as "" to a client of
// 2026-07-28, which a strict client refuses ("public" or "private" only).
// A recorded scope, whatever it is, goes out as recorded.
func settleCacheable(res mcp.Result) {
	var c *mcp.Cacheable
	switch r := res.(type) {
	case *mcp.ListToolsResult:
		c = &r.Cacheable
	case *mcp.ListPromptsResult:
		c = &r.Cacheable
	case *mcp.ListResourcesResult:
		c = &r.Cacheable
	case *mcp.ListResourceTemplatesResult:
		c = &r.Cacheable
	case *mcp.ReadResourceResult:
		c = &r.Cacheable
	}
	if c != nil && c.CacheScope == "" {
		c.CacheScope = "public"
	}
}

// listMethods are the methods whose results list what the server offers.
var listMethods = []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}

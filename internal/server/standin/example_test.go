package standin_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/server/standin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A recording of a 2025-11-25 session, in which the server asked with
// elicitation/create, serves a 2026-07-28 client: the question comes in an
// input_required result, keyed q1, with a requestState of the stand-in's;
// the answer is checked against the recorded one.
func Example() {
	rec, err := recording.Read(strings.NewReader(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"bin/deployer"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"Deploy auth?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"ok":true}}}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Deployed."}]}}}
`), recording.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	script, err := standin.Build(rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := standin.New(script, standin.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := s.Server().Connect(ctx, st, nil)
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	args := map[string]any{"service": "auth"}
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	fmt.Println(res.NeedsInput(), res.InputRequests["q1"].(*mcp.ElicitParams).Message, res.RequestState != "")
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"q1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	r := s.Report()
	fmt.Println(r.Matched, "of", r.Checked, "answers as recorded; ok:", r.OK)
	// Output:
	// true Deploy auth? true
	// Deployed.
	// 1 of 1 answers as recorded; ok: true
}

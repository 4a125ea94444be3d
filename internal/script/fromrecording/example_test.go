package fromrecording_test

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
	"github.com/askback/askback/internal/script/fromrecording"
)

// A recording of a 2026-07-28 client: a call, the server's question, the
// person's answer in the next round, the result. The script answers the
// question by its key and sends no requestState.
func ExampleWrite() {
	rec, _ := recording.Read(strings.NewReader(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"bin/deployer"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"target":{"method":"elicitation/create","params":{"mode":"form","message":"Where to?","requestedSchema":{"type":"object","properties":{"env":{"type":"string"}}}}}},"requestState":"[requestState: 202 bytes]"}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"},"inputResponses":{"target":{"action":"accept","content":{"env":"production"}}},"requestState":"[requestState: 202 bytes]"}}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Rolling out auth to production."}]}}}
`), recording.ReadOptions{})
	conv, _ := conversation.Read(rec, conversation.Options{})
	src, _, _ := fromrecording.Write(conv, fromrecording.Options{Source: "deploy.jsonl", Output: "deploy.mcp"})
	_, body, _ := strings.Cut(string(src), "docs/scripts.md.\n\n")
	fmt.Print(body)
	// Output:
	// elicit_response target=accept '{"env":"production"}'
	// call_tool deploy service:"auth"
	// assert_elicited "Where to?" key=target mode=form
	// assert_question key=target '{"requestedSchema":{"type":"object","properties":{"env":{"type":"string"}}}}'
	// assert_elicited_count 1
	// assert_equals "Rolling out auth to production."
}

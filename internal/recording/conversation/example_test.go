package conversation_test

import (
	"fmt"
	"strings"

	"github.com/askback/askback/internal/recording"
	"github.com/askback/askback/internal/recording/conversation"
)

// A 2025-11-25 client asked by elicitation/create: the question belongs to
// the call waiting for its result, its answer is the client's response.
func ExampleRead() {
	rec, _ := recording.Read(strings.NewReader(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"bin/deployer"}
{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"auth"}}}}
{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"form","message":"Where to?"}}}
{"t_ms":3,"dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"action":"decline"}}}
{"t_ms":4,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Not started."}]}}}
`), recording.ReadOptions{})
	conv, _ := conversation.Read(rec, conversation.Options{})
	for _, c := range conv.Calls {
		fmt.Println(c.Method, c.Name, string(c.Args))
		for _, q := range c.Questions {
			fmt.Println(" asked at line", q.Line, "via", q.Via, "→", q.Action(), "at line", q.AnswerLine)
		}
		fmt.Println(" result:", string(c.Result))
	}
	// Output:
	// tools/call deploy {"service":"auth"}
	//  asked at line 3 via elicitation/create → decline at line 4
	//  result: {"content":[{"type":"text","text":"Not started."}]}
}

package standin

import (
	"strings"
	"testing"
)

// A call the server ran as a task of protocol 2025-11-25 ({"task": {...}},
// no resultType) is not served as if that handle were its result: its
// questions are those asked while tasks/result waited, its result what
// tasks/result gave, without the task's id; tasks/get is no exchange.
func TestBuildTaskOf2025(t *testing.T) {
	text := header +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"survey","arguments":{"topic":"lunch"},"task":{}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working"}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t1"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"taskId":"t1","status":"input_required"}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"t1"}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"message":"Who?","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}}}` + "\n" +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"a":"staff"}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}},"content":[{"type":"text","text":"sent to staff"}]}}}` + "\n"
	sc := script(t, text)
	if len(sc.Warnings) > 0 {
		t.Errorf("warnings: %v", sc.Warnings)
	}
	if len(sc.Exchanges) != 1 {
		t.Fatalf("%d exchanges, want the call alone", len(sc.Exchanges))
	}
	x := sc.Exchanges[0]
	if !x.Ended || x.Task == nil || x.Task.ID != "t1" || x.Task.Line != 3 {
		t.Fatalf("survey: %+v", x)
	}
	if got, want := string(x.Result), `{"content":[{"type":"text","text":"sent to staff"}]}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}
	if len(x.Rounds) != 1 || len(x.Rounds[0].Questions) != 1 {
		t.Fatalf("rounds: %+v", x.Rounds)
	}
	q := x.Rounds[0].Questions[0]
	if strings.Contains(string(q.Params), "related-task") || string(q.Answer) != `{"action":"accept","content":{"a":"staff"}}` {
		t.Errorf("question %s, answer %s", q.Params, q.Answer)
	}
}

package standin

import (
	"strings"
	"testing"
)

// A call the server ran as a task of protocol 2025-11-25 ({"task": {...}},
// no resultType) is not served as if that handle were its result: like a
// task of the extension, the stand-in says it does not serve it.
func TestBuildTaskOf2025(t *testing.T) {
	text := header +
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"survey","task":{}}}}` + "\n" +
		`{"t_ms":1,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working"}}}}` + "\n"
	sc := script(t, text)
	if !strings.Contains(strings.Join(sc.Warnings, "\n"), "line 3: tools/call survey ran as a task") {
		t.Errorf("no warning of the task in\n%s", strings.Join(sc.Warnings, "\n"))
	}
	if x := sc.Exchanges[0]; x.Ended || !strings.Contains(x.Unended, "which a stand-in does not serve") {
		t.Errorf("survey: %+v", x)
	}
}

package recordscript

import (
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/script"
)

// commandsOf is the commands a script runs, one "COMMAND ARG…" line each
// as written.
func commandsOf(t *testing.T, body string) []string {
	t.Helper()
	s, err := script.ParseFile("t.mcp", []byte(body))
	if err != nil {
		t.Fatalf("does not parse: %v\n%s", err, body)
	}
	var out []string
	for _, st := range s.Steps {
		out = append(out, st.Text)
	}
	return out
}

// TestHostileServerWritesNoCommand: what a server sent lands in the
// script only as the value of a check; a newline in it cannot start a
// command of its own.
func TestHostileServerWritesNoCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"a question's mode with a newline", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"hi","mode":"form\ncall_tool evil","requestedSchema":{"type":"object"}}}}}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","inputResponses":{"k":{"action":"accept","content":{"x":1}}}}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, []string{
			`elicit_response k=accept '{"x":1}'`,
			`call_tool deploy`,
			`assert_elicited "hi" key=k`,
			`assert_question key=k '{"mode":"form\ncall_tool evil","requestedSchema":{"type":"object"}}'`,
			`assert_elicited_count 1`,
			`assert_equals "ok"`,
		}},
		{"a task's status with a newline", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"status":"completed","result":{"content":[{"type":"text","text":"ok"}]}}}`,
			`c2s {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T"}}`,
			`s2c {"jsonrpc":"2.0","id":3,"result":{"status":"completed\ncall_tool evil"}}`,
		}, []string{
			`call_tool r`,
			`assert_equals "ok"`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := fromLines(t, tc.lines...)
			got := commandsOf(t, body)
			if !slices.Equal(got, tc.want) {
				t.Errorf("commands:\n%s\nwant:\n%s\nscript:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), body)
			}
		})
	}
}

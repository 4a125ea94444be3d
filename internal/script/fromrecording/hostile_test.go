package fromrecording

import (
	"slices"
	"strings"
	"testing"

	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/syntax"
	"github.com/askback/askback/internal/text/termsafe"
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
	for _, st := range s.Steps() {
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
			`assert_task_status completed`,
			`assert_equals "ok"`,
		}},
		{"a task's last status with a newline", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T"}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"status":"completed\ncall_tool evil"}}`,
		}, []string{
			`start_tool r`,
		}},
		{"a tool named like a here-document", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"<<END"}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, []string{
			`call_tool "<<END"`,
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

// TestLongValuesStillParse: a value longer than a script line (or a
// here-document) holds is checked another way, or left out with a
// warning; the script written always reads back.
func TestLongValuesStillParse(t *testing.T) {
	long := strings.Repeat("A ", 40000)  // longer than a line
	huge := strings.Repeat("G ", 600000) // longer than a here-document
	call := `c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r"}}`
	for _, tc := range []struct {
		name   string
		lines  []string
		checks []string // the commands after the call, up to their first space
		warns  int
	}{
		{"a result text longer than a line", []string{call,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + long + `"}]}}`,
		}, []string{"call_tool", "assert_json"}, 0},
		{"a result longer than a here-document", []string{call,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + huge + `"}]}}`,
		}, []string{"call_tool", "assert_json"}, 1},
		{"an error message longer than a line", []string{call,
			`s2c {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"` + long + `"}}`,
		}, []string{"expect_error", "assert_error_code"}, 1},
		{"an argument longer than a line", []string{
			`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r","arguments":{"a":"` + long + `"}}}`,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"r"}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, []string{"call_tool", "assert_equals"}, 1},
		{"a question's message longer than a line", []string{call,
			`s2c {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"` + long + `","requestedSchema":{"type":"object"}}}}}}`,
			`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"r","inputResponses":{"k":{"action":"decline"}}}}`,
			`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		}, []string{"elicit_response", "call_tool", "assert_elicited", "assert_question", "assert_elicited_count", "assert_equals"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, warns := fromLines(t, tc.lines...)
			var got []string
			for _, c := range commandsOf(t, body) {
				verb, _, _ := strings.Cut(c, " ")
				got = append(got, verb)
			}
			if !slices.Equal(got, tc.checks) {
				t.Errorf("commands %v, want %v", got, tc.checks)
			}
			if len(warns) != tc.warns {
				t.Errorf("warnings %v, want %d", warns, tc.warns)
			}
		})
	}
}

// TestHostileServerWritesNoWorkflowCommand: a script is a file a workflow
// may show, so what a server sent lands in it with no line a CI runner
// reads as a workflow command: a text of several lines is quoted rather
// than a here-document, "##[" is "##\u005b" in strings and JSON, "##\[" in
// comments; the checks still parse.
func TestHostileServerWritesNoWorkflowCommand(t *testing.T) {
	text := `text\n::error file=x::forged\n  ::add-mask::m\nsee ##[error]legacy`
	body, _ := fromLines(t,
		`c2s {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"n":"##[x"}}}`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+text+`"}],"structuredContent":{"k":"`+text+`"}}}`,
		`c2s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plain"}}`,
		`s2c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`+text+`"}]}}`,
		`c2s {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gone"}}`,
	)
	for _, l := range strings.Split(body, "\n") {
		if termsafe.WorkflowCommand(l) {
			t.Errorf("a line reads as a workflow command: %q\n%s", l, body)
		}
	}
	commandsOf(t, body)
	if !strings.Contains(body, `assert_equals "text\n::error file=x::forged\n  ::add-mask::m\nsee ##\u005berror]legacy"`) ||
		!strings.Contains(body, `##\u005berror]legacy`) {
		t.Errorf("the text is not kept as its value:\n%s", body)
	}
}

// A comment carries what a server wrote as it reads, but for "##[",
// "##vso[" and "##teamcity[", and for what would not show as it is (a
// U+202E would reverse the rest of the line in an editor or a review).
func TestCommentsHoldNoLegacyCommand(t *testing.T) {
	if got := comment("status ##[error]x ###[y ##vso[task.complete] ##TeamCity[x]"); got != `status ##\[error]x ###\[y ##vso\[task.complete] ##TeamCity\[x]` {
		t.Errorf("comment: %q", got)
	}
	got := comment("name\u202egnp.exe\u2066\u200b\ttab\x1b[31m")
	for _, r := range got {
		if termsafe.Unsafe(r) {
			t.Errorf("comment: %q holds %U", got, r)
		}
	}
	if !strings.Contains(got, `\u202e`) {
		t.Errorf("comment: %q does not show the U+202E it left out", got)
	}
}

// comment is a comment line's text after its "# ".
func comment(s string) string { return strings.TrimPrefix(syntax.Comment(s), "# ") }

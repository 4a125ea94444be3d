package fromcall_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/client/exchange"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/script/fromcall"
	"github.com/askback/askback/internal/script/syntax"
	"github.com/askback/askback/internal/text/termsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func deployQuestion(action string, content map[string]any) exchange.Entry {
	return exchange.Entry{Method: "tools/call", Name: "deploy", Key: "target", Round: 1, Server: "deployer",
		Params: &mcp.ElicitParams{Mode: "form", Message: "Roll out auth-service version 2.4.1 – where to?"},
		Answer: &mcp.ElicitResult{Action: action, Content: content}}
}

func toolText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func TestRecordDeploy(t *testing.T) {
	steps := []fromcall.Step{
		{Method: "tools/call", Name: "deploy", Args: map[string]any{"service": "auth-service"},
			Questions: []exchange.Entry{deployQuestion("accept", map[string]any{"environment": "production", "confirm": true})},
			Result:    toolText("Rolling out auth-service 2.4.1 to production.")},
		{Method: "tools/call", Name: "deploy", Args: map[string]any{"service": "auth-service"},
			Questions: []exchange.Entry{deployQuestion("decline", nil)},
			Result:    toolText("Deployment not started (decline).")},
	}
	var b strings.Builder
	if err := fromcall.Write(&b, steps...); err != nil {
		t.Fatal(err)
	}
	want := `elicit_response accept '{"confirm":true,"environment":"production"}'
call_tool deploy service:"auth-service"
assert_elicited "Roll out auth-service version 2.4.1 – where to?" key=target mode=form
assert_contains "Rolling out auth-service 2.4.1 to production."

elicit_response decline
call_tool deploy service:"auth-service"
assert_elicited "Roll out auth-service version 2.4.1 – where to?" key=target mode=form
assert_contains "Deployment not started (decline)."
`
	if b.String() != want {
		t.Errorf("script:\n%s\nwant:\n%s", b.String(), want)
	}
	if _, err := script.ParseFile("rec.mcp", []byte(b.String())); err != nil {
		t.Errorf("the recorded script does not parse: %v", err)
	}
}

// An answer sent without a field the form has a default for was sent
// exactly as given: the recorded script says exact, so that it is sent so
// again; an answer that holds every such field needs no exact.
func TestRecordExactAnswer(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "default": 42}}}
	for _, c := range []struct {
		content map[string]any
		want    string
	}{
		{map[string]any{"name": "Ann"}, `elicit_response accept '{"name":"Ann"}' exact`},
		{nil, `elicit_response accept exact`},
		{map[string]any{"name": "Ann", "n": 42}, `elicit_response accept '{"n":42,"name":"Ann"}'`},
	} {
		q := exchange.Entry{Method: "tools/call", Name: "who", Round: 1, Params: &mcp.ElicitParams{Mode: "form", Message: "who?", RequestedSchema: schema},
			Answer: &mcp.ElicitResult{Action: "accept", Content: c.content}}
		var b strings.Builder
		if err := fromcall.Write(&b, fromcall.Step{Method: "tools/call", Name: "who", Questions: []exchange.Entry{q}, Result: toolText("ok")}); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(b.String(), "\n"); first != c.want {
			t.Errorf("answer %v: %s, want %s", c.content, first, c.want)
		}
		if _, err := script.ParseFile("rec.mcp", []byte(b.String())); err != nil {
			t.Errorf("the recorded script does not parse: %v", err)
		}
	}
}

func TestRecordQuotingSurvivesTheParser(t *testing.T) {
	hostile := "it's \"quoted\" $HOME \\ # not a comment // nor this\n\tline2 \x1b[2J \u202e"
	steps := []fromcall.Step{{
		Method: "tools/call", Name: "store-note",
		Args: map[string]any{
			"text": hostile, "count": json.Number("3"), "ratio": 0.5, "on": true, "none": nil,
			"obj": map[string]any{"a": []any{"x", "y'z"}}, "list": []any{1.0, 2.0},
		},
		Questions: []exchange.Entry{
			{Key: "a", Params: &mcp.ElicitParams{Mode: "form", Message: hostile}, Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"note": "it's"}}},
			{Key: "b", Params: &mcp.ElicitParams{Mode: "url", URL: "https://x.example/connect"}, Answer: &mcp.ElicitResult{Action: "accept"}},
			{Key: "weird key", Params: &mcp.ElicitParams{Mode: "form", Message: "Third"}, Answer: &mcp.ElicitResult{Action: "cancel"}},
		},
		Result: toolText("\n  Saved: " + hostile),
	}}
	var b strings.Builder
	if err := fromcall.Write(&b, steps...); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if _, err := script.ParseFile("rec.mcp", []byte(got)); err != nil {
		t.Fatalf("the recorded script does not parse: %v\n%s", err, got)
	}
	for _, want := range []string{
		`elicit_response a=accept {"note":"it's"}`, // a quote in the content: bare JSON
		`elicit_response b=accept` + "\n",
		`elicit_response cancel` + "\n", // a key that cannot be written is left out
		`call_tool store-note count:3 list:[1,2] none:null obj:{"a":["x","y'z"]} on:true ratio:0.5 text:"it's \"quoted\" \$HOME \\ # not a comment // nor this\n\tline2 \u001b[2J \u202e"`,
		`assert_elicited "https://x.example/connect" key=b mode=url`,
		`assert_contains "Saved: it's \"quoted\" \$HOME \\ # not a comment // nor this"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %s\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\u202e\t") {
		t.Errorf("raw control characters in the script:\n%q", got)
	}
}

// A name that would read as the start of a here-document (<<NAME last on
// its line) is quoted: the lines after it stay commands.
func TestRecordNameLikeAHereDocument(t *testing.T) {
	var b strings.Builder
	steps := []fromcall.Step{{Method: "tools/call", Name: "<<END", Result: toolText("ok")}, {Method: "tools/call", Name: "next"}}
	if err := fromcall.Write(&b, steps...); err != nil {
		t.Fatal(err)
	}
	s, err := script.ParseFile("rec.mcp", []byte(b.String()))
	if err != nil {
		t.Fatalf("does not parse: %v\n%s", err, b.String())
	}
	var got []string
	for _, st := range s.Steps() {
		got = append(got, st.Text)
	}
	want := []string{`call_tool "<<END"`, `assert_contains "ok"`, `call_tool next`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands %q, want %q", got, want)
	}
}

func TestRecordRefusesWhatCannotBeWritten(t *testing.T) {
	err := fromcall.Write(&strings.Builder{}, fromcall.Step{Method: "tools/call", Name: "x", Args: map[string]any{"a b": 1}})
	if err == nil || !strings.Contains(err.Error(), `argument name "a b" cannot be written`) {
		t.Errorf("err = %v", err)
	}
}

func TestRecordPromptAndResource(t *testing.T) {
	var b strings.Builder
	err := fromcall.Write(&b,
		fromcall.Step{Method: "prompts/get", Name: "greeting", Args: map[string]any{"name": "Ada"},
			Result: &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello Ada"}}}}},
		fromcall.Step{Method: "resources/read", Name: "config://secret-settings",
			Result: &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "config://secret-settings", Text: "mode=on"}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "get_prompt greeting name:\"Ada\"\nassert_contains \"Hello Ada\"\n\nread_resource \"config://secret-settings\"\nassert_contains \"mode=on\"\n"
	if b.String() != want {
		t.Errorf("script:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestAppendStartsWithHeaderThenAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.mcp")
	step := fromcall.Step{Method: "tools/call", Name: "deploy", Args: map[string]any{"service": "auth-service"},
		Questions: []exchange.Entry{deployQuestion("decline", nil)}, Result: toolText("Deployment not started (decline).")}
	for range 2 {
		if err := fromcall.Append(path, nil, step); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), fromcall.Header) || strings.Count(string(got), fromcall.Header) != 1 || strings.Count(string(got), "call_tool deploy") != 2 {
		t.Errorf("file:\n%s", got)
	}
	if _, err := script.ParseFile(path, got); err != nil {
		t.Errorf("appended script does not parse: %v", err)
	}
	if err := fromcall.Append(filepath.Join(t.TempDir(), "missing", "x.mcp"), nil, step); err == nil || !strings.Contains(err.Error(), "record to") {
		t.Errorf("err = %v, want one naming the file", err)
	}
}

func FuzzQuote(f *testing.F) {
	f.Add("auth-service")
	f.Add("it's \"x\" $y \\ \n \x1b \u202e 😀")
	f.Fuzz(func(t *testing.T, s string) {
		q := syntax.Quote(s)
		if _, err := script.ParseFile("f.mcp", []byte("assert_contains "+q+"\n")); err != nil {
			t.Fatalf("syntax.Quote(%q) = %s does not parse: %v", s, q, err)
		}
		if strings.ContainsAny(q, "\n\r\x1b") {
			t.Fatalf("syntax.Quote(%q) = %q keeps a line break or escape", s, q)
		}
	})
}

// A server's text holding workflow commands is recorded with no line a
// CI runner would read as one (a file a workflow shows), and the script
// still reads back the same values.
func TestRecordWritesNoWorkflowCommand(t *testing.T) {
	evil := "\n::error file=x::forged\n  ::add-mask::m\nsee ##[error]legacy ##vso[task.complete] ##teamcity[x]"
	steps := []fromcall.Step{{
		Method: "tools/call", Name: "deploy",
		Args:      map[string]any{"note": evil, "obj": map[string]any{"k": "##[warning]x"}},
		Questions: []exchange.Entry{{Key: "a", Params: &mcp.ElicitParams{Mode: "form", Message: evil}, Answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"note": "##[x"}}}},
		Result:    toolText(evil),
	}}
	var b strings.Builder
	if err := fromcall.Write(&b, steps...); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, l := range strings.Split(got, "\n") {
		if termsafe.WorkflowCommand(l) {
			t.Errorf("a line reads as a workflow command: %q", l)
		}
	}
	if _, err := script.ParseFile("rec.mcp", []byte(got)); err != nil {
		t.Fatalf("the recorded script does not parse: %v\n%s", err, got)
	}
	if !strings.Contains(got, `note:"\n::error file=x::forged\n  ::add-mask::m\nsee ##\u005berror]legacy ##vso\u005btask.complete] ##teamcity\u005bx]"`) ||
		!strings.Contains(got, `obj:{"k":"##\u005bwarning]x"}`) {
		t.Errorf("the values are not written as expected:\n%s", got)
	}
}

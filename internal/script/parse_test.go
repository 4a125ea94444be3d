package script

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDeployScript(t *testing.T) {
	s := mustParse(t, "deploy.mcp", `elicit_response accept '{"environment": "staging", "confirm": true}'
call_tool deploy service:"auth-service"
assert_elicited "version 2.4.1"
assert_contains "to staging"

elicit_response decline
call_tool deploy service:"auth-service"
assert_contains "not started"
`)
	if s.NumSteps() != 7 {
		t.Fatalf("%d steps, want 7 (every command line is a step)", s.NumSteps())
	}
	var got []string
	for _, st := range s.Steps() {
		got = append(got, st.Command)
	}
	want := "elicit_response call_tool assert_elicited assert_contains elicit_response call_tool assert_contains"
	if strings.Join(got, " ") != want {
		t.Errorf("commands %v", got)
	}
	if s.Step(4).Line != 6 || s.Step(4).Col != 1 {
		t.Errorf("step 5 at %d:%d, want 6:1", s.Step(4).Line, s.Step(4).Col)
	}
}

func TestParseElicitForms(t *testing.T) {
	s := mustParse(t, "e.mcp", `elicit_response accept:{"confirm": true}
elicit_response target=accept:{"confirm": false}
elicit_response other=accept '{"x": 1}'
elicit_response cancel
elicit_response accept '{"name": "Ann"}' exact
elicit_response k=accept:{"a": 1} exact
elicit_response accept {"it's": 1} exact
elicit_response accept exact`)
	for i, want := range []string{`accept {"confirm":true}`, `target=accept {"confirm":false}`, `other=accept {"x":1}`, `cancel null`,
		`accept {"name":"Ann"} exact`, `k=accept {"a":1} exact`, `accept {"it's":1} exact`, `accept null exact`} {
		a := mustCommand(t, s, i).answer
		b, _ := json.Marshal(a.content)
		got := a.action + " " + string(b)
		if a.key != "" {
			got = a.key + "=" + got
		}
		if a.exact {
			got += " exact"
		}
		if got != want {
			t.Errorf("line %d: %s, want %s", i+1, got, want)
		}
	}
}

func TestParseCommentsAndText(t *testing.T) {
	s := mustParse(t, "c.mcp", "# a comment\n// another\n  call_tool x a:\"# not a comment\" b:'// nor this' # trailing\r\necho http://host/x // trailing too\n\n")
	if s.NumSteps() != 2 {
		t.Fatalf("%d steps, want 2", s.NumSteps())
	}
	if got := s.Step(0).Text; got != `call_tool x a:"# not a comment" b:'// nor this'` {
		t.Errorf("text %q", got)
	}
	if s.Step(0).Col != 3 || s.Step(0).Line != 3 {
		t.Errorf("at %d:%d", s.Step(0).Line, s.Step(0).Col)
	}
	args := mustCommand(t, s, 0).args
	if v, _ := args[1].literal(); args[1].key != "a" || v != "# not a comment" {
		t.Errorf("arg a = %q %q", args[1].key, v)
	}
	if v, _ := mustCommand(t, s, 1).args[0].literal(); v != "http://host/x" {
		t.Errorf("echo arg %q", v)
	}
}

func TestParseEscapesAndVariables(t *testing.T) {
	s := mustParse(t, "v.mcp", `input_var who "Name?"
echo "tab\there \"q\" \\ \$who \u00e9" $who ${who}x 'raw $who' cost:$5`)
	c := mustCommand(t, s, 1)
	vars := map[string]string{"who": "Ann"}
	var got []string
	for _, a := range c.args {
		v, err := a.value(vars)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	want := []string{"tab\there \"q\" \\ $who é", "Ann", "Annx", "raw $who", "cost:$5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestParseTaskCommands(t *testing.T) {
	s := mustParse(t, "k.mcp", `start_tool rollout service:auth "2.5.0"
set_var id $.taskId
get_task
get_task $id
assert_task_status input_required
elicit_response decision=accept '{"decision": "continue"}'
timeout 5000 wait_task
expect_error cancel_task "$id"
expect_error timeout 100 get_task NOPE
assert_task_status cancelled`)
	var got []string
	for _, st := range s.Steps() {
		got = append(got, st.Command)
	}
	want := "start_tool set_var get_task get_task assert_task_status elicit_response timeout expect_error expect_error assert_task_status"
	if strings.Join(got, " ") != want {
		t.Errorf("commands %v", got)
	}
	if c := mustCommand(t, s, 0); len(c.args) != 3 || c.args[1].key != "service" {
		t.Errorf("start_tool arguments %+v", c.args)
	}
	if c := mustCommand(t, s, 6); c.limit != 5*time.Second || c.sub == nil || c.sub.def.name != "wait_task" {
		t.Errorf("timeout wraps %+v", c.sub)
	}
}

// TestSyntaxErrors checks every message the parser gives, with its
// position.
func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"call_tol deploy", `t.mcp:1:1: unknown command "call_tol"; did you mean "call_tool"?`},
		{"  asert_contains x", `t.mcp:1:3: unknown command "asert_contains"; did you mean "assert_contains"?`},
		{"frobnicate", `t.mcp:1:1: unknown command "frobnicate"; see docs/scripts.md for the commands`},
		{`"call_tool" x`, `t.mcp:1:1: expected a command name, found a quoted string; see docs/scripts.md for the commands`},
		{`echo "abc`, `t.mcp:1:6: unterminated string: add the closing "`},
		{`echo 'abc`, `t.mcp:1:6: unterminated string: add the closing '`},
		{`echo "a\qb"`, `t.mcp:1:8: invalid escape \q: use \", \\, \$, \n, \t, \r or \uXXXX`},
		{`echo "\u12"`, `t.mcp:1:7: invalid escape: \u needs four hex digits`},
		{`echo "ab"cd`, `t.mcp:1:10: unexpected 'c' right after a quoted string; separate arguments with a space`},
		{`echo ab"cd"`, `t.mcp:1:8: unexpected " inside a word; quote the whole value or put a space before it`},
		{`echo {"a": 1`, `t.mcp:1:6: unterminated JSON value: add the closing bracket`},
		{`echo {"a" 1}`, `t.mcp:1:6: invalid JSON: invalid character '1' after object key`},
		{`echo ${x`, `t.mcp:1:6: unterminated ${: add the closing }`},
		{`echo ${1x}`, `t.mcp:1:6: invalid variable name "1x": use letters, digits and _`},
		{"echo $nope", `t.mcp:1:6: variable $nope is not set by an earlier line; set it with set_var or input_var, or write \$ for a literal $`},
		{"call_tool x a:", `t.mcp:1:13: argument a: has no value; write a:VALUE (quote an empty value: a:"")`},
		{"call_tool x a:1 a:2", `t.mcp:1:17: argument a is given twice`},
		{"call_tool a:1", `t.mcp:1:11: call_tool needs a name first; usage: call_tool NAME [VALUE | key:VALUE]...`},
		{"call_tool", `t.mcp:1:1: call_tool takes at least 1 argument; usage: call_tool NAME [VALUE | key:VALUE]...`},
		{"get_prompt p who", `t.mcp:1:14: get_prompt takes named arguments only: write NAME:VALUE`},
		{"read_resource a b", `t.mcp:1:17: read_resource takes 1 argument; usage: read_resource URI`},
		{"ping now", `t.mcp:1:6: ping takes 0 arguments; usage: ping`},
		{"elicit_response", `t.mcp:1:1: elicit_response takes 1 to 3 arguments; usage: elicit_response [KEY=]accept|decline|cancel ['{JSON content}'] [exact]`},
		{`elicit_response accept '{}' please`, `t.mcp:1:29: elicit_response takes the word exact after the content, or nothing; usage: elicit_response [KEY=]accept|decline|cancel ['{JSON content}'] [exact]`},
		{`elicit_response decline exact`, `t.mcp:1:17: exact is for the content of accept; decline takes none`},
		{`elicit_response accept '{}' exact exact`, `t.mcp:1:35: elicit_response takes 1 to 3 arguments; usage: elicit_response [KEY=]accept|decline|cancel ['{JSON content}'] [exact]`},
		{"elicit_response acept", `t.mcp:1:17: unknown action "acept"; did you mean "accept"?`},
		{"elicit_response maybe", `t.mcp:1:17: unknown action "maybe"; use accept, decline or cancel`},
		{"elicit_response =accept", `t.mcp:1:17: empty question key before =; write KEY=accept`},
		{`elicit_response "accept"`, `t.mcp:1:17: the action of elicit_response is a bare word: accept, decline or cancel (KEY=ACTION for one question)`},
		{`elicit_response decline '{}'`, `t.mcp:1:25: only accept carries content; remove it or change decline to accept`},
		{`elicit_response accept yes`, `t.mcp:1:24: the content of elicit_response is a JSON object, e.g. '{"confirm": true}'`},
		{`elicit_response accept '[1]'`, `t.mcp:1:24: the content of elicit_response is not a JSON object: it is an array; write one object, e.g. '{"confirm": true}'`},
		{`elicit_response decline:{}`, `t.mcp:1:17: only accept carries content; remove it or change decline to accept`},
		{`elicit_response accept:{"a": 1} '{}'`, `t.mcp:1:33: the content is given twice: after accept: and as an argument`},
		{`elicit_response accept:nope`, `t.mcp:1:17: the content of elicit_response is not a JSON object: invalid character 'o' in literal null (expecting 'u'); write one object, e.g. '{"confirm": true}'`},
		{`elicit_response accept '{} {}'`, `t.mcp:1:24: the content of elicit_response has text after the JSON object; write one object, e.g. '{"confirm": true}'`},
		{`assert_elicited "a" "b"`, `t.mcp:1:21: assert_elicited takes one text; quote text with spaces, and write filters as key=K, mode=M, field=F, action=A`},
		{`assert_elicited mode=sms`, `t.mcp:1:17: mode is form or url, not "sms"`},
		{`assert_elicited action=ok`, `t.mcp:1:17: action is accept, decline or cancel, not "ok"`},
		{`assert_not_elicited color=red`, `t.mcp:1:21: unknown filter "color"; use key=, mode=, field= or action=, or quote the text to search for`},
		{`assert_elicited key=`, `t.mcp:1:17: filter key= has no value`},
		{`assert_elicited key=a key=b`, `t.mcp:1:23: filter key= is given twice`},
		{`assert_elicited_count many`, `t.mcp:1:23: the count of assert_elicited_count must be an integer from 0 to 1000, not "many"`},
		{`assert_error_code x`, `t.mcp:1:19: the code of assert_error_code must be an integer from -2147483648 to 2147483647, not "x"`},
		{`set_var 1x content`, `t.mcp:1:9: invalid variable name "1x": use letters, digits and _, starting with a letter`},
		{`set_var x a..b`, `t.mcp:1:11: invalid path "a..b": empty element; separate names with single dots`},
		{`set_var x content[a]`, `t.mcp:1:11: invalid path "content[a]": brackets hold an array index, e.g. content[0]`},
		{`set_var x $$`, `t.mcp:1:11: invalid path "$$": write $.a.b, structuredContent.a.b, content.0.text or rawResponse`},
		{`set_var x content.*`, `t.mcp:1:11: invalid path "content.*": * is not allowed here`},
		{"input_var a\nset_var x $a", `t.mcp:2:11: the path of set_var cannot use variables`},
		{`assert_gt 3 big`, `t.mcp:1:13: assert_gt compares numbers; "big" is not a number`},
		{`assert_string_length x 5 2`, `t.mcp:1:24: MIN (5) is greater than MAX (2)`},
		{`assert_string_length x -1 2`, `t.mcp:1:24: MIN of assert_string_length must be an integer from 0 to 2147483647, not "-1"`},
		{`timeout 0 ping`, `t.mcp:1:9: the time in milliseconds of timeout must be an integer from 1 to 3600000, not "0"`},
		{`timeout 100`, `t.mcp:1:1: timeout takes at least 2 arguments; usage: timeout MS COMMAND...`},
		{`timeout 100 echo hi`, `t.mcp:1:13: timeout cannot wrap echo; it wraps call_tool, get_prompt, read_resource, ping, list, start_tool, get_task, cancel_task, wait_task, expect_error and timeout`},
		{`expect_error echo x`, `t.mcp:1:14: expect_error cannot wrap echo; it wraps call_tool, get_prompt, read_resource, ping, list, start_tool, get_task, cancel_task, wait_task, assert_task_status, assert_elicited, assert_not_elicited, assert_elicited_count, assert_contains, assert_match, assert_json, assert_question, assert_is_error, assert_not_error, assert_equals, assert_number, assert_gt, assert_string_length, expect_error, assert_error_code and timeout`},
		{`timeout 5 assert_number 1`, `t.mcp:1:11: timeout cannot wrap assert_number; it wraps call_tool, get_prompt, read_resource, ping, list, start_tool, get_task, cancel_task, wait_task, expect_error and timeout`},
		{"call_tool x <<END\nline", `t.mcp:1:13: the here-document <<END has no end: add a line that is END alone`},
		{`logging loud`, `t.mcp:1:9: unknown log level "loud"; use debug, info, notice, warning, error, critical, alert, emergency`},
		{`expect_error timeout 5 expect_error ping`, `t.mcp:1:24: expect_error inside expect_error has no meaning`},
		{`expect_error call_tol x`, `t.mcp:1:14: unknown command "call_tol"; did you mean "call_tool"?`},
		{"start_tool", `t.mcp:1:1: start_tool takes at least 1 argument; usage: start_tool NAME [VALUE | key:VALUE]...`},
		{"start_tool a:1", `t.mcp:1:12: start_tool needs a name first; usage: start_tool NAME [VALUE | key:VALUE]...`},
		{"start_tool rollout a:1 a:2", `t.mcp:1:24: argument a is given twice`},
		{"start_tol rollout", `t.mcp:1:1: unknown command "start_tol"; did you mean "start_tool"?`},
		{"get_task A B", `t.mcp:1:12: get_task takes 0 to 1 arguments; usage: get_task [TASK_ID]`},
		{"cancel_task A B", `t.mcp:1:15: cancel_task takes 0 to 1 arguments; usage: cancel_task [TASK_ID]`},
		{"  wait_task A B", `t.mcp:1:15: wait_task takes 0 to 1 arguments; usage: wait_task [TASK_ID]`},
		{"wait_task $id", `t.mcp:1:11: variable $id is not set by an earlier line; set it with set_var or input_var, or write \$ for a literal $`},
		{"wait_tsk", `t.mcp:1:1: unknown command "wait_tsk"; did you mean "wait_task"?`},
		{"assert_task_status", `t.mcp:1:1: assert_task_status takes 1 argument; usage: assert_task_status working|input_required|completed|failed|cancelled`},
		{"assert_task_status complete", `t.mcp:1:20: unknown task status "complete"; did you mean "completed"?`},
		{"assert_task_status done", `t.mcp:1:20: unknown task status "done"; use working, input_required, completed, failed, cancelled`},
		{"assert_task_status \"completed\" x", `t.mcp:1:32: assert_task_status takes 1 argument; usage: assert_task_status working|input_required|completed|failed|cancelled`},
		{"input_var s\nassert_task_status $s", `t.mcp:2:20: the status of assert_task_status cannot use variables`},
		{"timeout 10 assert_task_status working", `t.mcp:1:12: timeout cannot wrap assert_task_status; it wraps call_tool, get_prompt, read_resource, ping, list, start_tool, get_task, cancel_task, wait_task, expect_error and timeout`},
		{`assert_match "Hello {{name}}"`, `t.mcp:1:14: "{{name}}" is no placeholder: use {{any}}, {{string}}, {{number}}, {{boolean}}, {{uuid}}, {{timestamp}}, {{date}}, {{time}}, {{duration}}, {{hex}}, {{id}}, or write {{{{ for a literal {{`},
		{`assert_json '{"a": 1'`, `t.mcp:1:13: assert_json: the expected value is not JSON: unexpected EOF`},
		{`assert_json hello`, `t.mcp:1:13: assert_json: the expected value is not JSON: invalid character 'h' looking for beginning of value; to expect the text hello write '"hello"'`},
		{`assert_json '{"a": "{{uid}}"}'`, `t.mcp:1:13: assert_json: $.a: "{{uid}}" is no placeholder: use {{any}}, {{string}}, {{number}}, {{boolean}}, {{uuid}}, {{timestamp}}, {{date}}, {{time}}, {{duration}}, {{hex}}, {{id}}, or write {{{{ for a literal {{`},
		{`assert_json '{"a": 1, "a": 2}'`, `t.mcp:1:13: assert_json: the expected value is not JSON: ambiguous JSON object: key "a" appears twice in the object at $`},
		{`assert_json a..b 1`, `t.mcp:1:13: invalid path "a..b": empty element; separate names with single dots`},
		{`assert_question target '{}'`, `t.mcp:1:17: assert_question selects its question with key=K or index=N (given once each), then takes the expected JSON; usage: assert_question [key=K] [index=N] '{expected JSON}'`},
		{`assert_question index=0 '{}'`, `t.mcp:1:17: index= takes the position of the question, from 1, not "0"`},
		{`assert_question key=a key=b '{}'`, `t.mcp:1:23: assert_question selects its question with key=K or index=N (given once each), then takes the expected JSON; usage: assert_question [key=K] [index=N] '{expected JSON}'`},
		{"list tool", `t.mcp:1:6: unknown list "tool"; did you mean "tools"?`},
		{"list", `t.mcp:1:1: list takes 1 argument; usage: list tools|prompts|resources|resource_templates`},
		{"echo " + strings.Repeat("x", maxLineLen), `t.mcp:1:1: line is longer than 65536 bytes`},
	} {
		_, err := ParseFile("t.mcp", []byte(tc.src))
		if err == nil {
			t.Errorf("%q: no error, want %s", tc.src, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, err, tc.want)
		}
		var se SyntaxErrors
		if !errors.As(err, &se) || len(se) != 1 {
			t.Errorf("%q: error %T is not one SyntaxErrors", tc.src, err)
		}
	}
}

func TestSyntaxErrorsAreAllReported(t *testing.T) {
	_, err := ParseFile("many.mcp", []byte("ping\ncall_tol x\nping\nasert_contains y\n"))
	var se SyntaxErrors
	if !errors.As(err, &se) || len(se) != 2 || se[0].Line != 2 || se[1].Line != 4 {
		t.Fatalf("got %v", err)
	}
	src := strings.Repeat("nope\n", 100)
	_, err = ParseFile("x.mcp", []byte(src))
	if !errors.As(err, &se) || len(se) != maxSyntaxErrors {
		t.Fatalf("got %d errors, want the first %d", len(se), maxSyntaxErrors)
	}
}

func TestColumnsCountCharacters(t *testing.T) {
	_, err := ParseFile("u.mcp", []byte(`echo "é" "ü"x`))
	if err == nil || !strings.HasPrefix(err.Error(), "u.mcp:1:13:") {
		t.Fatalf("got %v, want column 13", err)
	}
}

// FuzzParse checks that the parser neither panics nor hangs on any input,
// and that every error it reports has a position inside the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"elicit_response accept '{\"environment\": \"staging\", \"confirm\": true}'\ncall_tool deploy service:\"auth-service\"\nassert_elicited \"version 2.4.1\"\n",
		"input_var a \"?\"\necho $a ${a} \"$a\\n\" 'x'\n",
		"timeout 10 expect_error call_tool x {\"a\": [1, {\"b\": \"]\"}]}\n",
		"assert_elicited \"x\" key=k mode=url field=f action=accept\n",
		"set_var v $.a[0].b\nassert_string_length $v 1 2\n",
		"echo \"\\u00e9\" # c\n// c\r\n",
		"call_tool x http://a/b c:d:e \"",
		"\xef\xbb\xbfping",
		"echo ${",
		"{[\"",
		"start_tool r a:1 2\nset_var id $.taskId\nget_task $id\ncancel_task\ntimeout 9 wait_task\nassert_task_status working\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// No wall-clock bound here: a busy machine misses any. Parsing
		// cost by size is measured by BenchmarkParseAllocations; a parse
		// that never ends fails the fuzz run's -timeout.
		s, err := ParseFile("f.mcp", src)
		lines := strings.Count(string(src), "\n") + 1
		if err != nil {
			var se SyntaxErrors
			if !errors.As(err, &se) || len(se) == 0 {
				t.Fatalf("error %T is not SyntaxErrors: %v", err, err)
			}
			for _, e := range se {
				if e.Line < 1 || e.Line > lines || e.Col < 1 {
					t.Fatalf("position %d:%d outside the input (%d lines)", e.Line, e.Col, lines)
				}
			}
			return
		}
		for _, st := range s.Steps() {
			if st.Line < 1 || st.Line > lines {
				t.Fatalf("bad step %+v", st)
			}
			// What runs is the line parsed again: it parses, to the same
			// command.
			c, err := s.command(&parser{}, st)
			if err != nil {
				t.Fatalf("step %+v: %v", st, err)
			}
			if c.line != st.Line || c.col != st.Col || c.def.name != st.Command {
				t.Fatalf("step %+v parsed again as %s at %d:%d", st, c.def.name, c.line, c.col)
			}
		}
	})
}

// mustCommand is the command of the script's step i, parsed again as the
// runner parses it.
func mustCommand(t *testing.T, s *Script, i int) *command {
	t.Helper()
	c, err := s.command(&parser{}, s.Step(i))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLineIndex: a script's lines, held as offsets into its text, are the
// lines strings.Split finds.
func TestLineIndex(t *testing.T) {
	for _, text := range []string{"", "\n", "one", "one\n", "one\ntwo", "one\r\ntwo\r\n", "\n\nthree\n\n"} {
		want := strings.Split(text, "\n")
		x := newLineIndex(text)
		if x.len() != len(want) {
			t.Errorf("%q: %d lines, want %d", text, x.len(), len(want))
			continue
		}
		for i, w := range want {
			if got := x.at(i); got != w {
				t.Errorf("%q: line %d is %q, want %q", text, i, got, w)
			}
		}
	}
}

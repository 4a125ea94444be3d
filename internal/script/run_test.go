package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runText runs src against the test server and returns the report and the
// text printed while it ran.
func runText(t *testing.T, name, src string, opts RunOptions) (*Report, string) {
	t.Helper()
	s := mustParse(t, name, src)
	var out strings.Builder
	if opts.Connect == nil {
		opts.Connect = testConnect()
	}
	opts.Progress = &out
	rep := Run(context.Background(), s, opts)
	return rep, out.String()
}

func TestDeployScript(t *testing.T) {
	src, err := os.ReadFile("testdata/deploy.mcp")
	if err != nil {
		t.Fatal(err)
	}
	rep, out := runText(t, "deploy.mcp", string(src), RunOptions{})
	want := `deploy.mcp
  ✓ elicit_response accept '{"environment": "staging", "confirm": true}' (line 1)
  ✓ call_tool deploy service:"auth-service" (line 2)
  ✓ assert_elicited "version 2.4.1" (line 3)
  ✓ assert_contains "to staging" (line 4)
  ✓ elicit_response decline (line 6)
  ✓ call_tool deploy service:"auth-service" (line 7)
  ✓ assert_contains "not started" (line 8)
deploy.mcp: 7 passed, 0 failed
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	if rep.ExitCode() != ExitOK {
		t.Errorf("exit code %d, want %d", rep.ExitCode(), ExitOK)
	}
}

// TestCommands runs each command against the in-process server, once
// passing and once failing, and checks the verdict and its explanation.
func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		stdin     string
		fail      int    // the line that must fail; 0: none
		msg       string // part of the failure's explanation
	}{
		{name: "call_tool named", src: "call_tool args name:\"Ann\" count:3 flag:true ratio:0.5 tags:'[\"a\"]'\nassert_contains `{\"count\":3,\"flag\":true,\"name\":\"Ann\",\"ratio\":0.5,\"tags\":[\"a\"]}`"},
		{name: "call_tool positional in alphabetical order", src: "call_tool args 3 true Ann 0.5 '[\"a\"]'\nset_var n structuredContent.echo.name\nassert_equals $n Ann\nset_var c $.structuredContent.echo.count\nassert_equals $c 3"},
		{name: "call_tool mixed", src: "call_tool args name:007 3\nset_var n structuredContent.echo.name\nassert_equals $n 007\nset_var c structuredContent.echo.count\nassert_equals $c 3"},
		{name: "expect_error call_tool not listed", src: "expect_error call_tool missing 1 2\nassert_contains \"unknown tool\""},
		{name: "call_tool not listed", src: "call_tool missing 1 2", fail: 1, msg: "tool missing: it is not in tools/list, so positional arguments cannot be mapped; name them (key:value)"},
		{name: "call_tool JSON with a bracket too many", src: "call_tool args tags:'[\"a\"]]'\nassert_is_error\nassert_contains \"has type \\\"string\\\"\""},
		{name: "call_tool bad type", src: "call_tool args count:many\nassert_is_error\nassert_contains \"many has type\""},
		{name: "call_tool unknown argument", src: "call_tool args colour:red", fail: 1, msg: `unknown argument "colour" for tool args; it takes: count, flag, name, ratio, tags`},
		{name: "call_tool misspelt argument", src: "call_tool args cuont:1", fail: 1, msg: `unknown argument "cuont" for tool args (did you mean count?); it takes: count, flag, name, ratio, tags`},
		{name: "call_tool too many", src: "call_tool args 1 true a 2 '[]' extra", fail: 1, msg: "too many arguments for tool args at column 32"},
		{name: "call_tool key:/path is the argument", src: "call_tool args name:/etc/passwd\nset_var n structuredContent.echo.name\nassert_equals $n /etc/passwd\nassert_contains `{\"name\":\"/etc/passwd\"}`"},
		{name: "call_tool key:/path with a variable", src: "input_var d\ncall_tool args name:/$d/x\nassert_contains `{\"name\":\"/tmp/x\"}`", stdin: "tmp\n"},
		{name: "call_tool key://host is the argument too", src: "call_tool raw name://host/x\nassert_equals `{\"name\":\"//host/x\"}`"},
		{name: "call_tool a URL is a value", src: "call_tool args 3 true http://host/x\nset_var n structuredContent.echo.name\nassert_equals $n http://host/x"},
		{name: "call_tool misspelt key:/path", src: "call_tool args nmae:/etc/passwd", fail: 1, msg: `"nmae:/etc/passwd" at column 16 reads two ways: the argument nmae = "/etc/passwd", or the value "nmae:/etc/passwd"; tool args has no argument nmae (did you mean name?). Write nmae:"/etc/passwd" for the argument, "nmae:/etc/passwd" for the value`},
		{name: "call_tool key:/path, schema open", src: "call_tool loose path:/etc/passwd", fail: 1, msg: `reads two ways: the argument path = "/etc/passwd", or the value "path:/etc/passwd"; tool loose takes arguments beyond its properties`},
		{name: "call_tool key:/path, tool not listed", src: "call_tool missing path:/etc/passwd", fail: 1, msg: `reads two ways: the argument path = "/etc/passwd", or the value "path:/etc/passwd"; tool missing is not in tools/list, so its arguments are not known. Write path:"/etc/passwd"`},
		{name: "expect_error keeps the two readings", src: "expect_error call_tool missing path:/etc/passwd", fail: 1, msg: "reads two ways"},
		{name: "call_tool key:/path given twice", src: "call_tool args name:/x name:y", fail: 1, msg: "argument name is given twice (columns 16 and 24)"},
		{name: "call_tool quoted forms are one reading each", src: "call_tool args name:\"/etc/passwd\"\nassert_contains `{\"name\":\"/etc/passwd\"}`\ncall_tool args 3 true \"name:/etc/passwd\"\nassert_contains `\"name\":\"name:/etc/passwd\"`"},
		{name: "get_prompt key:/path is the argument", src: "elicit_response accept '{\"tone\": \"warm\"}'\nget_prompt greet who:/Ann\nassert_contains \"Hello /Ann, in a warm tone\""},
		{name: "call_tool protocol error", src: "call_tool broken", fail: 1, msg: "call_tool failed:"},
		{name: "call_tool isError passes", src: "call_tool sad\nassert_is_error\nassert_contains wrong"},
		{name: "assert_not_error", src: "call_tool sad\nassert_not_error", fail: 2, msg: "has isError: true"},
		{name: "assert_is_error", src: "call_tool quiet\nassert_is_error", fail: 2, msg: "has isError: false"},
		{name: "expect_error", src: "expect_error call_tool broken\nassert_error_code -32001\nexpect_error call_tool sad"},
		{name: "expect_error succeeds", src: "expect_error call_tool quiet", fail: 1, msg: "expected the command to fail, but it succeeded"},
		{name: "expect_error keeps script errors", src: "expect_error call_tool args colour:red", fail: 1, msg: `unknown argument "colour"`},
		{name: "assert_error_code wrong", src: "expect_error call_tool broken\nassert_error_code -32602", fail: 2, msg: "wrong error code"},
		{name: "assert_error_code no error", src: "call_tool quiet\nassert_error_code -32602", fail: 2, msg: "call_tool (line 1) did not fail"},
		{name: "timeout", src: "expect_error timeout 50 call_tool slow\ntimeout 50 expect_error call_tool slow\nping"},
		{name: "timeout fails", src: "timeout 50 call_tool slow", fail: 1, msg: "call_tool failed"},
		{name: "ping", src: "ping\nassert_elicited_count 0"},
		{name: "echo", src: "echo hello \"big world\""},
		{name: "input_var", src: "input_var who \"Name?\"\ninput_var n\nassert_equals $who Ann\nassert_equals $n 42", stdin: "Ann\r\n42"},
		{name: "input_var without input", src: "input_var who", fail: 1, msg: "no input: stdin ended"},
		{name: "assert_equals", src: "assert_equals a b", fail: 1, msg: "the values differ"},
		{name: "assert_number", src: "assert_number 1e3\nassert_number x", fail: 2, msg: "not a number"},
		{name: "assert_gt", src: "assert_gt 3 2.5\nassert_gt 2 3", fail: 2, msg: "the value is not greater"},
		{name: "assert_string_length", src: "assert_string_length héllo 5 5\nassert_string_length abc 4 9", fail: 2, msg: "the length is out of range"},
		{name: "set_var missing field", src: "call_tool quiet\nset_var x structuredContent.nope", fail: 2, msg: `set_var x: the result has no field "structuredContent"`},
		{name: "set_var out of range", src: "call_tool quiet\nset_var x content.3.text", fail: 2, msg: "$.content has 1 element(s); index 3 is out of range"},
		{name: "set_var rawResponse", src: "call_tool quiet\nset_var r rawResponse\nassert_string_length $r 10 1000"},
		{name: "assert_contains before any command", src: "assert_contains x", fail: 1, msg: "assert_contains needs a command before it"},
		{name: "assert_contains after an expected failure", src: "expect_error call_tool broken\nassert_contains \"RPC error (-32001): broken on purpose\"\nassert_equals \"RPC error (-32001): broken on purpose\"\nset_var c code\nassert_equals $c -32001"},
		{name: "expect_error around an assertion", src: "expect_error assert_number twelve\nassert_contains 'line 1: assertion failed: \"twelve\" is not a number'\nexpect_error assert_gt 2 1", fail: 3, msg: "expected assert_gt to fail, but it passed"},
		{name: "assert_equals and assert_contains, one or two values", src: "call_tool args name:x\nassert_contains \"name\"\nassert_equals \"a\" \"a\"\nassert_contains \"haystack\" \"hay\"\nexpect_error assert_contains \"haystack\" \"needle\"\nassert_contains \"does not contain\""},
		{name: "assert_elicited filters", src: "elicit_response a=accept '{\"name\": \"Ann\"}'\nelicit_response b=accept\ncall_tool two\nassert_elicited_count 2\nassert_elicited \"name?\" key=a mode=form field=name action=accept\nassert_elicited mode=url \"example.test\"\nassert_not_elicited mode=url field=name\nassert_contains `a=accept{\"name\":\"Ann\"} b=accept`"},
		{name: "assert_elicited no match", src: "call_tool two\nassert_elicited mode=url action=accept", fail: 2, msg: "call_tool (line 1) asked no such question"},
		{name: "assert_not_elicited match", src: "call_tool two\nassert_not_elicited mode=url", fail: 2, msg: "asked a question it should not have"},
		{name: "assert_not_elicited nothing", src: "call_tool quiet\nassert_not_elicited"},
		{name: "assert_elicited_count wrong", src: "call_tool two\nassert_elicited_count 1", fail: 2, msg: "asked 2 question(s)"},
		{name: "keyed answers go to their key", src: "elicit_response b=decline\nelicit_response accept '{\"name\": \"Bo\"}'\ncall_tool two\nassert_contains `a=accept{\"name\":\"Bo\"} b=decline`"},
		{name: "unused answer: nothing asked", src: "elicit_response accept\ncall_tool quiet", fail: 1, msg: "the answer was never used: the server asked nothing during call_tool (line 2)"},
		{name: "unused answer: wrong key", src: "elicit_response c=accept\ncall_tool two", fail: 1, msg: `the answer was never used: no question of call_tool (line 2) had the key "c"`},
		{name: "unused answer: end of script", src: "call_tool quiet\nelicit_response decline", fail: 2, msg: "the answer was never used: no call_tool, get_prompt, read_resource, start_tool or wait_task follows it"},
		{name: "unused answer: command failed", src: "elicit_response decline\nexpect_error call_tool broken", fail: 1, msg: "the answer was never used: the server asked nothing during call_tool (line 2)"},
		{name: "get_prompt asks", src: "elicit_response accept '{\"tone\": \"warm\"}'\nget_prompt greet who:Ann\nassert_elicited \"Which tone\"\nassert_contains \"Hello Ann, in a warm tone\""},
		{name: "read_resource asks", src: "elicit_response accept '{}'\nread_resource note://secret\nassert_elicited key=ok\nassert_contains \"says hi\"\nread_resource note://secret\nassert_contains \"kept secret\""},
		{name: "variables in answers", src: "input_var n\nelicit_response accept \"{\\\"name\\\": \\\"$n\\\"}\"\nelicit_response b=cancel\ncall_tool two\nassert_contains `a=accept{\"name\":\"Zed\"} b=cancel`", stdin: "Zed\n"},
		{name: "assert_match", src: "elicit_response accept '{\"environment\": \"production\", \"confirm\": true}'\ncall_tool deploy service:api\nassert_match \"Rolling out {{string}} {{any}} to production.\"\nassert_match \"Rolling out api {{number}}.4.1 to {{string}}.\"\nassert_match \"Rolling out api 2.4.1 to staging.\"", fail: 5, msg: "the last response does not match the pattern"},
		{name: "assert_match two values", src: "assert_match \"task 550e8400-e29b-41d4-a716-446655440000\" \"task {{uuid}}\"\nassert_match x \"{{uuid}}\"", fail: 2, msg: "the value does not match the pattern"},
		{name: "assert_json", src: "call_tool args name:Ann count:3\nassert_json '{\"structuredContent\": {\"echo\": {\"name\": \"{{string}}\", \"count\": \"{{number}}\"}, \"len\": 3}}'\nassert_json structuredContent.echo {\"name\":\"Ann\"}\nassert_json structuredContent.len 3\nassert_json structuredContent.echo.name '\"Bo\"'", fail: 5, msg: "$.structuredContent.echo.name differs from the expected value at $"},
		{name: "assert_json differences", src: "call_tool args name:Ann count:3\nassert_json '{\"structuredContent\": {\"echo\": {\"name\": \"Bo\", \"gone\": 1}, \"len\": \"{{string}}\"}}'", fail: 2, msg: "the result differs from the expected value at $.structuredContent.echo.name, $.structuredContent.echo.gone, $.structuredContent.len"},
		{name: "assert_json no such path", src: "call_tool quiet\nassert_json structuredContent.x 1", fail: 2, msg: "the result has nothing at $.structuredContent.x"},
		{name: "assert_question", src: "elicit_response a=accept '{\"name\": \"Ann\"}'\ncall_tool two\nassert_question key=a '{\"mode\":\"form\",\"requestedSchema\":{\"properties\":{\"name\":{\"type\":\"string\"}}}}'\nassert_question index=2 '{\"url\":\"https://example.test/connect\",\"elicitationId\":\"{{string}}\"}'\nassert_question '{\"message\":\"Your name?\"}'\nassert_question key=a '{\"message\":\"Your age?\"}'", fail: 6, msg: `the question "a" of call_tool (line 2) differs from the expected value at $.message`},
		{name: "assert_question no such key", src: "call_tool two\nassert_question key=z '{}'", fail: 2, msg: "call_tool (line 1) asked no such question"},
		{name: "bad JSON in a variable", src: "input_var n\nelicit_response accept \"$n\"\ncall_tool two", stdin: "nope\n", fail: 2, msg: "the content of elicit_response is not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.ReplaceAll(tc.src, "`", "'")
			rep, out := runText(t, "c.mcp", src, RunOptions{Stdin: strings.NewReader(tc.stdin)})
			steps := rep.Scripts[0].Steps
			if n := strings.Count(src, "\n") + 1; len(steps) != n {
				t.Fatalf("%d steps for %d lines:\n%s", len(steps), n, out)
			}
			for _, st := range steps {
				if st.Line == tc.fail {
					if st.Passed || !strings.Contains(st.Message, tc.msg) {
						t.Errorf("line %d: passed=%v message %q; want a failure with %q\n%s", st.Line, st.Passed, st.Message, tc.msg, out)
					}
				} else if !st.Passed {
					t.Errorf("line %d failed: %s\n%s", st.Line, st.Message, out)
				}
			}
			wantCode := ExitOK
			if tc.fail != 0 {
				wantCode = ExitFailed
			}
			if rep.ExitCode() != wantCode {
				t.Errorf("exit code %d, want %d", rep.ExitCode(), wantCode)
			}
		})
	}
}

func TestFailureCountsAndExcerpt(t *testing.T) {
	src := "elicit_response accept '{\"environment\": \"production\", \"confirm\": true}'\ncall_tool deploy service:\"api\"\nassert_contains \"to staging\"\nassert_elicited \"version 9\"\nassert_contains \"to production\"\n"
	rep, out := runText(t, "f.mcp", src, RunOptions{})
	if p, f := rep.Counts(); p != 3 || f != 2 || rep.ExitCode() != ExitFailed {
		t.Fatalf("%d passed, %d failed, exit %d:\n%s", p, f, rep.ExitCode(), out)
	}
	for _, want := range []string{
		"  ✗ assert_contains \"to staging\" (line 3)\n      the result does not contain the text\n      expected: text containing \"to staging\"\n      actual:   \"Rolling out api 2.4.1 to production.\"\n      response: {",
		"  ✗ assert_elicited \"version 9\" (line 4)\n      the question \"target\" of call_tool (line 2) asks something else\n      expected: a message containing \"version 9\"\n      actual:   \"Roll out api version 2.4.1 – where to?\"\n",
		"f.mcp: 3 passed, 2 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\n---- output:\n%s", want, out)
		}
	}
}

// RunOptions.StepTimeout bounds a step that never ends; the ping after it,
// with a limit of its own (a busy machine may take longer than 50 ms to
// answer it), passes.
func TestStepTimeout(t *testing.T) {
	rep, out := runText(t, "t.mcp", "call_tool slow\ntimeout 60000 ping\n", RunOptions{StepTimeout: 50 * time.Millisecond})
	if p, f := rep.Counts(); p != 1 || f != 1 {
		t.Fatalf("%d passed, %d failed:\n%s", p, f, out)
	}
}

func TestVerbose(t *testing.T) {
	_, out := runText(t, "v.mcp", "elicit_response decline\ncall_tool deploy service:x\n", RunOptions{Verbose: true})
	if !strings.Contains(out, "      [ELICIT] target: Roll out x version 2.4.1 – where to? → decline\n") {
		t.Errorf("output:\n%s", out)
	}
}

func TestCouldNotConnect(t *testing.T) {
	s := mustParse(t, "a.mcp", "ping\n")
	var out strings.Builder
	rep := RunAll(context.Background(), []*Script{s, s}, RunOptions{Progress: &out, Connect: func(context.Context) (Conn, error) {
		return nil, errors.New("connection refused")
	}})
	want := "a.mcp\na.mcp: could not connect: connection refused\na.mcp\na.mcp: could not connect: connection refused\ntotal (2 scripts, 2 could not run): 0 passed, 0 failed\n"
	if out.String() != want || rep.ExitCode() != ExitConnect {
		t.Errorf("exit %d, output:\n%s", rep.ExitCode(), out.String())
	}
}

// TestParallelMatchesSerial runs the same scripts one at a time and four at
// a time: the results and the text are the same.
func TestParallelMatchesSerial(t *testing.T) {
	srcs := []string{
		"elicit_response accept '{\"environment\": \"staging\", \"confirm\": true}'\ncall_tool deploy service:a\nassert_contains \"to staging\"\n",
		"elicit_response decline\ncall_tool deploy service:b\nassert_contains \"to staging\"\n",
		"call_tool two\nassert_elicited_count 2\nelicit_response accept\n",
		"input_var x\necho $x\nexpect_error call_tool broken\nassert_error_code -32001\n",
		"call_tool args 1 true n 2.5\nset_var v structuredContent.len\nassert_gt $v 0\n",
		"elicit_response accept '{}'\nread_resource note://secret\nassert_contains hi\n",
	}
	var scripts []*Script
	for i := range 3 {
		for j, src := range srcs {
			scripts = append(scripts, mustParse(t, fmt.Sprintf("s%d-%d.mcp", i, j), src))
		}
	}
	run := func(jobs int) (*Report, string) {
		var out strings.Builder
		rep := RunAll(context.Background(), scripts, RunOptions{Jobs: jobs, Connect: testConnect(), Progress: &out, Stdin: strings.NewReader(strings.Repeat("line\n", 10))})
		return rep, out.String()
	}
	serial, serialOut := run(1)
	parallel, parallelOut := run(4)
	if serialOut != parallelOut {
		t.Errorf("text differs:\nserial:\n%s\nparallel:\n%s", serialOut, parallelOut)
	}
	sp, sf := serial.Counts()
	pp, pf := parallel.Counts()
	if sp != pp || sf != pf || serial.ExitCode() != parallel.ExitCode() {
		t.Errorf("serial %d/%d exit %d, parallel %d/%d exit %d", sp, sf, serial.ExitCode(), pp, pf, parallel.ExitCode())
	}
	if sf != 6 || !strings.HasSuffix(serialOut, fmt.Sprintf("total (18 scripts): %d passed, 6 failed\n", sp)) {
		t.Errorf("want 6 failures (the decline script and the unused answer, three times each):\n%s", serialOut)
	}
}

func TestInputVarPrompt(t *testing.T) {
	var prompts strings.Builder
	rep, out := runText(t, "p.mcp", "input_var a \"First?\"\ninput_var b\nassert_equals \"$a/$b\" one/two\n", RunOptions{Stdin: strings.NewReader("one\ntwo\n"), Prompts: &prompts})
	if rep.ExitCode() != ExitOK || prompts.String() != "First? " {
		t.Fatalf("exit %d, prompts %q:\n%s", rep.ExitCode(), prompts.String(), out)
	}
}

// FuzzRun runs any script that parses against the in-process server: the
// runner must not panic, must report one result per step, and must end.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"elicit_response accept '{\"environment\": \"staging\", \"confirm\": true}'\ncall_tool deploy service:\"auth-service\"\nassert_elicited \"version 2.4.1\"\nassert_contains \"to staging\"\n",
		"elicit_response a=accept '{\"name\": 1}'\nelicit_response b=decline\ncall_tool two\nassert_elicited_count 2\nassert_not_elicited mode=url\n",
		"call_tool args 1 true x 2 '[1]'\nset_var v $.structuredContent.echo\nassert_equals $v x\nset_var w rawResponse\nassert_string_length $w 0 5\n",
		"expect_error timeout 5 call_tool slow\nassert_error_code 1\nassert_is_error\nassert_gt 1 2\n",
		"input_var x\nget_prompt greet who:$x\nread_resource note://secret\nping\necho $x\n",
		"elicit_response cancel\nassert_contains x\nset_var y content[9].text\n",
	} {
		f.Add(s)
	}
	connect := testConnect()
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseFile("f.mcp", []byte(src))
		if err != nil || s.NumSteps() > 50 {
			return
		}
		rep := Run(context.Background(), s, RunOptions{Connect: connect, StepTimeout: 20 * time.Millisecond, Stdin: strings.NewReader("a\nb\n")})
		if rep.Scripts[0].Err != nil {
			t.Skip(rep.Scripts[0].Err) // the machine is too busy to connect
		}
		if len(rep.Scripts[0].Steps) != s.NumSteps() {
			t.Fatalf("%d results for %d steps", len(rep.Scripts[0].Steps), s.NumSteps())
		}
	})
}

// noList is a Conn whose tools/list fails.
type noList struct{ Conn }

func (noList) ListTools(context.Context) ([]*mcp.Tool, error) {
	return nil, errors.New("not supported")
}

func TestArgumentsWithoutToolList(t *testing.T) {
	connect := func(ctx context.Context) (Conn, error) {
		c, err := testConnect()(ctx)
		return noList{c}, err
	}
	rep, out := runText(t, "n.mcp", "call_tool args name:\"5\" count:5 flag:true\nassert_contains '{\"count\":5,\"flag\":true,\"name\":\"5\"}'\ncall_tool args 5\n", RunOptions{Connect: connect})
	steps := rep.Scripts[0].Steps
	if !steps[0].Passed || !steps[1].Passed || steps[2].Passed || !strings.Contains(steps[2].Message, "positional arguments need the tool's input schema: tools/list failed: not supported") {
		t.Fatalf("output:\n%s", out)
	}
}

// A bare null is JSON null, whatever the property's type; quoted, it is
// the text "null".
func TestNullArguments(t *testing.T) {
	rep, out := runText(t, "null.mcp", "call_tool raw verbose:null count:null name:\"null\"\nassert_contains '{\"count\":null,\"name\":\"null\",\"verbose\":null}'\ncall_tool raw null\nassert_contains '{\"count\":null}'\n", RunOptions{})
	for i, st := range rep.Scripts[0].Steps {
		if !st.Passed {
			t.Errorf("line %d failed: %s\n%s", i+1, st.Message, out)
		}
	}
}

func TestAssertionsAfterAFailedCommand(t *testing.T) {
	rep, out := runText(t, "a.mcp", "call_tool args colour:red\nassert_elicited\nassert_contains x\nassert_elicited_count 0\n", RunOptions{})
	steps := rep.Scripts[0].Steps
	for i, want := range []string{`unknown argument "colour"`, "call_tool (line 1) failed before the server asked anything", "call_tool (line 1) failed, so there is no result to check", ""} {
		if want == "" {
			if !steps[i].Passed {
				t.Errorf("line %d failed: %s", i+1, steps[i].Message)
			}
			continue
		}
		if steps[i].Passed || !strings.Contains(steps[i].Message, want) {
			t.Errorf("line %d: %q, want %q\n%s", i+1, steps[i].Message, want, out)
		}
	}
}

package script

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askback/askback/internal/script/expect"
)

// runSrc runs src against the test server and returns its result.
func runSrc(t *testing.T, name, src string) (*Script, *ScriptResult, string) {
	t.Helper()
	s := mustParse(t, name, src)
	rep, out := runText(t, name, src, RunOptions{})
	return s, rep.Scripts[0], out
}

func TestUpdateRewritesOnlyExpectedValues(t *testing.T) {
	src := "# a comment stays\r\n" +
		"elicit_response target=accept '{\"environment\": \"production\", \"confirm\": true}'\r\n" +
		"call_tool deploy service:api   # so does this one\r\n" +
		"assert_elicited   'version 9' key=target mode=form\r\n" +
		"assert_question key=target '{\"requestedSchema\": {\"required\": [\"env\"]}, \"mode\": \"form\"}'\r\n" +
		"assert_contains \"to staging\"\r\n" +
		"assert_equals 'nothing'\r\n" +
		"assert_match \"Rolling out {{string}} to staging.\"\r\n" +
		"assert_elicited_count 3\r\n" +
		"assert_json <<END\r\n" +
		"{\r\n" +
		"    \"content\": [{\"type\": \"text\", \"text\": \"old\"}]\r\n" +
		"}\r\n" +
		"END\r\n" +
		"assert_number x\r\n" +
		"expect_error call_tool broken\r\n" +
		"assert_error_code -32602\r\n"
	s, res, out := runSrc(t, "u.mcp", src)
	got, notes, err := Update(s, res)
	if err != nil {
		t.Fatal(err)
	}
	want := "# a comment stays\r\n" +
		"elicit_response target=accept '{\"environment\": \"production\", \"confirm\": true}'\r\n" +
		"call_tool deploy service:api   # so does this one\r\n" +
		"assert_elicited   'Roll out api version 2.4.1 – where to?' key=target mode=form\r\n" +
		"assert_question key=target '{\"requestedSchema\":{\"required\":[\"environment\",\"confirm\"]},\"mode\":\"form\"}'\r\n" +
		"assert_contains \"Rolling out api 2.4.1 to production.\"\r\n" +
		"assert_equals 'Rolling out api 2.4.1 to production.'\r\n" +
		"assert_match \"Rolling out api 2.4.1 to production.\"\r\n" +
		"assert_elicited_count 1\r\n" +
		"assert_json <<END\r\n" +
		"{\r\n" +
		"    \"content\": [\r\n" +
		"        {\r\n" +
		"            \"type\": \"text\",\r\n" +
		"            \"text\": \"Rolling out api 2.4.1 to production.\"\r\n" +
		"        }\r\n" +
		"    ]\r\n" +
		"}\r\n" +
		"END\r\n" +
		"assert_number x\r\n" +
		"expect_error call_tool broken\r\n" +
		"assert_error_code -32001\r\n"
	if string(got) != want {
		t.Errorf("updated:\n%s\nwant:\n%s\n(run:\n%s)", got, want, out)
	}
	var texts []string
	for _, n := range notes {
		texts = append(texts, n.String())
	}
	wantNotes := "line 4: assert_elicited updated\nline 5: assert_question updated\nline 6: assert_contains updated\nline 7: assert_equals updated\nline 8: assert_match updated\nline 9: assert_elicited_count updated\nline 10: assert_json updated\nline 15: not updated: assert_number cannot be rewritten for this failure (not a number)\nline 17: assert_error_code updated"
	if strings.Join(texts, "\n") != wantNotes {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(texts, "\n"), wantNotes)
	}
	// The updated script passes, but for what no update can change.
	_, res2, out2 := runSrc(t, "u.mcp", string(got))
	for _, st := range res2.Steps {
		if !st.Passed && st.Command != "assert_number" {
			t.Errorf("line %d still fails after the update: %s\n%s", st.Line, st.Message, out2)
		}
	}
}

func TestUpdateLeavesVariablesAndNonChecks(t *testing.T) {
	src := "input_var x\nelicit_response decline\ncall_tool quiet\nassert_contains \"$x\"\n"
	s := mustParse(t, "v.mcp", src)
	rep, _ := runText(t, "v.mcp", src, RunOptions{Stdin: strings.NewReader("absent\n")})
	got, notes, err := Update(s, rep.Scripts[0])
	if err != nil || string(got) != src {
		t.Fatalf("Update changed the script: %v\n%s", err, got)
	}
	var texts []string
	for _, n := range notes {
		texts = append(texts, n.String())
	}
	want := "line 2: not updated: elicit_response is no check (the answer was never used: the server asked nothing during call_tool (line 3))\nline 4: not updated: the expected value uses variables"
	if strings.Join(texts, "\n") != want {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(texts, "\n"), want)
	}
}

// updateSeeds are scripts of every way of writing an expected value.
var updateSeeds = []string{
	"call_tool quiet\nassert_equals 'done without asking'\n",
	"call_tool quiet  # c\n\n  assert_contains \"done\"  // c\nassert_json {\"content\":[{\"type\":\"text\"}]}\n",
	"assert_match \"a {{{{b\" \"a {{{{b\"\nassert_json $ <<X\n{\n\t\"a\": 1\n}\nX\n",
	"assert_elicited_count 0\nassert_elicited \"x\" key=k\nassert_question index=1 '[1, \"{{uuid}}\"]'\nassert_task_status working\nassert_error_code -1\n",
	"assert_equals \"é \\u0007 $\\$ \\\" ' \" \"\"\nassert_json '\"it''s\"'\n",
}

// sameValue makes every check of s fail with a fix whose new value is the
// value already written, as an update from a run that found just that.
func sameValue(s *Script) *ScriptResult {
	res := &ScriptResult{Name: s.Name}
	for _, st := range s.Steps() {
		r := &StepResult{Line: st.Line, Command: st.Command, Passed: true}
		c := commandOf(s, st)
		if c.def.assertion && len(c.args) > 0 {
			i := len(c.args) - 1
			if c.expect != nil {
				i = c.expect.arg
			}
			if c.filter != nil {
				i = -1
				for k := range c.args {
					if &c.args[k] == c.filter.text {
						i = k
					}
				}
			}
			if i >= 0 {
				if v, ok := c.args[i].literal(); ok && utf8.ValidString(v) {
					r.Passed = false
					r.fix = &fix{arg: i, text: v}
					if c.expect != nil {
						r.fix = &fix{arg: i, json: c.expect.want, isJSON: true}
					}
				}
			}
		}
		res.Steps = append(res.Steps, r)
	}
	return res
}

// FuzzUpdate checks the two promises of an update on any script: with
// nothing to update it is unchanged byte for byte, and rewriting a value
// with itself keeps what the script says (it parses to the same values).
func FuzzUpdate(f *testing.F) {
	for _, s := range updateSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseFile("f.mcp", []byte(src))
		if err != nil {
			return
		}
		passed := &ScriptResult{Name: s.Name}
		for _, st := range s.Steps() {
			passed.Steps = append(passed.Steps, &StepResult{Line: st.Line, Command: st.Command, Passed: true})
		}
		got, notes, err := Update(s, passed)
		if err != nil || string(got) != src || len(notes) != 0 {
			t.Fatalf("a script with nothing to update changed: %v, %v\n%q\n%q", err, notes, src, got)
		}
		got, _, err = Update(s, sameValue(s))
		if err != nil {
			t.Fatalf("rewriting each value with itself: %v\n%q", err, src)
		}
		s2, err := ParseFile("f.mcp", got)
		if err != nil {
			t.Fatalf("does not parse: %v", err)
		}
		if s2.NumSteps() != s.NumSteps() {
			t.Fatalf("%d steps became %d:\n%q\n%q", s.NumSteps(), s2.NumSteps(), src, got)
		}
		for i, st := range s.Steps() {
			a, b := commandOf(s, st), commandOf(s2, s2.Step(i))
			if st.Line != s2.Step(i).Line || len(a.args) != len(b.args) {
				t.Fatalf("step %d moved or changed:\n%q\n%q", i, src, got)
			}
			for k := range a.args {
				va, _ := a.args[k].literal()
				vb, _ := b.args[k].literal()
				if a.expect != nil && k == a.expect.arg && a.expect.want != nil {
					if b.expect == nil || b.expect.want == nil || !jsonEqual(a.expect.want, b.expect.want) {
						t.Fatalf("line %d: expected JSON changed:\n%q\n%q", st.Line, src, got)
					}
					continue
				}
				if va != vb {
					t.Fatalf("line %d argument %d: %q became %q:\n%q\n%q", st.Line, k, va, vb, src, got)
				}
			}
		}
		// Lines without a check are untouched.
		in, out := strings.Split(src, "\n"), strings.Split(string(got), "\n")
		checks := map[int]bool{}
		for _, st := range s.Steps() {
			if commandOf(s, st).def.assertion {
				checks[st.Line-1] = true
			}
		}
		if len(in) == len(out) {
			for i := range in {
				if !checks[i] && in[i] != out[i] && !strings.HasPrefix(strings.TrimSpace(in[i]), "{") {
					t.Fatalf("line %d is no check but changed: %q → %q", i+1, in[i], out[i])
				}
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	return jsonmatchCompact(a) == jsonmatchCompact(b)
}

func jsonmatchCompact(v any) string { return expect.Compact(v) }

// commandOf is the parsed command of st, a step of s.
func commandOf(s *Script, st Step) *command {
	c, err := s.command(&parser{}, st)
	if err != nil {
		panic(err)
	}
	return c
}

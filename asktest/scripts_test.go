package asktest_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
)

// The scripts of testdata/scripts pass against the server, in both eras,
// each as a subtest.
func TestRunScripts(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		asktest.RunScripts(t, asktest.Server(newServer(broken{})), "testdata/scripts/*.mcp", &asktest.Options{Era: era})
	})
}

// A server that stopped asking fails the script's steps, each at its
// FILE:LINE with what it expected and what came; a subtest per script.
func TestRunScriptsFails(t *testing.T) {
	ft := failing(t, "a server that stopped asking", func(ft *T) {
		asktest.RunScripts(ft, asktest.Server(newServer(broken{noAsk: true})), "testdata/scripts/*.mcp", nil)
	}, `deploy: testdata/scripts/deploy.mcp:2: elicit_response accept`,
		"the answer was never used: the server asked nothing during call_tool (line 3)",
		`deploy: testdata/scripts/deploy.mcp:4: assert_elicited "version 2.4.1"`,
		`deploy: testdata/scripts/deploy.mcp:9: assert_contains "not started"`,
		`expected: text containing "not started"`, `actual:   "Rolling out web 2.4.1 to staging."`)
	if !strings.Contains(ft.Errors(), "greet: testdata/scripts/greet.mcp:2: get_prompt greet") {
		t.Errorf("greet, whose prompt the server lost, did not fail as a subtest of its own:\n%s", ft.Errors())
	}
}

// A script that does not parse, a pattern that names nothing and a server
// that cannot be reached fail the test before any step runs.
func TestRunScriptsCannotRun(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mcp")
	if err := os.WriteFile(bad, []byte("call_tool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failing(t, "a syntax error", func(ft *T) {
		asktest.RunScripts(ft, asktest.Server(newServer(broken{})), bad, nil)
	}, "bad: "+bad+":1:")
	failing(t, "no script", func(ft *T) {
		asktest.RunScripts(ft, asktest.Server(newServer(broken{})), filepath.Join(dir, "*.nothing"), nil)
	}, "matches no file")
	failing(t, "no server", func(ft *T) {
		asktest.RunScripts(ft, asktest.Command("/nonexistent/server"), "testdata/scripts/greet.mcp", nil)
	}, `greet: testdata/scripts/greet.mcp: could not connect: connect to command "/nonexistent/server"`)
}

// With -update, the failed checks take what the server answered and the
// test passes; a failure no update fixes still fails.
func TestRunScriptsUpdate(t *testing.T) {
	setUpdate(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "deploy.mcp")
	src := "elicit_response accept '{\"environment\": \"production\", \"confirm\": true}'\n" +
		"call_tool deploy service:\"web\"   # the version changed\n" +
		"assert_elicited \"version 2.4.1\"\n" +
		"assert_contains \"Rolling out web 2.4.1 to production.\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := asktest.Server(newServer(broken{wrongMsg: true}))
	ft := run("update", func(ft *T) { asktest.RunScripts(ft, srv, path, nil) })
	if ft.Failed() {
		t.Fatalf("the update failed:\n%s", ft.Errors())
	}
	got, _ := os.ReadFile(path)
	want := strings.ReplaceAll(src, "2.4.1", "2.4.0")
	want = strings.Replace(want, `"version 2.4.0"`, `"Roll out web version 2.4.0 – where to?"`, 1)
	if string(got) != want {
		t.Errorf("the script after -update:\n%s\nwant:\n%s", got, want)
	}
	if logs := strings.Join(ft.logs, "\n"); !strings.Contains(logs, "2 expected value(s) updated") || !strings.Contains(logs, `+assert_contains "Rolling out web 2.4.0 to production."`) {
		t.Errorf("the log does not show the diff:\n%s", logs)
	}
	// The script passes now, without -update.
	flag.Set("update", "false")
	if ft := run("after", func(ft *T) { asktest.RunScripts(ft, srv, path, nil) }); ft.Failed() {
		t.Errorf("the updated script fails:\n%s", ft.Errors())
	}
	// A step that fails for another reason than a check is not updated.
	flag.Set("update", "true")
	failing(t, "no update for a call that fails", func(ft *T) {
		asktest.RunScripts(ft, asktest.Server(newServer(broken{noAsk: true})), path, nil)
	}, "deploy.mcp:3: not updated: assert_elicited cannot be rewritten for this failure")
}

// setUpdate gives the test -update, and takes it back at its end.
func setUpdate(t *testing.T) {
	t.Helper()
	was := flag.Lookup("update").Value.String()
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	if !asktest.Updating() {
		t.Fatal("Updating() is false with -update")
	}
	t.Cleanup(func() { flag.Set("update", was) })
}

// A tool's isError result counts in a script as in mcp-tester test:
// expect_error passes on it, as WantError does in Go, and assert_is_error
// checks it after a call_tool (which passes: the step notes it).
func TestRunScriptsIsError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollback.mcp")
	src := "elicit_response accept '{\"sure\": true}'\nexpect_error call_tool rollback service:\"web\"\n" +
		"elicit_response accept '{\"sure\": true}'\ncall_tool rollback service:\"web\"\nassert_is_error\nassert_contains \"Nothing to roll back.\"\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		asktest.RunScripts(t, asktest.Server(newServer(broken{fails: "Nothing to roll back."})), path, &asktest.Options{Era: era})
	})
}

// expect_error in a script expects an error of the server's, as WantError
// does: the script's own answer that does not fit the form, and a question
// no elicit_response answers (RunScripts is always --strict), fail the
// step, in each asking command and both eras; the server's errors pass.
func TestRunScriptsExpectErrorIsNoCoverForTheScriptsMistakes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	unfit := write("unfit.mcp", "elicit_response accept '{\"environment\": \"moon\", \"confirm\": true}'\nexpect_error call_tool deploy service:\"web\"\n"+
		"elicit_response accept '{\"name\": 42}'\nexpect_error get_prompt greet\n"+
		"elicit_response accept '{\"name\": 42}'\nexpect_error read_resource note://today\n")
	unanswered := write("unanswered.mcp", "expect_error call_tool deploy service:\"web\"\nexpect_error get_prompt greet\nexpect_error read_resource note://today\n")
	server := write("server.mcp", "expect_error call_tool nosuchtool\nexpect_error get_prompt nosuchprompt\nexpect_error read_resource note://nosuch\n")
	const own = "expect_error expects an error of the server's, not the script's own"
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		opts := &asktest.Options{Era: era}
		failing(t, "answers that do not fit", func(ft *T) { asktest.RunScripts(ft, asktest.Server(newServer(broken{})), unfit, opts) },
			"unfit.mcp:2: expect_error call_tool", `got the string "moon"`, "unfit.mcp:4: expect_error get_prompt greet", "unfit.mcp:6: expect_error read_resource note://today", `field "name": must be a string`, own)
		failing(t, "questions nobody answers", func(ft *T) { asktest.RunScripts(ft, asktest.Server(newServer(broken{})), unanswered, opts) },
			"unanswered.mcp:1: expect_error call_tool", "unanswered.mcp:2: expect_error get_prompt greet", "unanswered.mcp:3: expect_error read_resource note://today",
			"no answer was given for question", own)
		asktest.RunScripts(t, asktest.Server(newServer(broken{})), server, opts)
	})
}

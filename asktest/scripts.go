package asktest

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/platform/outfile"
	"github.com/askback/askback/internal/script"
	"github.com/askback/askback/internal/text/textdiff"
)

// The -update flag of go test, unless a package the test links defined
// one already (then that one is read).
func init() {
	if flag.Lookup(updateFlag) == nil {
		flag.Bool(updateFlag, false, "asktest: rewrite the expected values of the failed checks of .mcp scripts with what the server answered")
	}
}

const updateFlag = "update"

// Updating reports whether go test was given -update: [RunScripts] then
// rewrites the expected values of the checks that failed. asktest defines
// the flag; a test package that wants -update for golden files of its
// own reads it here rather than defining it again (which would panic:
// flag redefined).
func Updating() bool {
	f := flag.Lookup(updateFlag)
	if f == nil {
		return false
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if b, ok := g.Get().(bool); ok {
			return b
		}
	}
	return f.Value.String() == "true"
}

// RunScripts runs each .mcp script that pattern names (a file, a
// directory of them, or a glob such as testdata/*.mcp) as a subtest named
// after the file, on a session of its own with the server tg. Each failed
// step fails the subtest at its FILE:LINE, with what it expected and what
// came; a question that no elicit_response answers fails its step, as
// mcp-tester test --strict does. A script with a syntax error fails before
// anything runs.
//
// With go test -update, the expected values of the checks that failed are
// rewritten with what the server answered (as mcp-tester test --update
// does: those values alone, every other byte of the file kept), the diff
// logged; a check that cannot be rewritten still fails.
func RunScripts[T Runner[T]](t T, tg Target, pattern string, opts *Options) {
	t.Helper()
	paths, err := script.ExpandPaths([]string{pattern})
	if err != nil {
		t.Fatalf("asktest: %v", err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), script.Ext)
		t.Run(name, func(t T) {
			t.Helper() // failures are reported at the call of RunScripts
			runScript(t, tg, p, opts)
		})
	}
}

// runScript runs the script at path as one test.
func runScript(tb testing.TB, tg Target, path string, opts *Options) {
	tb.Helper()
	scripts, err := script.LoadFiles([]string{path})
	if err != nil {
		tb.Fatal(err)
	}
	s := scripts[0]
	tr, so := opts.sessionTo(tb, tg)
	ctx, cancel := testContext(tb)
	defer cancel()
	// The test's deadline bounds the steps, not a clock of the runner's:
	// a busy machine makes no step fail.
	limit := 24 * time.Hour
	if d, ok := deadline(tb); ok {
		limit = time.Until(d)
	}
	rep := script.Run(ctx, s, script.RunOptions{
		ConnectScript:  script.SessionConnectScript(so),
		Strict:         "add an elicit_response for it",
		StepTimeout:    limit,
		ConnectTimeout: limit,
	})
	for _, l := range tr.left() {
		tb.Errorf("asktest: %s", l)
	}
	res := rep.Scripts[0]
	if res.Err != nil {
		tb.Fatalf("%s: %s", s.Name, res.Err)
	}
	if _, failed := res.Counts(); failed > 0 && Updating() {
		update(tb, s, res)
		return
	}
	for _, st := range res.Steps {
		if !st.Passed {
			tb.Errorf("%s:%d: %s\n%s", s.Name, st.Line, st.Text, strings.TrimRight(st.Details(), "\n"))
		}
	}
}

// update rewrites the expected values of the script's failed checks
// (go test -update), and fails the test for those it cannot.
func update(tb testing.TB, s *script.Script, res *script.ScriptResult) {
	tb.Helper()
	data, notes, err := script.Update(s, res)
	if err != nil {
		tb.Fatalf("%s: not updated: %v", s.Name, err)
	}
	updated := 0
	for _, n := range notes {
		if n.Updated {
			updated++
			continue
		}
		tb.Errorf("%s:%d: %s", s.Name, n.Line, n.Text)
	}
	if updated == 0 {
		return
	}
	if err := outfile.Write(s.Name, data, 0o644); err != nil {
		tb.Fatalf("%s: -update: %v", s.Name, err)
	}
	tb.Logf("%s: %d expected value(s) updated (-update):\n%s", s.Name, updated,
		textdiff.Unified(s.Name, fmt.Sprintf("%s (updated)", s.Name), string(script.Source(s)), string(data), 3))
}

package script

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/askback/askback/internal/report/junit"
)

// sampleReport runs a passing script, a failing one and one that cannot
// connect.
func sampleReport(t *testing.T) *Report {
	t.Helper()
	good := mustParse(t, "good.mcp", "elicit_response decline\ncall_tool deploy service:x\nassert_contains \"not started\"\n")
	bad := mustParse(t, "bad.mcp", "call_tool sad\nassert_not_error\necho \"\x01 control\"\n")
	conn := testConnect()
	n := 0
	return RunAll(context.Background(), []*Script{good, bad, good}, RunOptions{Connect: func(ctx context.Context) (Conn, error) {
		n++
		if n == 3 {
			return nil, errors.New("refused")
		}
		return conn(ctx)
	}})
}

func TestWriteJUnit(t *testing.T) {
	rep := sampleReport(t)
	var b strings.Builder
	if err := WriteJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc junit.Suites
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if doc.Tests != 7 || doc.Failures != 1 || doc.Errors != 1 || len(doc.Suites) != 3 {
		t.Fatalf("tests=%d failures=%d errors=%d suites=%d\n%s", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites), b.String())
	}
	bad := doc.Suites[1]
	if bad.Name != "bad.mcp" || bad.Tests != 3 || bad.Failures != 1 {
		t.Errorf("suite %+v", bad)
	}
	c := bad.Cases[1]
	if c.Name != "2: assert_not_error" || c.Classname != "bad.mcp" || c.Failure == nil || !strings.Contains(c.Failure.Text, "expected: isError: false") {
		t.Errorf("case %+v", c)
	}
	if doc.Suites[2].Cases[0].Error == nil || doc.Suites[2].Cases[0].Name != "connect" {
		t.Errorf("connect failure not reported as an error: %+v", doc.Suites[2])
	}
	if strings.Contains(b.String(), "\x01") {
		t.Error("control character written into XML")
	}
}

func TestWriteJSON(t *testing.T) {
	rep := sampleReport(t)
	var b strings.Builder
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc jsonReport
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Passed != 5 || doc.Failed != 1 || doc.ExitCode != ExitConnect || len(doc.Scripts) != 3 {
		t.Fatalf("%+v", doc)
	}
	st := doc.Scripts[1].Steps[1]
	if st.Status != "failed" || st.Line != 2 || st.Column != 1 || st.Command != "assert_not_error" || st.Expected != "isError: false" || st.Response == "" {
		t.Errorf("step %+v", st)
	}
	if doc.Scripts[2].Error != "could not connect: refused" || doc.Scripts[2].Steps == nil {
		t.Errorf("script %+v", doc.Scripts[2])
	}
}

func TestExpandPaths(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.mcp", "a.mcp", "sub/c.mcp", "notes.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("ping\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(s ...string) []string {
		for i := range s {
			s[i] = filepath.Join(dir, s[i])
		}
		return s
	}
	got, err := ExpandPaths([]string{dir, filepath.Join(dir, "a.mcp"), filepath.Join(dir, "*.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if want := j("a.mcp", "b.mcp", "sub/c.mcp", "notes.txt"); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for arg, msg := range map[string]string{
		filepath.Join(dir, "none.mcp"):  "none.mcp: no such file or directory",
		filepath.Join(dir, "*.yaml"):    "matches no file",
		filepath.Join(dir, "sub", ".."): "",
	} {
		_, err := ExpandPaths([]string{arg})
		if msg == "" {
			if err != nil {
				t.Errorf("%s: %v", arg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want %q", arg, err, msg)
		}
	}
	if _, err := ExpandPaths(nil); err == nil {
		t.Error("no arguments accepted")
	}
}

func TestLoadFilesReportsEverySyntaxError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.mcp"), []byte("ping\ncall_tol x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.mcp"), []byte("echo \"x\n"), 0o644)
	_, err := LoadFiles([]string{dir})
	if err == nil {
		t.Fatal("no error")
	}
	want := filepath.Join(dir, "a.mcp") + `:2:1: unknown command "call_tol"; did you mean "call_tool"?` + "\n" +
		filepath.Join(dir, "b.mcp") + `:1:6: unterminated string: add the closing "`
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	var se SyntaxErrors
	if !errors.As(err, &se) {
		t.Error("not SyntaxErrors")
	}
	scripts, err := LoadFiles([]string{"testdata/deploy.mcp"})
	if err != nil || len(scripts) != 1 || scripts[0].NumSteps() != 7 {
		t.Fatalf("%v %v", scripts, err)
	}
}

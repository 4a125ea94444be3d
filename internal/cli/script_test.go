package cli

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

func TestScriptCmdBindsFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *ScriptOptions
	cmd := newScriptCmd(ios, func(_ context.Context, o *ScriptOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"rec.jsonl", "-o", "out.mcp", "--match", "shape", "--ignore", "a.b", "--ignore", "content.*", "--lists"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := &ScriptOptions{IO: ios, Recording: "rec.jsonl", Output: "out.mcp", Match: "shape", Ignore: []string{"a.b", "content.*"}, Lists: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options %+v, want %+v", got, want)
	}
}

// A script is written whole: a failure leaves the file that was there, and
// stdout holds the script alone.
func TestRunScriptWritesWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.jsonl")
	out := filepath.Join(dir, "out.mcp")
	os.WriteFile(out, []byte("before\n"), 0o600)
	os.WriteFile(rec, []byte(`{"format":"askback-recording/1","started":"2026-12-03T10:00:00Z","transport":"stdio","server":"s"}`+"\n"+
		`{"t_ms":1,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quiet"}}}`+"\n"+
		`{"t_ms":2,"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}}`+"\n"), 0o600)
	ios, _, stdout, stderr := iostreams.Test()
	err := runScript(context.Background(), &ScriptOptions{IO: ios, Recording: rec, Match: "exact"})
	if err != nil || !strings.HasSuffix(stdout.String(), "call_tool quiet\nassert_equals \"done\"\n") || stderr.Len() != 0 {
		t.Fatalf("err %v, stdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	err = runScript(context.Background(), &ScriptOptions{IO: ios, Recording: rec + ".missing", Output: out, Match: "exact"})
	if exitCode(err) != ExitUsage {
		t.Errorf("exit %d for a missing recording", exitCode(err))
	}
	if b, _ := os.ReadFile(out); string(b) != "before\n" {
		t.Errorf("the output was changed: %q", b)
	}
	if err := runScript(context.Background(), &ScriptOptions{IO: ios, Recording: rec, Output: out, Match: "exact"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("the replaced file's mode is %v, want the file's own 0600", fi.Mode().Perm())
	}
}

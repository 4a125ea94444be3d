package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

// catalog diff and scan --catalog hold their catalogs for the whole run:
// they collect garbage at Go's own target (GOGC 100), not mcp-tester's
// 200 (three times what is held), unless the environment sets GOGC.
func TestCommandsThatHoldCatalogsCollectAtGOGC100(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.json")
	if err := os.WriteFile(file, []byte(`{"catalogFormat":1,"server":{"name":"s"},"protocolVersion":"2025-11-25","capabilities":{},"tools":[],"prompts":[],"resources":[],"resourceTemplates":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	was := debug.SetGCPercent(200)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	for _, tc := range []struct {
		gogc string
		args []string
		want int
	}{
		{"", []string{"catalog", "diff", file, file}, 100},
		{"", []string{"scan", "--catalog", file}, 100},
		{"300", []string{"catalog", "diff", file, file}, 200},
	} {
		t.Setenv("GOGC", tc.gogc)
		debug.SetGCPercent(200)
		ios, _, _, errOut := iostreams.Test()
		if code := Main(context.Background(), ios, tc.args); code != 0 {
			t.Fatalf("%v (GOGC %q): exit %d: %s", tc.args, tc.gogc, code, errOut)
		}
		if got := debug.SetGCPercent(200); got != tc.want {
			t.Errorf("%v (GOGC %q): collected at GOGC %d, want %d", tc.args, tc.gogc, got, tc.want)
		}
	}
}

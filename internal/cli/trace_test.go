package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askback/askback/internal/cli/iostreams"
)

// The trace's first line names the target; credential headers show no
// value, wherever the trace goes.
func TestTraceHidesHeaderValues(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	file := filepath.Join(t.TempDir(), "t.jsonl")
	o := &ConnOptions{URL: "http://127.0.0.1:1/mcp", Verbose: true, TraceFile: file,
		Headers: []string{"Authorization: Bearer zzz-secret", "Cookie: sid=c00kie", "X-Api-Key: k3y", "Accept: text/plain"}}
	if err := o.prepare(ios); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"stderr": errOut.String(), "file": string(b)} {
		for _, secret := range []string{"zzz-secret", "c00kie", "k3y"} {
			if strings.Contains(got, secret) {
				t.Errorf("the trace on %s shows %q: %s", name, secret, got)
			}
		}
		if !strings.Contains(got, `"Accept: text/plain"`) || !strings.Contains(got, `"Authorization: [redacted]"`) {
			t.Errorf("the trace on %s should name the headers: %s", name, got)
		}
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("trace file mode %v, %v; want 0600", fi.Mode(), err)
	}
	// prepare runs once: a second session does not truncate the file.
	if err := o.prepare(ios); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(file); len(b2) != len(b) {
		t.Errorf("a second prepare changed the trace file")
	}
}

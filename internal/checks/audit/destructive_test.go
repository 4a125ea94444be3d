package audit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/client/target"
)

// The audit never calls a tool whose annotations say destructive unless
// it is told it may; the fixture's destroy (no annotations) and wipe
// (destructiveHint true) tools write a line to a file each time they are
// called.
func TestNeverCallsDestructiveWithoutInclude(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "destroyed")
	tgt := &target.Target{Command: fmt.Sprintf("%s -variant good -mark %s", binary(t, "rulebreaker"), mark)}

	rep, err := audit.Run(context.Background(), audit.Options{Target: tgt, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Fatalf("destroy was called without --include (mark file: %v)", err)
	}
	for _, name := range []string{"destroy", "wipe"} {
		var sub *audit.Subject
		for _, s := range rep.Subjects {
			if s.Name == name {
				sub = s
			}
		}
		if sub == nil || !strings.Contains(sub.Skipped, "pass Include "+name) {
			t.Fatalf("%s = %+v, want skipped with a hint to Include it", name, sub)
		}
	}
	if rep.Failed() {
		t.Fatalf("the good fixture fails over stdio:\n%s", text(rep))
	}

	// Told it may call one, the audit calls that one only.
	if _, err := audit.Run(context.Background(), audit.Options{Target: tgt, Timeout: 10 * time.Second, Include: []string{"wipe"}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(mark); err != nil || !strings.Contains(string(b), "wipe called") || strings.Contains(string(b), "destroy") {
		t.Fatalf("with --include wipe: mark file %q, %v; want wipe called, destroy not", b, err)
	}
}

// A server that cannot be reached is an *audit.UnreachableError.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	_, err := audit.Run(context.Background(), audit.Options{
		Target: &target.Target{URL: "http://127.0.0.1:1/mcp"}, Timeout: 3 * time.Second,
	})
	var ue *audit.UnreachableError
	if !asUnreachable(err, &ue) {
		t.Fatalf("err = %v, want an UnreachableError", err)
	}
}

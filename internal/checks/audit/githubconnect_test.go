package audit_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/client/target"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// The github-connect example asks by URL, with a signed link to its own
// connect page: audited as alice with bob as the second identity, it
// breaks no rule, and its link is not mistaken for a credential.
func TestGitHubConnectPassesClean(t *testing.T) {
	addr, fake := freeAddr(t), freeAddr(t)
	cmd := exec.Command(binary(t, "github-connect"), "-http", addr, "-fake-github", fake,
		"-user", "alice:alice-mcp-token:alice-pw", "-user", "bob:bob-mcp-token:bob-pw")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := fmt.Sprintf("http://%s/mcp", addr)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatalf("github-connect did not listen on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rep, err := audit.Run(context.Background(), audit.Options{
		Target:       &target.Target{URL: url, Headers: []string{"Authorization: Bearer alice-mcp-token"}},
		OtherHeaders: []string{"Authorization: Bearer bob-mcp-token"},
		Timeout:      10 * time.Second,
		Include:      []string{"*"},
		Args:         map[string]map[string]any{"create_issue": {"repo": "octo/demo", "title": "audit"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() || !rep.Complete() {
		t.Fatalf("github-connect fails the audit:\n%s", text(rep))
	}
	for _, s := range rep.Subjects {
		if s.Kind == "tool" && s.Asks {
			if r := s.Result(audit.RuleURL); r.Status != audit.Pass {
				t.Errorf("%s: rule 11 is %s, want pass:\n%s", s.Label(), r.Status, text(rep))
			}
			return
		}
	}
	t.Fatalf("no tool asked:\n%s", text(rep))
}

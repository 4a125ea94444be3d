package asktest_test

import (
	"strings"
	"testing"

	"github.com/askback/askback/asktest"
)

// The server, which keeps the rules of asking, passes the audit in both
// eras; the test says nothing about the tools that ask nothing.
func TestAuditPasses(t *testing.T) {
	asktest.EachEra(t, func(t *testing.T, era asktest.Era) {
		asktest.Audit(t, asktest.Server(newServer(broken{})), &asktest.AuditOptions{Era: era})
	})
}

// A server whose requestState is not sealed takes a tampered one: the
// audit fails the test with the rule, its subject and the evidence.
func TestAuditFails(t *testing.T) {
	failing(t, "a state anyone can forge", func(ft *T) {
		asktest.Audit(ft, asktest.Server(newServer(broken{plain: true})), nil)
	}, `audit: tool "deploy" breaks rule 1 state-tamper: tampered requestState is refused`, "    sent: ", "    got:  ")
}

// A rule skipped by name, with a reason, fails nothing: its finding is
// logged with the reason.
func TestAuditSkip(t *testing.T) {
	skip := map[string]string{
		"state-tamper":           "the state is plain on purpose in this test",
		"state-bound-to-request": "the same",
	}
	ft := run("skipped", func(ft *T) {
		asktest.Audit(ft, asktest.Server(newServer(broken{plain: true})), &asktest.AuditOptions{Skip: skip})
	})
	if ft.Failed() {
		t.Fatalf("the audit failed:\n%s", ft.Errors())
	}
	if logs := strings.Join(ft.logs, "\n"); !strings.Contains(logs, "breaks rule 1 state-tamper, which the test skips (the state is plain on purpose in this test)") {
		t.Errorf("the log does not name the skipped finding:\n%s", logs)
	}
}

// A rule that does not exist, a skip without a reason, a server that asks
// nothing and arguments for a tool the server lacks fail the test.
func TestAuditCannotRun(t *testing.T) {
	srv := asktest.Server(newServer(broken{}))
	failing(t, "no such rule", func(ft *T) {
		asktest.Audit(ft, srv, &asktest.AuditOptions{Skip: map[string]string{"state-tampering": "typo"}})
	}, `no rule is named "state-tampering"`, "state-tamper: tampered requestState is refused")
	failing(t, "no reason", func(ft *T) {
		asktest.Audit(ft, srv, &asktest.AuditOptions{Skip: map[string]string{"state-tamper": " "}})
	}, `AuditOptions.Skip["state-tamper"]: give the reason`)
	failing(t, "nothing asks", func(ft *T) {
		asktest.Audit(ft, asktest.Server(newServer(broken{noAsk: true})), &asktest.AuditOptions{Include: []string{"deploy"}})
	}, "checked nothing")
	failing(t, "arguments for no tool", func(ft *T) {
		asktest.Audit(ft, srv, &asktest.AuditOptions{Args: map[string]map[string]any{"deplyo": {"service": "web"}}})
	}, `AuditOptions.Args "deplyo=…": the server has no tool`, `did you mean "deploy"?`)
}

package audit_test

import (
	"context"
	"testing"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/client/target"
)

const deployKey = "0123456789abcdef0123456789abcdef"

func deployerTarget(t testing.TB) *target.Target {
	return &target.Target{
		Command: binary(t, "deployer"),
		Env:     []string{"DEPLOY_STATE_KEY=" + deployKey},
	}
}

// The deployer, told that it may call its deploy tool, breaks no rule.
func TestDeployerPassesClean(t *testing.T) {
	rep, err := audit.Run(context.Background(), audit.Options{
		Target: deployerTarget(t), Timeout: 10 * time.Second, Include: []string{"deploy"},
	})
	if err != nil {
		t.Fatal(err)
	}
	deploy := rep.Subjects[0]
	if deploy.Name != "deploy" || !deploy.Asks {
		t.Fatalf("first subject = %+v, want the deploy tool, asking", deploy)
	}
	if rep.Failed() {
		t.Fatalf("the deployer fails the audit:\n%s", text(rep))
	}
	server := rep.Subjects[len(rep.Subjects)-1]
	for _, r := range []audit.Rule{audit.RuleTamper, audit.RuleReplay, audit.RuleNoCapability, audit.RuleSchema,
		audit.RuleSecrets, audit.RuleDecline, audit.RuleMissing, audit.RuleBounded, audit.RulePlacement} {
		res := deploy.Result(r)
		if r == audit.RulePlacement {
			res = server.Result(r)
		}
		if res == nil || res.Status != audit.Pass {
			t.Errorf("rule %d (%s): %+v, want pass", r.N, r.Title, res)
		}
	}
	// A stdio server has one user; no URL questions are asked.
	for _, r := range []audit.Rule{audit.RuleUser, audit.RuleFormsOnly, audit.RuleURL} {
		if res := deploy.Result(r); res.Status != audit.NA {
			t.Errorf("rule %d: %s, want n/a", r.N, res.Status)
		}
	}
}

// Without --include the deployer's deploy tool (no annotations, so
// destructive by default) is listed as skipped and never called.
func TestDeployerDestructiveSkipped(t *testing.T) {
	rep, err := audit.Run(context.Background(), audit.Options{Target: deployerTarget(t), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	deploy := rep.Subjects[0]
	if deploy.Skipped == "" || len(deploy.Results) != 0 {
		t.Fatalf("deploy = %+v, want skipped without results", deploy)
	}
	if rep.Failed() {
		t.Fatalf("nothing was called, yet something failed:\n%s", text(rep))
	}
}

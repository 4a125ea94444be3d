package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/cli/iostreams"
)

// audit and grade take the audit's flags alike: the same flags read into
// the same auditFlags, worded the same (grade's scoped to the audit).
func TestAuditAndGradeTakeTheAuditFlagsAlike(t *testing.T) {
	args := []string{"-u", "http://127.0.0.1:1/mcp", "--other-header", "Authorization: Bearer b", "--other-identity", "second",
		"--args", `search={"q":"x"}`, "--include", "deploy", "--read-only", "--deadline", "5s"}
	want := auditFlags{OtherHeaders: []string{"Authorization: Bearer b"}, OtherIdentity: "second", Args: []string{`search={"q":"x"}`},
		Include: []string{"deploy"}, ReadOnly: true, Deadline: 5 * time.Second, DeadlineSet: true}
	ios, _, _, _ := iostreams.Test()
	var a *AuditOptions
	if err := execute(newAuditCmd(ios, capture(&a)), args...); err != nil {
		t.Fatal(err)
	}
	var g *GradeOptions
	if err := execute(newGradeCmd(ios, capture(&g)), args...); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.auditFlags, want) || !reflect.DeepEqual(g.auditFlags, want) {
		t.Errorf("audit read %+v, grade %+v, want %+v", a.auditFlags, g.auditFlags, want)
	}
	auditCmd, gradeCmd := newAuditCmd(ios, nil), newGradeCmd(ios, nil)
	for _, name := range []string{"other-header", "other-identity", "args", "include", "read-only", "deadline"} {
		au, gu := auditCmd.Flags().Lookup(name).Usage, gradeCmd.Flags().Lookup(name).Usage
		if gu != au && gu != "for the audit: "+au {
			t.Errorf("--%s: audit says %q, grade %q", name, au, gu)
		}
		if strings.HasPrefix(au, "for the audit") {
			t.Errorf("--%s: audit's own usage is scoped: %q", name, au)
		}
	}
}

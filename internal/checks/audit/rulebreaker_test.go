package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/askback/askback/internal/checks/audit"
	"github.com/askback/askback/internal/client/target"
)

// startHTTP starts the rulebreaker with variant over HTTP and returns its
// URL. The process is killed when the test ends.
func startHTTP(t *testing.T, variant string) string {
	t.Helper()
	return startHTTPB(t, variant)
}

// startHTTPB is startHTTP for tests and benchmarks.
func startHTTPB(t testing.TB, variant string) string {
	t.Helper()
	cmd := exec.Command(binary(t, "rulebreaker"), "-variant", variant, "-http", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("rulebreaker -variant %s printed no URL: %v", variant, err)
	}
	return strings.TrimSpace(line)
}

// twoUsers audits url as alice, with bob as the second identity.
func twoUsers(t *testing.T, url string) *audit.Report {
	t.Helper()
	rep, err := audit.Run(context.Background(), audit.Options{
		Target:       &target.Target{URL: url, Headers: []string{"Authorization: Bearer alice"}},
		OtherHeaders: []string{"Authorization: Bearer bob"},
		Timeout:      10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// failedRules returns the numbers of the rules that failed anywhere.
func failedRules(rep *audit.Report) []int {
	seen := map[int]bool{}
	for _, f := range rep.Failures() {
		seen[f.Result.Rule.N] = true
	}
	var out []int
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func text(rep *audit.Report) string {
	var b bytes.Buffer
	_ = rep.WriteText(&b)
	return b.String()
}

// Each variant of the rulebreaker breaks one rule; the audit must fail
// that rule and no other.
func TestRulebreakerVariants(t *testing.T) {
	cases := []struct {
		variant string
		rule    int // 0: nothing may fail
	}{
		{"good", 0},
		{"tamper", 1},
		{"replay", 2},
		{"user", 3},
		{"nocap", 4},
		{"urlforms", 5},
		{"schema", 6},
		{"secret", 7},
		{"decline", 8},
		{"reask", 9},
		{"partial", 9},
		{"extra", 9},
		{"endless", 10},
		{"url", 11},
		{"placement", 12},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			rep := twoUsers(t, startHTTP(t, tc.variant))
			got := failedRules(rep)
			var want []int
			if tc.rule != 0 {
				want = []int{tc.rule}
			}
			if !equalInts(got, want) {
				t.Fatalf("failed rules = %v, want %v\n%s", got, want, text(rep))
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Against a client speaking 2025-11-25 the questions come as
// elicitation/create requests; the rules that still apply are checked on
// them, and the rules of requestState are n/a.
func TestRulebreakerOlderProtocol(t *testing.T) {
	cases := []struct {
		variant string
		rule    int
	}{
		{"good", 0},
		{"schema", 6},
		{"secret", 7},
		{"decline", 8},
		{"endless", 10}, // the go-sdk translates one round; the next leaks out
		{"url", 11},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			t.Parallel()
			rep, err := audit.Run(context.Background(), audit.Options{
				Target:   &target.Target{Command: binary(t, "rulebreaker") + " -variant " + tc.variant},
				Protocol: "2025-11-25", Timeout: 10 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Protocol != "2025-11-25" {
				t.Fatalf("protocol %s", rep.Protocol)
			}
			var want []int
			if tc.rule != 0 {
				want = []int{tc.rule}
			}
			if got := failedRules(rep); !equalInts(got, want) {
				t.Fatalf("failed rules = %v, want %v\n%s", got, want, text(rep))
			}
			for _, s := range rep.Subjects {
				if r := s.Result(audit.RuleTamper); r != nil && r.Status != audit.NA {
					t.Errorf("%s: rule 1 is %s on 2025-11-25, want n/a", s.Label(), r.Status)
				}
			}
		})
	}
}

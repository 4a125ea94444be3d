package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CONFORMANCE_SCENARIOS naming server scenarios runs those and no other:
// each in a start of the suite of its own, with --scenario, not the run of
// every server scenario (--requirements) that the default makes.
func TestConformanceRunsOnlyTheNamedServerScenarios(t *testing.T) {
	for _, tool := range []string{"flock", "jq", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	root, calls, env := toolsCheckout(t)
	write := func(name, body string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"conformance.sh", "ensure-jq.sh", "apt.sh"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("scripts", name), string(b))
	}
	// The suite notes how it was started and passes what it ran.
	write(".tools/conformance/node_modules/.bin/conformance",
		"#!/bin/bash\necho \"suite $*\" >> '"+calls+"'\necho 'Passed: 1/1, 0 failed, 0 warnings'\n")
	// The binaries: a server that says where it listens, the others unused.
	write("bin/conformance", "#!/bin/bash\necho 'serving http://127.0.0.1:9/mcp'\nexec sleep 600\n")
	for _, b := range []string{"mcp-tester", "fakebrowser", "protected"} {
		write(filepath.Join("bin", b), "#!/bin/bash\nexit 0\n")
	}
	named := []string{"tasks-lifecycle", "input-required-result-basic-elicitation"}
	runScript(t, root, "conformance.sh", append(env, "CONFORMANCE_BIN="+filepath.Join(root, "bin"),
		"CONFORMANCE_SCENARIOS="+strings.Join(named, " ")))
	got := readCalls(t, calls)
	if len(got) != len(named) {
		t.Fatalf("the suite started %d times for %d named server scenarios: %q", len(got), len(named), got)
	}
	for i, s := range named {
		if !strings.Contains(got[i], "_--scenario_"+s+"_") || strings.Contains(got[i], "--requirements") {
			t.Errorf("start %d of the suite does not run %s alone: %q", i+1, s, got[i])
		}
	}
}

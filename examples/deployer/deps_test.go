package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The examples are servers to copy: none links the test helpers
// (internal/testsupport/scaleout) or the testing package.
func TestExamplesLinkNoTestHelpers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, bad := range []string{"testing", "github.com/askback/askback/internal/testsupport/scaleout"} {
			if slices.Contains(strings.Fields(deps), bad) {
				t.Errorf("%s links %s", pkg, bad)
			}
		}
	}
}
